"""Sheets draw `{icon}` tokens as the icon's image, as cards do, and label kinds by their schema title.

A small game of its own, written here: an SVG icon (a red square), a PNG icon (a blue square) and
a JPEG icon (green) and an icon with no image (its label on its colour), in a paragraph, a heading, a bullet, a facts row
and table cells; two `"x-card": false` kinds no sheet file covers (one with a schema `title`, one
without) get generic sheets. Built once through the CLI; the PDFs are read back with pdfplumber
(text and word positions) and pypdfium2 (pixels).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pdfplumber
import pypdfium2
import pytest
from PIL import Image

from tests.runpnp import Ran, run

SCALE = 4.0  # pixels per point of the rendered pages
SVG_RED = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" viewBox="0 0 20 20">'
    '<rect x="0" y="0" width="20" height="20" fill="#ff0000"/></svg>'
)
SHEET = """\
document: collection
kinds: [gem.rule]
output: "{game}/aids/rules.pdf"
title: Gem rules
blocks:
  - {type: heading, text: "Heading {ruby} here"}
  - {type: text, text: "Gain 2 {ruby} now. Pay 1 {sapphire} later. Keep {plain} too. Take 3 {emerald} always."}
  - type: bullets
    items: ["{sapphire} Bullet line"]
  - type: facts
    rows:
      - {label: "Cost", value: "Costs {ruby} and {sapphire} each"}
  - type: table
    rows: records
    as: rule
    columns:
      - {header: "Rule", value: "{{ rule.name }}"}
      - {header: "Price {sapphire}", value: "{{ rule.cost }} {ruby} then {sapphire} end"}
  - {type: text, text: "WRAP {{ '{ruby} word ' * 60 }}"}
