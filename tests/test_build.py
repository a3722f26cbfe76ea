"""pnp build on a small real project (tests/build_project): the PDFs themselves are inspected."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pdfplumber
import pikepdf
import pytest
from pypdf import PdfReader

from tests.runpnp import process
from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
MM = 72 / 25.4  # points in a millimetre
TOLERANCE = 0.1 * MM
A4 = (595.28, 841.89)  # 210 x 297 mm in points
# The 3 x 3 poker cards (63 x 88 mm) on A4, worked out by hand: the block of 189 x 264 mm is
# centred, so the trims run from x = 10.5 mm and y = 16.5 mm (PDF coordinates, from the bottom).
# Each slot: (left, bottom) of the trim in mm, in the order the cards are placed (rows from the top).
COLUMNS_MM = (10.5, 73.5, 136.5)
ROWS_MM = (192.5, 104.5, 16.5)
SLOTS_MM = [(x, y) for y in ROWS_MM for x in COLUMNS_MM]
TRIM_XS_MM = (10.5, 73.5, 136.5, 199.5)
TRIM_YS_MM = (16.5, 104.5, 192.5, 280.5)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture()
def built(project: Path) -> Path:
    """A clean build of a copy of its own, for a test that changes the project or its outputs."""
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clean build for the tests that only read its PDFs."""
    target = tmp_path_factory.mktemp("shared") / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    done = pnp(target, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def card_pdf(project: Path, duplex: str = "long") -> Path:
    """The card file; a duplex mode other than pnp.toml's (long) builds into output/<duplex>/."""
    return project / "output" / ("" if duplex == "long" else duplex) / "test" / "test.card.pdf"


@pytest.mark.parametrize(
    ("paper", "width", "height"),
    [("a4", 595.28, 841.89), ("letter", 612, 792), ("200x250mm", 566.93, 708.66)],  # points
)
def test_page_size(project: Path, paper: str, width: float, height: float) -> None:
    done = pnp(project, "build", "--paper", paper)
    assert done.returncode == 0, done.stderr
    # the project's own paper (a4) builds into output/; another paper into output/<paper>/
    built = card_pdf(project) if paper == "a4" else project / "output" / paper / "test" / "test.card.pdf"
    for page in PdfReader(built).pages:
        assert float(page.mediabox.width) == pytest.approx(width, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(height, abs=0.01)


def test_a4_and_letter_builds_live_side_by_side(built: Path) -> None:
    a4 = card_pdf(built).read_bytes()
    done = pnp(built, "build", "--paper", "letter")
    assert done.returncode == 0 and "wrote output/letter/test/test.card.pdf" in done.stderr
    assert card_pdf(built).read_bytes() == a4
    assert float(PdfReader(built / "output" / "letter" / "test.pdf").pages[0].mediabox.width) == 612  # 8.5 in


def _trim_lines(page: pdfplumber.page.Page) -> tuple[list[float], list[float]]:
    """x positions of vertical crop marks and y positions (PDF coordinates) of horizontal ones."""
    xs = sorted({round(line["x0"], 3) for line in page.lines if abs(line["x0"] - line["x1"]) < 0.01})
    ys = sorted(
        {round(page.height - line["top"], 3) for line in page.lines if abs(line["top"] - line["bottom"]) < 0.01}
    )
    return xs, ys


def test_crop_marks_frame_every_card_where_the_imposition_says(shared: Path) -> None:
    with pdfplumber.open(card_pdf(shared)) as pdf:
        page = pdf.pages[0]
        assert (float(page.width), float(page.height)) == pytest.approx(A4, abs=0.01)
        xs, ys = _trim_lines(page)
        horizontal = [line for line in page.lines if abs(line["top"] - line["bottom"]) < 0.01]
    # a mark on every trim line of the 3 x 3 cards, and on no other line
    assert [round(x / MM, 1) for x in xs] == list(TRIM_XS_MM)
    assert [round(y / MM, 1) for y in ys] == list(TRIM_YS_MM)
    # the marks stay outside the block of cards and its 3 mm bleed: left of 7.5 mm, right of 202.5 mm
    assert horizontal
    for line in horizontal:
        assert line["x1"] <= 7.5 * MM + 0.01 or line["x0"] >= 202.5 * MM - 0.01, line


def _word_centres(page: pdfplumber.page.Page, pattern: str) -> dict[str, list[tuple[float, float]]]:
    found: dict[str, list[tuple[float, float]]] = {}
    for w in page.extract_words():
        if w["text"].startswith(pattern):
            found.setdefault(w["text"], []).append(
                ((w["x0"] + w["x1"]) / 2, page.height - (w["top"] + w["bottom"]) / 2)
            )
    return found


def _front_titles(page: pdfplumber.page.Page) -> dict[str, list[tuple[float, float]]]:
    """'card-NN' -> where each front title "Card NN" starts (left x, top y; mm, PDF coordinates)."""
    words = page.extract_words()
    found: dict[str, list[tuple[float, float]]] = {}
    for first, second in zip(words, words[1:], strict=False):
        if first["text"] == "Card" and second["top"] == first["top"]:
            found.setdefault(f"card-{second['text']}", []).append((first["x0"] / MM, (page.height - first["top"]) / MM))
    return found


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_backs_line_up_with_fronts(project: Path, duplex: str) -> None:
    assert pnp(project, "build", "--duplex", duplex).returncode == 0
    records = json.loads((project / "cards" / "cards.json").read_text())
    faces = [r["id"] for r in records for _ in range(r.get("copies", 1))]
    with pdfplumber.open(card_pdf(project, duplex)) as pdf:
        titles = _front_titles(pdf.pages[0])
        backs = pdf.pages[1]
        centres = _word_centres(backs, "card-")
    assert sum(len(v) for v in centres.values()) == 9
    for (left, bottom), card_id in zip(SLOTS_MM, faces[:9], strict=True):
        # the front is at its slot: its title starts 5 mm right of the trim, between its top and bottom
        assert any(abs(x - (left + 5)) < 0.1 and bottom < y < bottom + 88 for x, y in titles[card_id]), card_id
        # the back of the card printed at a slot on the front must be at the mirrored slot;
        # the back text is centred 44 mm below the card's top edge (its top is 88 mm above the bottom)
        if duplex == "long":  # turned over the long edge: x mirrored about the middle of the 210 mm page
            expected = ((210 - (left + 31.5)) * MM, (bottom + 88 - 44) * MM)
        else:  # turned over the short edge: y mirrored about the middle of the 297 mm page
            expected = ((left + 31.5) * MM, (297 - (bottom + 88) + 44) * MM)
        assert any(
            abs(x - expected[0]) < TOLERANCE and abs(y - expected[1]) < 1.0  # baseline within a point of centre
            for x, y in centres[card_id]
        ), (card_id, centres[card_id], expected)


def test_fronts_only_has_no_back_pages(project: Path) -> None:
    assert pnp(project, "build", "--duplex", "none").returncode == 0
    assert len(PdfReader(card_pdf(project, "none")).pages) == 2  # 12 faces, 9 per sheet, no backs


def test_every_font_is_embedded(shared: Path) -> None:
    for path in sorted((shared / "output").rglob("*.pdf")):
        with pikepdf.open(path) as pdf:
            fonts = 0
            for page in pdf.pages:
                for font in (page.Resources.get("/Font") or {}).values():
                    fonts += 1
                    descendants = font.get("/DescendantFonts")
                    descriptor = (descendants[0] if descendants else font).get("/FontDescriptor")
                    assert descriptor is not None, f"{path}: font {font.get('/BaseFont')} is not embedded"
                    assert any(k in descriptor for k in ("/FontFile2", "/FontFile3", "/FontFile")), path
                    assert "Helvetica" not in str(font.get("/BaseFont")), path
            assert fonts > 0, path


def test_card_text_is_extractable(shared: Path) -> None:
    with pdfplumber.open(card_pdf(shared)) as pdf:
        text = pdf.pages[0].extract_text()
    assert "Card 00" in text and "Card 08" not in text.replace("Card 07", "")  # page 1 holds cards 00-07
    assert "Ongoing:" in text and "Deal 1" in text


def test_rotated_edge_label_is_present(shared: Path) -> None:
    with pdfplumber.open(card_pdf(shared)) as pdf:
        chars = [c for c in pdf.pages[0].chars if not c["upright"]]
    assert "Swarm" in "".join(c["text"] for c in chars)


def test_two_builds_are_byte_identical(project: Path, tmp_path: Path) -> None:
    """One build in this process, one in a real process of its own (another hash seed: no set order leaks)."""
    other = tmp_path / "again"
    shutil.copytree(project, other)
    assert pnp(project, "build").returncode == 0
    assert process(other, "build").returncode == 0
    for path in sorted((project / "output").rglob("*.pdf")):
        twin = other / path.relative_to(project)
        assert path.read_bytes() == twin.read_bytes(), path


def test_second_build_with_no_change_rewrites_nothing(built: Path) -> None:
    outputs = sorted((built / "output").rglob("*.pdf"))
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in outputs}
    done = pnp(built, "build")
    assert done.returncode == 0
    assert "0 written" in done.stderr
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in outputs} == before
    # touching a record's content rebuilds that kind (and the combined file) only
    cards = built / "cards" / "spells.json"
    cards.write_text(cards.read_text().replace("Spell 1", "Spell One"))
    done = pnp(built, "build")
    assert "wrote output/test/test.spell.pdf" in done.stderr
    assert "test.card.pdf" not in done.stderr


