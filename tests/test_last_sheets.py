"""[paper] mix-sizes = "last-sheets": each size keeps its grid on its full sheets, and only the
part-filled last sheets of several sizes are shelf-packed together in the combined file, where
that saves paper. Real builds of the bleed game (tests/test_bleed_edges.py) with 13 poker cards
(a full sheet of 9 and 4 more), 5 tokens of 25 mm and 3 of 38 mm."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pytest

from tests.runpnp import run as pnp
from tests.test_paper import mixed_project

FACE = re.compile(r"[abc]-\d+")


def thirteen_cards(root: Path, mix: str) -> Path:
    project = mixed_project(root, f"\n[paper]\nmix-sizes = {mix}\n" if mix else "")
    records = [{"kind": "bl.a", "id": f"a-{n}", "tone": "red" if n % 2 == 0 else "blue"} for n in range(13)]
    (project / "cards" / "a.json").write_text(json.dumps(records))
    return project


def faces_by_page(pdf: Path) -> list[list[str]]:
    with pdfplumber.open(pdf) as document:
        return [[w["text"] for w in page.extract_words() if FACE.fullmatch(w["text"])] for page in document.pages]


def labels(pdf: Path) -> list[str]:
    with pdfplumber.open(pdf) as document:
        return [" ".join((page.extract_text() or "").split()[-6:]) for page in document.pages]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """The game built with each setting: its folder and what the build said."""
    built = {}
    for mix in ("", "true", '"last-sheets"'):
        project = thirteen_cards(tmp_path_factory.mktemp("last") / "project", mix)
        done = pnp(project, "build")
        assert done.returncode == 0, done.stdout + done.stderr
        built[mix] = (project, done.stderr)
    return built


def test_only_the_last_sheets_share_a_sheet(builds: dict[str, tuple[Path, str]]) -> None:
    """Grids: 2 card sheets and 1 token sheet, and the read-me's sheet; every face shelf-packed
    takes no fewer (cards lose their shared cut lines), so `true` keeps the grids; last-sheets puts
    the 4 last cards and the 8 tokens on one sheet."""
    assert "wrote output/bl.pdf (4 sheets)" in builds[""][1]
    assert "wrote output/bl.pdf (4 sheets)" in builds["true"][1]
    assert "wrote output/bl.pdf (3 sheets)" in builds['"last-sheets"'][1]
    for kind, sheets in (("bl.a", "2 sheets"), ("bl.b", "1 sheet"), ("bl.c", "1 sheet")):
        assert (
            f"wrote output/bl/{kind}.pdf ({sheets})" in builds['"last-sheets"'][1]
        )  # a kind's own file keeps its grid


def test_the_full_sheet_keeps_its_grid_and_the_rest_follow_once(builds: dict[str, tuple[Path, str]]) -> None:
    project, _ = builds['"last-sheets"']
    pages = faces_by_page(project / "output" / "bl.pdf")
    assert len(pages) == 6  # read-me and its blank back, then two sheets of fronts and backs
    assert pages[2] == [f"a-{n}" for n in range(9)]  # the full card sheet, in slot order
    mixed = pages[4]
    expected = [f"a-{n}" for n in range(9, 13)] + [f"b-{n}" for n in range(5)] + ["c-0", "c-1", "c-2"]
    assert sorted(set(mixed)) == sorted(expected)  # (a token prints its id twice: mixed_project's layouts)
    assert pages[3] == pages[5] == []  # backs: no text on the bleed game's backs
    first, second = labels(project / "output" / "bl.pdf")[2], labels(project / "output" / "bl.pdf")[4]
    assert first.endswith("1/2, fronts"), first
    assert "2/2, fronts" in second, second


def test_the_grid_sheet_is_the_one_without_last_sheets(builds: dict[str, tuple[Path, str]]) -> None:
    """The full sheet is drawn as the default build draws it: the same faces at the same places."""
    words = []
    for mix in ("", '"last-sheets"'):
        with pdfplumber.open(builds[mix][0] / "output" / "bl.pdf") as document:
            found = [w for w in document.pages[2].extract_words() if FACE.fullmatch(w["text"])]
        words.append([(w["text"], round(w["x0"], 1), round(w["top"], 1)) for w in found])
    assert words[0] == words[1]


def test_the_mixed_sheet_keeps_every_face_apart_and_on_the_paper(builds: dict[str, tuple[Path, str]]) -> None:
    project, _ = builds['"last-sheets"']
    with pdfplumber.open(project / "output" / "bl.pdf") as document:
        page = document.pages[4]
        found = [w for w in page.extract_words() if FACE.fullmatch(w["text"])]
        found = list({w["text"]: w for w in found}.values())  # one word a face
        assert all(w["x0"] > 0 and w["x1"] < page.width and w["top"] > 0 and w["bottom"] < page.height for w in found)
    centres = [((w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2) for w in found]
    assert len(set(centres)) == len(centres)


def test_the_read_me_says_to_cut_the_mixed_sheet_face_by_face(builds: dict[str, tuple[Path, str]]) -> None:
    def read_me(mix: str) -> str:
        with pdfplumber.open(builds[mix][0] / "output" / "bl" / "read-me-first.pdf") as document:
            return " ".join((document.pages[0].extract_text() or "").split())

    assert "two cuts between neighbours" in read_me('"last-sheets"')
    assert "3 sheets of paper" in read_me('"last-sheets"')


def test_the_combined_file_is_the_same_bytes_when_built_again(builds: dict[str, tuple[Path, str]]) -> None:
    project, _ = builds['"last-sheets"']
    before = (project / "output" / "bl.pdf").read_bytes()
    done = pnp(project, "build", "--force")
    assert done.returncode == 0, done.stderr
    assert (project / "output" / "bl.pdf").read_bytes() == before


def test_nothing_to_save_leaves_the_grids(tmp_path: Path) -> None:
    """One card size alone: no other last sheet to share with, the file is the default one."""
    project = thirteen_cards(tmp_path / "project", '"last-sheets"')
    for name in ("b", "c"):
        (project / "cards" / f"{name}.json").unlink()
        (project / "layouts" / f"bl-{name}.json").unlink()
        (project / "schemas" / f"bl.{name}.schema.json").unlink()
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote output/bl/bl.a.pdf (2 sheets)" in done.stderr


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('"last-sheet"', "(did you mean 'last-sheets'?)"),
        ("1", 'must be true (every face shelf-packed together), false, or "last-sheets"'),
        ('"all"', 'must be true (every face shelf-packed together), false, or "last-sheets"'),
    ],
)
def test_a_wrong_value_is_one_located_line(tmp_path: Path, value: str, says: str) -> None:
    project = thirteen_cards(tmp_path / "project", value)
    done = pnp(project, "check")
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if ": error[" in line]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    line = (project / "pnp.toml").read_text().splitlines().index(f"mix-sizes = {value}") + 1
    assert errors[0].startswith(f"pnp.toml:{line}:1: error[config-error]: [paper] mix-sizes = {value}: "), errors[0]
    assert says in errors[0], errors[0]