"""


def write_project(root: Path) -> Path:
    """The game: pnp.toml, icons.json with an SVG, a PNG and a plain icon, three sheet kinds, one sheet file."""
    (root / "schemas").mkdir(parents=True)
    (root / "cards").mkdir()
    (root / "sheets").mkdir()
    (root / "layouts" / "art").mkdir(parents=True)
    (root / "pnp.toml").write_text(
        '[project]\nname = "Icon game"\nrecords = "cards"\nschemas = "schemas"\nlayouts = "layouts"\n'
        'sheets = "sheets"\noutput = "output"\n\n[games.gem]\ntitle = "Gem Game"\nfolder = "gem"\n',
        encoding="utf-8",
    )
    (root / "layouts" / "art" / "ruby.svg").write_text(SVG_RED, encoding="utf-8")
    Image.new("RGB", (16, 16), (0, 0, 255)).save(root / "layouts" / "art" / "sapphire.png")
    Image.new("RGB", (16, 16), (0, 255, 0)).save(root / "layouts" / "art" / "emerald.jpg", quality=95)
    icons = {
        "ruby": {"label": "RUBYLABEL", "color": "#00aa00", "image": "layouts/art/ruby.svg"},
        "sapphire": {"label": "SAPPHIRELABEL", "color": "#00aa00", "image": "layouts/art/sapphire.png"},
        "emerald": {"label": "EMERALDLABEL", "color": "#00aa00", "image": "layouts/art/emerald.jpg"},
        "plain": {"label": "PLAINLABEL", "color": "#00aa00"},
    }
    (root / "layouts" / "icons.json").write_text(json.dumps({"icons": icons}), encoding="utf-8")
    for kind, title in (("gem.rule", "Gem rule"), ("gem.note", "Gem rules note"), ("gem.memo", None)):
        schema: dict[str, object] = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://pnp.invalid/icon-game/{kind}.schema.json",
            "x-card": False,
            "type": "object",
            "properties": {
                "kind": {"const": kind},
                "id": {"type": "string"},
                "name": {"type": "string"},
                "cost": {"type": "integer"},
            },
            "required": ["kind", "id", "name"],
            "additionalProperties": False,
        }
        if title:
            schema["title"] = title
        (root / "schemas" / f"{kind}.schema.json").write_text(json.dumps(schema, indent=1), encoding="utf-8")
    records = [
        {"kind": "gem.rule", "id": "r1", "name": "First rule", "cost": 3},
        {"kind": "gem.note", "id": "n1", "name": "A note", "cost": 1},
        {"kind": "gem.memo", "id": "m1", "name": "A memo", "cost": 2},
    ]
    (root / "cards" / "records.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    (root / "sheets" / "rules.yaml").write_text(SHEET, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ran]:
    project = write_project(tmp_path_factory.mktemp("icons") / "game")
    done = run(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project, done


@pytest.fixture(scope="module")
def rules_pdf(built: tuple[Path, Ran]) -> Path:
    return built[0] / "output" / "gem" / "aids" / "rules.pdf"


@pytest.fixture(scope="module")
def page_words(rules_pdf: Path) -> tuple[list[dict[str, object]], str, float, float]:
    with pdfplumber.open(rules_pdf) as pdf:
        page = pdf.pages[0]
        return page.extract_words(), page.extract_text() or "", float(page.width), float(page.height)


@pytest.fixture(scope="module")
def pixels(rules_pdf: Path) -> Image.Image:
    pdf = pypdfium2.PdfDocument(str(rules_pdf))
    try:
        return pdf[0].render(scale=SCALE).to_pil().convert("RGB")
    finally:
        pdf.close()


def colour_box(
    img: Image.Image, box: tuple[float, float, float, float], colour: str
) -> tuple[int, int, int, int] | None:
    """The pixel bounds of the pure red or blue drawn inside `box` (points, top-left origin), or None."""
    x0, top, x1, bottom = (int(v * SCALE) for v in box)
    region = img.crop((x0, top, x1, bottom))
    want = {
        "red": lambda p: p[0] > 200 and p[1] < 60 and p[2] < 60,
        "blue": lambda p: p[2] > 200 and p[0] < 60 and p[1] < 60,
        "green": lambda p: p[1] > 200 and p[0] < 60 and p[2] < 60,
    }[colour]
    xs: list[int] = []
    ys: list[int] = []
    data = region.load()
    assert data is not None
    for y in range(region.height):
        for x in range(region.width):
            if want(data[x, y]):
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return x0 + min(xs), top + min(ys), x0 + max(xs) + 1, top + max(ys) + 1


def word(words: list[dict[str, object]], text: str, nth: int = 0) -> dict[str, float]:
    found = [w for w in words if w["text"] == text]
    assert len(found) > nth, (text, [w["text"] for w in words][:80])
    return {k: float(v) for k, v in found[nth].items() if k in ("x0", "x1", "top", "bottom")}  # type: ignore[arg-type]


def between(
    img: Image.Image, before: dict[str, float], after: dict[str, float], colour: str
) -> tuple[int, int, int, int]:
    """The icon drawn on the line of `before`, between it and `after`: asserted there, its pixel box."""
    box = colour_box(img, (before["x1"], before["top"] - 4, after["x0"], before["bottom"] + 4), colour)
    assert box is not None, (colour, before, after)
    return box


def test_no_token_and_no_pill_text_where_an_icon_has_an_image(
    page_words: tuple[list[dict[str, object]], str, float, float],
) -> None:
    _words, text, _w, _h = page_words
    assert "{ruby}" not in text and "{sapphire}" not in text
    assert "RUBYLABEL" not in text and "SAPPHIRELABEL" not in text and "EMERALDLABEL" not in text
    assert "ruby" not in text.lower().replace("gem rules", "")
    assert "PLAINLABEL" in text  # an icon without an image keeps its label on its colour


def test_svg_png_and_jpeg_icons_drawn_where_the_token_is_at_the_text_size(
    page_words: tuple[list[dict[str, object]], str, float, float], pixels: Image.Image
) -> None:
    words, _text, _w, _h = page_words
    ruby = between(pixels, word(words, "2"), word(words, "now."), "red")  # body text, 9 pt
    sapphire = between(pixels, word(words, "1"), word(words, "later."), "blue")
    emerald = between(pixels, word(words, "3"), word(words, "always."), "green")  # a JPEG
    for x0, top, x1, bottom in (ruby, sapphire, emerald):  # a 1.2 em square, as cards draw it
        assert abs((bottom - top) / SCALE - 1.2 * 9) < 1.0, (top, bottom)
        assert abs((x1 - x0) / SCALE - 1.2 * 9) < 1.0, (x0, x1)
    heading = between(pixels, word(words, "Heading"), word(words, "here"), "red")  # h2, 11.5 pt
    assert abs((heading[3] - heading[1]) / SCALE - 1.2 * 11.5) < 1.0
    bullet = word(words, "Bullet")
    box = colour_box(pixels, (bullet["x0"] - 16, bullet["top"] - 3, bullet["x0"], bullet["bottom"] + 3), "blue")
    assert box is not None  # the icon starts the bullet's line, after the bullet


def test_icons_in_table_cells_facts_and_headers(
    page_words: tuple[list[dict[str, object]], str, float, float], pixels: Image.Image
) -> None:
    words, _text, _w, _h = page_words
    between(pixels, word(words, "Costs"), word(words, "and"), "red")
    between(pixels, word(words, "and"), word(words, "each"), "blue")
    between(pixels, word(words, "3", 1), word(words, "then"), "red")  # a table cell: the record's cost, then the icon
    between(pixels, word(words, "then"), word(words, "end"), "blue")
    price = word(words, "Price")
    head = colour_box(pixels, (price["x1"], price["top"] - 3, price["x1"] + 14, price["bottom"] + 3), "blue")
    assert head is not None  # the header row's icon


def test_icons_wrap_with_the_words_inside_the_frame(
    page_words: tuple[list[dict[str, object]], str, float, float], pixels: Image.Image
) -> None:
    words, _text, width, _h = page_words
    start = word(words, "WRAP")
    lines = sorted(
        {round(float(w["top"])) for w in words if w["text"] == "word" and float(w["top"]) >= start["top"] - 1}
    )
    assert len(lines) >= 3  # 60 icons and words run over several lines
    frame_right = width - 15 * 72 / 25.4
    for top in lines:
        on_line = colour_box(pixels, (0, top - 3, width, top + 12), "red")
        assert on_line is not None, top  # every line of the paragraph has its icons
        assert on_line[2] / SCALE <= frame_right + 0.5, (on_line, frame_right)  # none past the right margin


def test_same_input_gives_the_same_bytes_in_another_folder(built: tuple[Path, Ran], tmp_path: Path) -> None:
    project, _done = built
    again = tmp_path / "elsewhere"
    shutil.copytree(project, again, ignore=shutil.ignore_patterns("output"))
    assert run(again, "build").returncode == 0
    for name in ("aids/rules.pdf", "sheets/gem.note.pdf"):
        assert (again / "output" / "gem" / name).read_bytes() == (project / "output" / "gem" / name).read_bytes(), name


def test_generic_sheet_labels_its_kind_by_the_schema_title(built: tuple[Path, Ran]) -> None:
    out = built[0] / "output" / "gem" / "sheets"
    with pdfplumber.open(out / "gem.note.pdf") as pdf:
        text = " ".join(" ".join((p.extract_text() or "").split()) for p in pdf.pages)
    assert "Gem rules note" in text and "A note" in text
    assert "gem.note" not in text
    with pdfplumber.open(out / "gem.memo.pdf") as pdf:  # no title: the key is all there is
        text = " ".join(" ".join((p.extract_text() or "").split()) for p in pdf.pages)
    assert "gem.memo" in text


def test_a_section_title_s_markup_is_drawn_not_printed(built: tuple[Path, Ran], tmp_path: Path) -> None:
    """A sheet's and a section's title are card markup like the rest of its text: the heading draws
    the icons and the bold, the page header and the PDF's bookmarks name an icon by its label, and
    the table of contents gives it its pill; no braces or asterisks are printed."""
    from pypdf import PdfReader

    root = tmp_path / "game"
    shutil.copytree(built[0], root, ignore=shutil.ignore_patterns("output"))
    sheet = SHEET.replace("title: Gem rules", 'title: "Gem {ruby} *rules* {plain}"').replace(
        "blocks:\n",
        'blocks:\n  - {type: toc}\n  - type: section\n    title: "Part {sapphire} *two*"\n    toc: true\n'
        '    blocks:\n      - {type: text, text: "Inside the part."}\n',
        1,
    )
    (root / "sheets" / "rules.yaml").write_text(sheet, encoding="utf-8")
    done = run(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    pdf = root / "output" / "gem" / "aids" / "rules.pdf"
    with pdfplumber.open(pdf) as opened:
        text = "\n".join(page.extract_text() or "" for page in opened.pages)
    for raw in ("{ruby}", "{sapphire}", "{plain}", "*rules*", "*two*"):
        assert raw not in text, raw
    assert "Gem RUBYLABEL rules PLAINLABEL" in text  # the first page's header
    assert "Part SAPPHIRELABEL two" in text  # the section's pages' header
    reader = PdfReader(pdf)
    titles = [entry.title for entry in reader.outline if not isinstance(entry, list)]
    assert "Part SAPPHIRELABEL two" in titles, titles