def test_failed_build_leaves_previous_pdf_intact(built: Path) -> None:
    pdf = card_pdf(built)
    before = pdf.read_bytes()
    records = built / "cards" / "cards.json"
    records.write_text(records.read_text().replace('"element": "fire"', '"element": "fyre"', 1))
    done = pnp(built, "build")
    assert done.returncode == 1
    assert "enum-mismatch" in done.stdout and "cards/cards.json:" in done.stdout
    assert pdf.read_bytes() == before
    assert not list(pdf.parent.glob(".*.tmp"))


def test_text_that_does_not_fit_fails_the_build_naming_the_record(built: Path) -> None:
    pdf = card_pdf(built)
    before = pdf.read_bytes()
    records = built / "cards" / "cards.json"
    data = json.loads(records.read_text())
    data[2]["text"] = "A very long rules text. " * 60
    records.write_text(json.dumps(data, indent=2))
    done = pnp(built, "build")
    assert done.returncode == 1
    assert "text-overflow" in done.stdout and "'card-02'" in done.stdout and "rules" in done.stdout
    assert pdf.read_bytes() == before
    check = pnp(built, "check", "--render")
    assert check.returncode == 1 and "text-overflow" in check.stdout
    assert pnp(built, "check", "--no-render").returncode == 0  # nothing is drawn


