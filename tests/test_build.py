"""pnp build on a small real project (tests/build_project): the PDFs themselves are inspected."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pdfplumber
import pikepdf
import pytest
from pypdf import PdfReader

from pnp.drawing.impose import MM, SheetSpec, grid, parse_paper

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
POKER = (63 * MM, 88 * MM)
TOLERANCE = 0.1 * MM


def pnp(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture()
def built(project: Path) -> Path:
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def card_pdf(project: Path) -> Path:
    return project / "output" / "test" / "test.card.pdf"


@pytest.mark.parametrize("paper", ["a4", "letter", "200x250mm"])
def test_page_size(project: Path, paper: str) -> None:
    done = pnp(project, "build", "--paper", paper)
    assert done.returncode == 0, done.stderr
    width, height = parse_paper(paper)
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
    assert float(PdfReader(built / "output" / "letter" / "test.pdf").pages[0].mediabox.width) == 612


def _trim_lines(page: pdfplumber.page.Page) -> tuple[list[float], list[float]]:
    """x positions of vertical crop marks and y positions (PDF coordinates) of horizontal ones."""
    xs = sorted({round(line["x0"], 3) for line in page.lines if abs(line["x0"] - line["x1"]) < 0.01})
    ys = sorted(
        {round(page.height - line["top"], 3) for line in page.lines if abs(line["top"] - line["bottom"]) < 0.01}
    )
    return xs, ys


def test_crop_marks_frame_every_card_where_the_imposition_says(built: Path) -> None:
    width, height = parse_paper("a4")
    layout_grid = grid(*POKER, SheetSpec(width, height))
    assert layout_grid.per_sheet == 9  # 3 x 3 poker cards on A4
    with pdfplumber.open(card_pdf(built)) as pdf:
        xs, ys = _trim_lines(pdf.pages[0])
    for box in layout_grid.fronts:
        for x in (box.x, box.x + box.width):
            assert min(abs(x - found) for found in xs) < TOLERANCE
        for y in (box.y, box.y + box.height):
            assert min(abs(y - found) for found in ys) < TOLERANCE
    # the marks stay outside the block of cards
    block_left = min(b.x for b in layout_grid.fronts)
    with pdfplumber.open(card_pdf(built)) as pdf:
        for line in pdf.pages[0].lines:
            if abs(line["top"] - line["bottom"]) < 0.01:  # horizontal mark
                assert line["x1"] <= block_left - 3 * MM + 0.01 or line["x0"] >= width - block_left + 3 * MM - 0.01


def _word_centres(page: pdfplumber.page.Page, pattern: str) -> dict[str, list[tuple[float, float]]]:
    found: dict[str, list[tuple[float, float]]] = {}
    for w in page.extract_words():
        if w["text"].startswith(pattern):
            found.setdefault(w["text"], []).append(
                ((w["x0"] + w["x1"]) / 2, page.height - (w["top"] + w["bottom"]) / 2)
            )
    return found


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_backs_line_up_with_fronts(project: Path, duplex: str) -> None:
    assert pnp(project, "build", "--duplex", duplex).returncode == 0
    width, height = parse_paper("a4")
    layout_grid = grid(*POKER, SheetSpec(width, height, duplex=duplex))  # type: ignore[arg-type]
    records = json.loads((project / "cards" / "cards.json").read_text())
    faces = [r["id"] for r in records for _ in range(r.get("copies", 1))]
    with pdfplumber.open(card_pdf(project)) as pdf:
        backs = pdf.pages[1]
        centres = _word_centres(backs, "card-")
    assert sum(len(v) for v in centres.values()) == 9
    for slot, card_id in zip(layout_grid.fronts, faces[:9], strict=True):
        # the back of the card printed at `slot` on the front must be at the mirrored slot;
        # the back text is centred 44 mm below the card's top edge
        if duplex == "long":
            expected = (width - (slot.x + slot.width / 2), slot.y + slot.height - 44 * MM)
        else:
            expected = (slot.x + slot.width / 2, height - (slot.y + slot.height) + 44 * MM)
        assert any(
            abs(x - expected[0]) < TOLERANCE and abs(y - expected[1]) < 1.0  # baseline within a point of centre
            for x, y in centres[card_id]
        ), (card_id, centres[card_id], expected)


def test_fronts_only_has_no_back_pages(project: Path) -> None:
    assert pnp(project, "build", "--duplex", "none").returncode == 0
    assert len(PdfReader(card_pdf(project)).pages) == 2  # 12 faces, 9 per sheet, no backs


def test_every_font_is_embedded(built: Path) -> None:
    for path in sorted((built / "output").rglob("*.pdf")):
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


def test_card_text_is_extractable(built: Path) -> None:
    with pdfplumber.open(card_pdf(built)) as pdf:
        text = pdf.pages[0].extract_text()
    assert "Card 00" in text and "Card 08" not in text.replace("Card 07", "")  # page 1 holds cards 00-07
    assert "Ongoing:" in text and "Deal 1" in text


def test_rotated_edge_label_is_present(built: Path) -> None:
    with pdfplumber.open(card_pdf(built)) as pdf:
        chars = [c for c in pdf.pages[0].chars if not c["upright"]]
    assert "Swarm" in "".join(c["text"] for c in chars)


def test_two_builds_are_byte_identical(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "again"
    shutil.copytree(project, other)
    assert pnp(project, "build").returncode == 0
    assert pnp(other, "build").returncode == 0
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


def test_round_tokens_pack_with_their_own_grid(built: Path) -> None:
    reader = PdfReader(built / "output" / "test" / "test.spell.pdf")
    assert len(reader.pages) == 1  # back is null: no back page even in duplex
    with pdfplumber.open(built / "output" / "test" / "test.spell.pdf") as pdf:
        text = pdf.pages[0].extract_text()
    assert all(f"Spell {i}" in text for i in range(1, 6)) and "IV" in text


def test_combined_file_holds_every_kind(built: Path) -> None:
    combined = PdfReader(built / "output" / "test.pdf")
    cards = PdfReader(built / "output" / "test" / "test.card.pdf")
    tokens = PdfReader(built / "output" / "test" / "test.spell.pdf")
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
