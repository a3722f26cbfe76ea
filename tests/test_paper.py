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
    with pdfplumber.open(own) as pdf:  # 4.7 mm below the ink: the sheet's label goes to the left margin, turned
        label = [c for c in pdf.pages[0].chars if c["x0"] < 10 * PT]
        bottom = [c for c in pdf.pages[0].chars if c["bottom"] > pdf.pages[0].height - 4.7 * PT]
    assert "".join(c["text"] for c in label) == "bl.b 1/1, fronts" and not bottom


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
    # the read-me and its blank back (portrait, as named), then each kind's sheets in its own turn
    assert page_size(combined, 0) == page_size(combined, 2) == (210, 297) and page_size(combined, 4) == (297, 210)
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
    checked = pnp(project, "check")  # pnp check says what pnp build would
    assert checked.returncode == 2 and f"pnp.toml:{line}:1: error[config-error]: " in checked.stdout + checked.stderr


def test_every_toml_example_of_the_printing_doc_loads(tmp_path: Path) -> None:
    examples = doc_tomls()
    assert len(examples) >= 2
    for number, example in enumerate(examples):
        project = write_project(tmp_path / str(number)).joinpath("pnp.toml")
        project.write_text('[project]\nname = "doc"\n\n' + example)  # the example's tables only
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


def mixed_project(root: Path, toml_extra: str = "") -> Path:
    """The bleed game with 4 poker cards (bl.a), 5 tokens of 25 mm (bl.b) and 3 of 38 mm (bl.c)."""
    project = write_project(root, toml_extra)
    cards = project / "cards"
    (cards / "a.json").write_text(json.dumps(json.loads((cards / "a.json").read_text())[:4]))
    (cards / "b.json").write_text(json.dumps(json.loads((cards / "b.json").read_text())[:5]))
    schema = (project / "schemas" / "bl.b.schema.json").read_text().replace("bl.b", "bl.c")
    (project / "schemas" / "bl.c.schema.json").write_text(schema)
    (cards / "c.json").write_text(json.dumps([{"kind": "bl.c", "id": f"c-{n}", "tone": "red"} for n in range(3)]))
    for name, side in (("b", 25), ("c", 38)):
        layout = {"extends": "bl-base", "kinds": [f"bl.{name}"], "size": {"width": side, "height": side}}
        layout["front"] = {"elements": [{"name": "id", "type": "text", "x": 3, "y": 8, "w": side - 6, "h": 6, "text": "{{ id }}", "size": 7, "color": "#ffffff"}]}  # fmt: skip
        (project / "layouts" / f"bl-{name}.json").write_text(json.dumps(layout))
    return project


@pytest.mark.parametrize(("mix", "sheets"), [(False, "3 sheets"), (True, "2 sheets")])
def test_cards_and_tokens_of_several_sizes_share_sheets_when_asked(tmp_path: Path, mix: bool, sheets: str) -> None:
    """One size per sheet takes 3 sheets (each kind's own file); tokens of both sizes share one by
    default (2 in all); with mix-sizes the cards and both token sizes fit on 1. The combined file's
    count adds the read-me's sheet (its page and blank back)."""
    project = mixed_project(tmp_path / "project", "\n[paper]\nmix-sizes = true\n" if mix else "")
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    for kind in ("bl.a", "bl.b", "bl.c"):
        assert f"wrote output/bl/{kind}.pdf (1 sheet)" in done.stderr
    assert f"wrote output/bl.pdf ({sheets})" in done.stderr
    if mix:
        on_sheet = faces_on(project / "output" / "bl.pdf", 2)  # after the read-me and its blank back
        assert set(on_sheet) == {f"a-{n}" for n in range(4)} | {f"b-{n}" for n in range(5)}
        with pdfplumber.open(project / "output" / "bl.pdf") as pdf:
            words = {w["text"] for w in pdf.pages[2].extract_words()}
        assert {"c-0", "c-1", "c-2"} <= words


@pytest.fixture(scope="module")
def read_me(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bleed game with docs/printing.md's not-included list, built (long-edge duplex) and in fold."""
    project = write_project(tmp_path_factory.mktemp("readme") / "project")
    toml = project / "pnp.toml"
    example = next(text for text in doc_tomls() if "not-included" in text)
    missing = example.split("not-included = ", 1)[1].split("\n", 1)[0]
    toml.write_text(toml.read_text().replace('folder = "bl"', f'folder = "bl"\nnot-included = {missing}'))
    for args in ((), ("--duplex", "fold")):
        done = pnp(project, "build", *args)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "read-me-first.pdf" in done.stderr
    return project


def page_text(pdf: Path, page: int) -> str:
    with pdfplumber.open(pdf) as document:
        return " ".join((document.pages[page].extract_text() or "").split())


def test_the_read_me_page_says_what_to_print_and_how(read_me: Path) -> None:
    own = read_me / "output" / "bl" / "read-me-first.pdf"
    with pdfplumber.open(own) as pdf:
        assert len(pdf.pages) == 1
    text = page_text(own, 0)
    for words in (
        "Bleed",
        "All of them, in one file: bl.pdf: this page first, then the 2 files below packed together, "
        "3 sheets of paper",  # the read-me's sheet (the page and its blank back) and 2 of cards
        "bl/bl.a.pdf: bl.a, 5 faces, 1 sheet of paper",
        "bl/bl.b.pdf: bl.b, 9 faces, 1 sheet of paper",
        "Paper: a4 (210.0 x 297.0 mm); margins 4 mm",
        "Scale: 100 % (actual size)",
        "a face of bl/bl.a.pdf measures 63 x 88 mm between its crop marks",
        "flipping on the long edge",
        "Butted faces share their cut lines",
        "Not included in this kit",
        "six dice",
    ):
        assert words in text, (words, text)


def test_the_read_me_comes_first_in_the_combined_file(read_me: Path) -> None:
    combined = read_me / "output" / "bl.pdf"
    with pdfplumber.open(combined) as pdf:
        assert len(pdf.pages) == 2 + 4  # the read-me and a blank back, then 2 sheets of fronts and backs
        assert (pdf.pages[1].extract_text() or "").strip().startswith("This side is left blank on purpose")
    assert "Read me first" in page_text(combined, 0) and "a-0" in page_text(combined, 2)
    folded = read_me / "output" / "fold" / "bl.pdf"
    assert "fold the sheet along the dashed line, glue" in page_text(folded, 0)
    assert "a-0" in page_text(folded, 1)  # fold prints single-sided: no blank page after the read-me


def test_a_paper_that_cannot_hold_a_face_is_reported_in_the_format_asked(tmp_path: Path) -> None:
    """Found after loading (the faces are measured against the paper), the configuration problem
    is still printed as the command's --format says: CI reading JSON or GitHub annotations gets it."""
    project = write_project(tmp_path / "project", "\n[paper]\ncolumns = 4\n")
    line = (project / "pnp.toml").read_text().splitlines().index("columns = 4") + 1
    for command in ("check", "build"):
        done = pnp(project, command, "--format", "json")
        assert done.returncode == 2, done.stdout + done.stderr
        (problem,) = json.loads(done.stdout)["problems"]
        assert (problem["file"], problem["line"], problem["code"]) == ("pnp.toml", line, "config-error"), problem
    github = pnp(project, "check", "--format", "github")
    assert github.returncode == 2 and github.stdout.startswith(f"::error file=pnp.toml,line={line},"), github.stdout
    plain = pnp(project, "check")  # the next command without --format: text again
    assert plain.stdout.startswith(f"pnp.toml:{line}:1: error[config-error]: "), plain.stdout