def test_round_tokens_pack_with_their_own_grid(shared: Path) -> None:
    reader = PdfReader(shared / "output" / "test" / "test.spell.pdf")
    assert len(reader.pages) == 1  # back is null: no back page even in duplex
    with pdfplumber.open(shared / "output" / "test" / "test.spell.pdf") as pdf:
        text = pdf.pages[0].extract_text()
    assert all(f"Spell {i}" in text for i in range(1, 6)) and "IV" in text


def test_combined_file_holds_every_kind(shared: Path) -> None:
    combined = PdfReader(shared / "output" / "test.pdf")
    cards = PdfReader(shared / "output" / "test" / "test.card.pdf")
    tokens = PdfReader(shared / "output" / "test" / "test.spell.pdf")
    # the tokens have no back: in duplex each of their sheets gets a blank back (tests/test_diagnostics.py)
    assert len(combined.pages) == len(cards.pages) + 2 * len(tokens.pages)


def test_yaml_layout_renders_like_its_json_twin(built: Path) -> None:
    import yaml

    json_pdf = (built / "output" / "test" / "test.spell.pdf").read_bytes()
    layout = built / "layouts" / "test-spell.json"
    (built / "layouts" / "test-spell.yaml").write_text(yaml.safe_dump(json.loads(layout.read_text())))
    layout.unlink()
    done = pnp(built, "build", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (built / "output" / "test" / "test.spell.pdf").read_bytes() == json_pdf


def test_a_whole_build_removes_the_outputs_it_no_longer_makes(built: Path) -> None:
    """A kind taken off the cut sheets leaves no old file that looks current; files pnp did not
    make, another paper's build and a partial build's untouched outputs stay."""
    output = built / "output"
    mine = output / "test" / "my-notes.pdf"
    mine.write_bytes(b"the user's own file")
    letter = pnp(built, "build", "--paper", "letter")
    assert letter.returncode == 0, letter.stdout + letter.stderr
    letter_files = sorted((output / "letter").rglob("*.pdf"))
    assert letter_files
    card = card_pdf(built)
    card_before = (card.stat().st_mtime_ns, card.stat().st_ino)
    (built / "layouts" / "test-spell.json").unlink()  # the spells are no longer printed
    partial = pnp(built, "build", "test.card")
    assert partial.returncode == 0, partial.stdout + partial.stderr
    assert (output / "test" / "test.spell.pdf").is_file()  # a build of some kinds removes nothing
    done = pnp(built, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "removed output/test/test.spell.pdf (no longer made)" in done.stderr
    assert not (output / "test" / "test.spell.pdf").exists()
    assert (card.stat().st_mtime_ns, card.stat().st_ino) == card_before
    assert mine.read_bytes() == b"the user's own file"
    assert sorted((output / "letter").rglob("*.pdf")) == letter_files
    again = pnp(built, "build")
    assert "removed" not in again.stderr and "0 written" in again.stderr
    # a renamed game: its old folder's files go, and the folder with them once empty
    toml = built / "pnp.toml"
    toml.write_text(toml.read_text().replace('folder = "test"', 'folder = "renamed"'))
    mine.unlink()
    renamed = pnp(built, "build")
    assert renamed.returncode == 0, renamed.stdout + renamed.stderr
    assert "removed output/test/test.card.pdf (no longer made)" in renamed.stderr
    assert not (output / "test").exists() and (output / "renamed" / "test.card.pdf").is_file()
