"""Static layers drawn once (form XObjects), text as one text object per paragraph: same pixels as before.

The reference PNGs in tests/render_reference/ were rasterised (tests/rasterise.py, pdfium, 50 dpi)
from tests/build_project's PDFs as built by main before issue 16, when every element of every
card was drawn in page coordinates and every line of text with its own drawString; but for
test.card-4.png (the backs of the sheet that is not full), rasterised again after issue 27, whose
backs now carry their bleed below the empty row where the old page stopped on the crop line; and
the sheet's label in the bottom margin of each, pasted from a new rendering when labels came to
name a kind by its schema title ("Test card: ... 1/2, fronts", no longer "test.card 1/2, fronts").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from tests.rasterise import difference, pages
from tests.runpnp import run

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
REFERENCE = ROOT / "tests" / "render_reference"
KINDS = ("test.card", "test.spell")


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("static") / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    done = run(target, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return target / "output" / "test"


@pytest.mark.parametrize("kind", KINDS)
def test_pages_look_as_before(output: Path, kind: str) -> None:
    drawn = pages(output / f"{kind}.pdf")
    references = sorted(REFERENCE.glob(f"{kind}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    assert len(drawn) == len(references) > 0
    for number, (image, reference) in enumerate(zip(drawn, references, strict=True), 1):
        mean, share = difference(image, Image.open(reference).convert("RGB"))
        assert mean < 0.5 and share < 0.001, f"{kind} page {number}: mean diff {mean:.3f}, {share:.2%} pixels differ"


def _forms(pdf: pikepdf.Pdf) -> dict[str, pikepdf.Stream]:
    return {
        str(name): xobject
        for page in pdf.pages
        for name, xobject in page.Resources.get("/XObject", {}).items()
        if xobject.get("/Subtype") == "/Form"
    }


def _text_blocks(page: pikepdf.Page) -> list[list[tuple[str, list[object]]]]:
    """Each BT ... ET block of a page's content stream as its (operator, operands) list."""
    blocks: list[list[tuple[str, list[object]]]] = []
    current: list[tuple[str, list[object]]] | None = None
    for operands, operator in pikepdf.parse_content_stream(page):
        name = str(operator)
        if name == "BT":
            current = []
        elif name == "ET" and current is not None:
            blocks.append(current)
            current = None
        elif current is not None:
            text = "".join(bytes(o).decode("latin-1") for o in operands if isinstance(o, pikepdf.String))
            current.append((name, [text] if text else list(operands)))
    return blocks


def test_static_elements_are_drawn_once_per_pdf(output: Path) -> None:
    with pikepdf.open(output / "test.card.pdf") as pdf:
        forms = _forms(pdf)
        # fronts: the background; the cost's box and label (its value is the record's); the fixed
        # label with the hexagon (painted after the art, which it nearly touches); backs: the background
        assert len(forms) == 4, sorted(forms)
        front = pdf.pages[0].Contents.read_bytes()
        for name in forms:
            placed = front.count(f"{name} Do".encode())
            assert placed in (0, 9), (name, placed)  # once per card of the sheet, or a back form
        for fixed in (b"Swarm", b"COST"):  # fixed labels live in a form only
            assert fixed not in front
            assert sum(fixed in form.read_bytes() for form in forms.values()) == 1


def test_paragraph_is_one_text_object_with_relative_moves(output: Path) -> None:
    with pikepdf.open(output / "test.card.pdf") as pdf:
        blocks = _text_blocks(pdf.pages[0])
    shown = ["".join(str(t) for op, ops in block if op in ("Tj", "TJ") for t in ops) for block in blocks]
    rules = [i for i, text in enumerate(shown) if "Ongoing" in text]
    assert rules, shown
    for i in rules:  # the lines of a rules text: one object, placed once, later lines moved
        ops = [op for op, _ in blocks[i]]
        assert "Tm" not in ops and ops.count("Td") >= 3, ops  # placed by one Td, each later line by another
        assert "Deal 1" in shown[i] and "round" in shown[i]
    for block in blocks:
        fonts = [ops[0] for op, ops in block if op == "Tf"]
        assert all(a != b for a, b in zip(fonts, fonts[1:], strict=False)), fonts  # set only when it changes


def test_cards_are_drawn_in_card_coordinates(output: Path) -> None:
    with pikepdf.open(output / "test.card.pdf") as pdf:
        operations = pikepdf.parse_content_stream(pdf.pages[0])
    moves = [ops for ops, op in operations if str(op) == "cm" and [float(v) for v in ops[:4]] == [1, 0, 0, 1]]
    assert len([m for m in moves if float(m[4]) or float(m[5])]) == 9  # one translation per card


def test_a_static_back_is_one_form_placed_per_card(tmp_path: Path) -> None:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    base = target / "layouts" / "test-base.json"
    base.write_text(base.read_text(encoding="utf-8").replace('"text": "{{ id }}"', '"text": "Test game"'))
    done = run(target, "build", "test.card")
    assert done.returncode == 0, done.stdout + done.stderr
    with pikepdf.open(target / "output" / "test" / "test.card.pdf") as pdf:
        back = pdf.pages[1]  # long-edge duplex: fronts, then their backs
        operators = [str(op) for _, op in pikepdf.parse_content_stream(back)]
        forms = [name for name, x in back.Resources.XObject.items() if x.get("/Subtype") == "/Form"]
        # per card: a face marker (for packing), a translation, the clip, the form; then the crop
        # marks and the sheet's registration label in the margin: no fill, no text of a card
        per_card = {"q", "Q", "cm", "re", "W*", "n", "Do", "RG", "w", "m", "l", "S", "BMC", "EMC"}
        label = {"BT", "ET", "Tf", "Td", "Tj", "TL", "rg", "Tm", "TJ", "T*", "Tz", "Tc", "Tw", "g"}
        assert set(operators) <= per_card | label, set(operators)
        assert operators.count("Do") == 9
        placed = {str(ops[0]) for ops, op in pikepdf.parse_content_stream(back) if str(op) == "Do"}
        assert len(placed) == 1 and placed <= {str(f) for f in forms}
        assert b"Test game" not in back.Contents.read_bytes()
