"""What a check learns of files (which images decode: pnp.core.filefacts) is kept for the next
run, signed (pnp.verify.cache): after an edit of one card, a check decodes no image of the deck
again, yet a changed image is decoded again and a forged or copied facts file is never trusted.

The project is tests/build_project with a card showing an image of its own and one showing an
image that does not decode, checked with --no-render (the rules alone: only they decode here).
Both go through PIL (an RGB PNG is checked without it: tests/test_png_check.py), so whether a
run imported PIL tells whether it decoded an image.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from PIL import Image
from test_check_fast import imported, pnp  # the real CLI, optionally under -X importtime

from pnp.core.filefacts import SETTLED_NS

ROOT = Path(__file__).resolve().parents[1]
FACTS = Path("output") / ".pnp-cache" / "check" / "facts.json"
RESULTS = Path("output") / ".pnp-cache" / "check" / "results.json"


def decodes(done_stderr: str) -> bool:
    """Whether the run imported the image decoder (PIL): a check that decodes no image does not."""
    return any(m == "PIL" or m.startswith("PIL.") for m in imported(done_stderr))


def check(project: Path, home: Path) -> tuple[str, bool]:
    """A full `pnp check --no-render` (not a stored result replayed): what it printed, and
    whether it decoded an image."""
    (project / RESULTS).unlink(missing_ok=True)
    done = pnp(project, home, "check", "--no-render", importtime=True)
    assert "pnp.rules.check" in imported(done.stderr), done.stderr[-2000:]
    return done.stdout, decodes(done.stderr)


def edit_text(project: Path, text: str) -> None:
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[2]["text"] = text
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The project, its images unchanged for long enough that their facts are kept across runs."""
    project = tmp_path_factory.mktemp("facts") / "project"
    shutil.copytree(ROOT / "tests" / "build_project", project, ignore=shutil.ignore_patterns("output"))
    with Image.open(project / "art" / "sun.png") as sun:  # with an alpha channel: decoded by PIL,
        sun.convert("RGBA").save(project / "art" / "own.png")  # so importing PIL tells a decode
    (project / "art" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[0]["image"], records[1]["image"] = "art/own.png", "art/broken.png"
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # the one wait: a file changed within the last seconds is not trusted
    return project, tmp_path_factory.mktemp("home")


def test_images_are_decoded_once_until_they_change(settled: tuple[Path, Path], tmp_path: Path) -> None:
    """In order (one project, files that must stay settled): an edit of a card decodes no image
    again; a forged facts file is not trusted; a changed image is decoded again; a copy of the
    project with its output folder brings no facts."""
    project, home = settled
    first, decoded = check(project, home)
    assert decoded and "art/broken.png" in first and "bad-asset" in first, first
    edit_text(project, "Edited once.")
    again, decoded = check(project, home)
    assert not decoded, "every image's verdict is known from the last run"
    assert again == first  # the broken image still reported, from what was learned of it

    # A facts file that calls the broken image sound, with the signature of the true one (a
    # hostile pull request cannot sign: the key is made on this disk) is ignored.
    stored = json.loads((project / FACTS).read_text(encoding="utf-8"))
    facts = json.loads(stored["facts"])
    assert any(f for entry in facts for name, f in entry[2].items() if name.startswith("image ")), facts
    forged = [[e[0], e[1], {n: ("" if n.startswith("image ") else f) for n, f in e[2].items()}] for e in facts]
    (project / FACTS).write_text(json.dumps({**stored, "facts": json.dumps(forged)}), encoding="utf-8")
    out, decoded = check(project, home)
    assert decoded and out == first, out

    # The project copied with its output folder (as a commit of it would be checked out): the
    # key file's identity changed, so the copied facts no longer verify.
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    out, decoded = check(copy, home)
    assert decoded and "art/broken.png" in out, out

    shutil.copyfile(project / "art" / "own.png", project / "art" / "broken.png")  # now an image that decodes
    out, decoded = check(project, home)
    assert decoded and "broken.png" not in out, out
