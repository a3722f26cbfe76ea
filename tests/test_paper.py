"""Page geometry as data: pnp.toml's [paper] (size, orientation, printer, margin, grid), on real
builds of the bleed game (tests/test_bleed_edges.py: 5 + 9 poker cards), and the TOML examples
of docs/printing.md, each loaded as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pytest

from pnp.project.config import load_project
from tests.runpnp import run as pnp
from tests.test_bleed_edges import write_project

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "printing.md"
PT = 72 / 25.4


def doc_tomls() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOC.read_text(), flags=re.S)


def faces_on(pdf: Path, page: int) -> list[str]:
    with pdfplumber.open(pdf) as document:
        return [w["text"] for w in document.pages[page].extract_words() if re.fullmatch(r"[ab]-\d", w["text"])]


def page_size(pdf: Path, page: int) -> tuple[float, float]:
    with pdfplumber.open(pdf) as document:
        return round(document.pages[page].width / PT), round(document.pages[page].height / PT)


@pytest.fixture(scope="module")
def letter(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The bleed game built with docs/printing.md's first example: Letter, auto, home printer, 4 mm."""
    project = write_project(tmp_path_factory.mktemp("letter") / "project", "\n" + doc_tomls()[0])
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('paper = "a4"\n', ""))  # the example names the paper
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project, done.stderr


def test_nine_butted_poker_cards_on_letter(letter: tuple[Path, str]) -> None:
    project, stderr = letter
    assert "bl.b: 9 a sheet: 3 x 3 of 63 x 88 mm + 3 mm bleed, butted, on letter (215.9 x 279.4 mm)" in stderr
    own = project / "output" / "bl" / "bl.b.pdf"
    assert page_size(own, 0) == (216, 279)  # portrait: landscape holds 8
    assert sorted(faces_on(own, 0)) == [f"b-{n}" for n in range(9)]
    assert "wrote output/bl/bl.b.pdf (1 sheet)" in stderr


def test_nine_butted_poker_cards_on_a4(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    done = pnp(project, "build", "bl.b")
    assert done.returncode == 0, done.stderr
    assert (
        "bl.b: 9 a sheet: 3 x 3 of 63 x 88 mm + 3 mm bleed, butted, on a4 (210.0 x 297.0 mm) with 4 mm margins"
        in done.stderr
    )
    assert sorted(faces_on(project / "output" / "bl" / "bl.b.pdf", 0)) == [f"b-{n}" for n in range(9)]
    # five millimetres (an older laser's strip): a third row no longer fits Letter, and the line says why
    letter = pnp(project, "build", "bl.b", "--paper", "letter", "--margin", "5")
    assert letter.returncode == 0, letter.stderr
    assert "bl.b: 6 a sheet: 3 x 2" in letter.stderr
    assert "one more row 270.0 mm of the 269.4 mm down" in letter.stderr


def test_an_explicit_grid_and_cards_per_page(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", "\n[paper]\nrows = 2\ncolumns = 2\ncards-per-page = 3\n")
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    assert "bl.b: 3 a sheet: 2 x 2 of 63 x 88 mm" in done.stderr and "(cards-per-page = 3)" in done.stderr
    assert "wrote output/bl/bl.b.pdf (3 sheets)" in done.stderr
    assert faces_on(project / "output" / "bl" / "bl.b.pdf", 2) == ["b-3", "b-4", "b-5"]


def test_auto_orientation_turns_the_page_of_the_kind_it_suits(tmp_path: Path) -> None:
    """100 x 60 mm cards: 4 on portrait A4 (1 x 4), 6 on landscape (2 x 3); poker cards stay portrait."""
    project = write_project(tmp_path / "project", '\n[paper]\norientation = "auto"\n')
    layout = project / "layouts" / "bl-b.json"
    layout.write_text(json.dumps({**json.loads(layout.read_text()), "size": {"width": 100, "height": 60}}))
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    assert (
        "bl.b: 6 a sheet: 2 x 3 of 100 x 60 mm + 3 mm bleed, butted, on a4 (297.0 x 210.0 mm) landscape" in done.stderr
    )
    own = project / "output" / "bl" / "bl.b.pdf"
    assert page_size(own, 0) == page_size(own, 1) == (297, 210)
    assert page_size(project / "output" / "bl" / "bl.a.pdf", 0) == (210, 297)
    combined = project / "output" / "bl.pdf"
    assert page_size(combined, 0) == (210, 297) and page_size(combined, 2) == (297, 210)  # each kind's own turn
    assert sorted(faces_on(own, 0)) == [f"b-{n}" for n in range(6)]


@pytest.mark.parametrize(
    ("paper", "key", "words"),
    [
        ("rows = 4", "rows", "4 rows of 63.0 x 88.0 mm cards with 3 mm bleed do not fit"),
        ("columns = 4", "columns", "(it holds 3); use a larger paper, smaller margins or another orientation"),
        (
            "margin = 90",
            "margin",
            "a 63.0 x 88.0 mm card with 3.0 mm bleed does not fit a 210 x 297 mm page with 90 mm margins",
        ),
        ("margin = 2", "margin", "[paper] margin = 2 is inside the 4 mm a home printer cannot print"),
        ('size = "letter"', "size", '[paper] size = "letter" and [build] paper = "a4": set the paper once'),
        ('printer = "lazer"', "printer", "(did you mean 'laser'?)"),
        ("margin = 150", "margin", "margin must be a number of millimetres from 0 to 100"),
    ],
)
def test_impossible_geometry_is_a_located_configuration_error(tmp_path: Path, paper: str, key: str, words: str) -> None:
    project = write_project(tmp_path / "project", f"\n[paper]\n{paper}\n")
    done = pnp(project, "build")
    assert done.returncode == 2, done.stdout + done.stderr
    line = (project / "pnp.toml").read_text().splitlines().index(paper) + 1
    said = done.stdout + done.stderr
    assert f"pnp.toml:{line}:1: error[config-error]: " in said and words in said, said
    assert "layout" not in said.split("error[config-error]:")[1]
    assert not (project / "output" / "bl").exists()


def test_every_toml_example_of_the_printing_doc_loads(tmp_path: Path) -> None:
    examples = doc_tomls()
    assert len(examples) >= 2
    for number, example in enumerate(examples):
        project = write_project(tmp_path / str(number)).joinpath("pnp.toml")
        project.write_text(project.read_text().replace('paper = "a4"\n', "") + "\n" + example)
        load_project(explicit=project)  # a mistake raises ConfigError


def test_each_duplex_mode_and_paper_writes_its_own_files(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    assert pnp(project, "build", "bl.a").returncode == 0
    long_file = project / "output" / "bl" / "bl.a.pdf"
    before = long_file.read_bytes()
    for args, folder in (
        (("--duplex", "fold"), "fold"),
        (("--duplex", "short"), "short"),
        (("--paper", "letter", "--duplex", "fold"), "letter-fold"),
    ):
        done = pnp(project, "build", "bl.a", *args)
        assert done.returncode == 0, done.stderr
        assert f"wrote output/{folder}/bl/bl.a.pdf" in done.stderr
    assert long_file.read_bytes() == before  # the long-edge file is untouched
    with pdfplumber.open(project / "output" / "fold" / "bl" / "bl.a.pdf") as pdf:
        assert len(pdf.pages) == 2  # fold: fronts and backs on one page, 3 a sheet
