"""A kind's face keys per record file (pnp/drawing/facekeys.py), kept by the build for the next
build and check: a file whose records did not change takes its keys from there, the PDF stays a
cold build's bytes, and a forged keys file (one card's key given to another: the build would copy
that card's face) is never trusted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from buildkit import cards_only
from runpnp import run

KEYS = Path("output") / ".pnp-cache" / "keys" / "test.card.json"


def pdf_of(project: Path) -> bytes:
    (path,) = (project / "output").rglob("test.card.pdf")
    return path.read_bytes()


def edit(project: Path, index: int, text: str) -> None:
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[index]["text"] = text
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")


def cold(project: Path, where: Path) -> bytes:
    """The PDF a build of a copy of `project` without its output folder writes."""
    copy = where / "cold"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("output"))
    assert run(copy, "build").returncode == 0
    return pdf_of(copy)


def test_kept_keys_give_a_cold_builds_bytes_and_a_forged_file_is_ignored(tmp_path: Path) -> None:
    project = cards_only(tmp_path / "project")
    (project / "cards" / "more.json").write_text(  # a second record file: one of them is edited
        json.dumps(json.loads((project / "cards" / "cards.json").read_text(encoding="utf-8"))[:2], indent=2).replace(
            '"card-0', '"card-9'
        ),
        encoding="utf-8",
    )
    for _ in range(2):  # the first build makes the project's key, the second keeps the keys
        assert run(project, "build").returncode == 0
    stored = json.loads((project / KEYS).read_text(encoding="utf-8"))
    files = json.loads(stored["payload"])["files"]
    assert len(files) == 2 and all(len(entry) > 4 for entry in files.values())

    edit(project, 0, "Edited once.")
    assert run(project, "build").returncode == 0
    assert pdf_of(project) == cold(project, tmp_path)

    # forged: the unedited file's two cards swap keys (their faces would swap), the old signature kept
    stored = json.loads((project / KEYS).read_text(encoding="utf-8"))
    inner = json.loads(stored["payload"])
    entry = next(e for name, e in inner["files"].items() if name.endswith("more.json"))
    entry[4], entry[5] = entry[5], entry[4]
    (project / KEYS).write_text(json.dumps({**stored, "payload": json.dumps(inner)}), encoding="utf-8")
    edit(project, 3, "Edited twice.")
    assert run(project, "build").returncode == 0
    assert pdf_of(project) == cold(project, tmp_path)
