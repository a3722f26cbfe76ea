"""`pnp build`'s check run by a forked child while the build imports the drawing stage
(pnp.outputs.buildcheck.checked_meanwhile): the files and every message are those of one process, and
a build whose check finds an error still writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pnp.outputs.build import CHECKED_HERE
from tests.buildkit import PROJECT
from tests.runpnp import run as pnp


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The build project with a static warning (a kind with records and no layout) and a drawing
    warning (a character the layout's font cannot draw): both reach the report either way."""
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    (target / "layouts" / "test-spell.json").unlink()
    path = target / "cards" / "cards.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["name"] = "Ember \U0001f525 Wild"  # no glyph in DejaVu Sans
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return target


def build(root: Path, *args: str) -> tuple[int, int, dict[str, bytes], str]:
    """(exit status, static checks made in this process, the files written, what was printed); the
    caches under output/.pnp-cache/ are signed with a key made at random for each output folder."""
    shutil.rmtree(root / "output", ignore_errors=True)
    before = CHECKED_HERE[root]
    ran = pnp(root, "build", *args)
    written = sorted(p for p in (root / "output").rglob("*") if p.is_file() and ".pnp-cache" not in p.parts)
    files = {str(p.relative_to(root)): p.read_bytes() for p in written}
    return ran.returncode, CHECKED_HERE[root] - before, files, ran.stdout + ran.stderr


def test_the_check_on_another_core_makes_the_same_files_and_messages(root: Path) -> None:
    code, here, alone, said = build(root, "--jobs", "1")
    assert (code, here) == (0, 1), said
    assert "warning[missing-layout]" in said and "warning[missing-glyph]" in said, said
    assert any(name.endswith(".pdf") for name in alone)
    code, elsewhere, split, told = build(root, "--jobs", "2")
    assert (code, elsewhere) == (0, 0), told  # checked by the child
    assert split == alone
    assert told == said


def test_an_error_the_child_finds_stops_the_build_before_anything_is_written(root: Path) -> None:
    path = root / "cards" / "cards.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[1]["cost"] = "three"  # a schema error
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    code, here, alone, said = build(root, "--jobs", "1")
    assert (code, here) == (1, 1), said
    assert "cards/cards.json:" in said and ": error[" in said, said
    code, elsewhere, split, told = build(root, "--jobs", "2")
    assert (code, elsewhere) == (1, 0), told
    assert not (root / "output").exists()  # nothing written, not even a cache
    assert split == alone == {}
    assert told == said
