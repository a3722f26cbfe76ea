#!/usr/bin/env python3
"""The baseline of bench/build_bench.py: the benchmark cards drawn by a plain reportlab script.

    python bench/raw_reportlab.py PROJECT_DIR OUT.pdf

This is the script a user might write by hand instead of using pnp: no pnp code, no layout
files, no templates, no checks. It reads the same JSON record files (`PROJECT_DIR/cards/*.json`,
sorted, records in file order), registers the same DejaVu TrueType fonts (from pnp/fonts/) and
draws the same elements at the same places as the benchmark layout that build_bench.py writes
from the constants below: on A4, a centred 3 x 3 grid of 63 x 88 mm poker cards with 3 mm bleed
on the outer edges, crop marks, and after each sheet of fronts a sheet of backs mirrored for
long-edge duplex. Each front: background, a title, one image (passed as a file path, so
reportlab stores it once per PDF; the card's own `art` file where the record names one, as in
build_bench.py's `art` deck), four stat boxes (rounded rectangle, small label, large bold
value) and a rules text wrapped with simpleSplit and shrunk by 0.5 pt steps until it fits.
Output is deterministic (invariant=1) and page-compressed, as pnp's is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from reportlab.lib.colors import HexColor, black
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

FONT_DIR = Path(__file__).resolve().parents[1] / "pnp" / "fonts"
REGULAR, BOLD = "DejaVuSans", "DejaVuSans-Bold"

MM = 72 / 25.4
PAGE_W, PAGE_H = 210 * MM, 297 * MM  # A4
# Card geometry in mm, from the trim's top-left corner, y downwards (as in a pnp layout).
CARD_W, CARD_H, BLEED = 63.0, 88.0, 3.0
MARGIN, CROP_LENGTH, CROP_OFFSET, CROP_WIDTH = 5.0, 4.0, 1.0, 0.3
LEADING = 1.18
FRONT_BACKGROUND, BACK_BACKGROUND, INK = "#f4ecd8", "#2c3e50", "#111111"
TITLE = {"x": 4.0, "y": 4.0, "w": 55.0, "h": 8.0, "size": 12.0}
ART = {"x": 4.0, "y": 13.0, "w": 55.0, "h": 34.0}
ART_SRC = "art/card.png"  # relative to the project
STAT_Y, STAT_W, STAT_H, STAT_SIZE = 49.5, 12.5, 12.0, 14.0
STAT_FILL, STAT_STROKE, STAT_STROKE_WIDTH = "#ffffff", "#333333", 0.75
STATS = (("ATK", "attack", 4.0), ("DEF", "defense", 18.1667), ("HP", "health", 32.3333), ("SPD", "speed", 46.5))
RULES = {"x": 4.0, "y": 63.0, "w": 55.0, "h": 21.0, "size": 8.0, "min_size": 6.0}
BACK_FRAME = {"x": 4.0, "y": 4.0, "w": 55.0, "h": 80.0, "radius": 3.0, "stroke_width": 1.5}
BACK_TEXT = {"x": 4.0, "y": 38.0, "w": 55.0, "h": 12.0, "size": 16.0}
BACK_INK, BACK_WORD = "#f4ecd8", "BENCHMARK"


Box = tuple[float, float, float, float]


def frame(card_x: float, card_y: float, spec: dict[str, float], y: float | None = None) -> Box:
    """An element's box in page points (lower-left x, y, width, height), the card's trim at card_x, card_y."""
    w, h = spec["w"] * MM, spec["h"] * MM
    top = (spec["y"] if y is None else y) * MM
    return card_x + spec["x"] * MM, card_y + CARD_H * MM - top - h, w, h


def draw_front(c: Canvas, card: dict[str, Any], x: float, y: float, bleed_box: Box, root: Path) -> None:
    c.setFillColor(HexColor(FRONT_BACKGROUND))
    c.rect(*bleed_box, stroke=0, fill=1)
    ink = HexColor(INK)

    # title: one centred bold line at the top of its box
    fx, fy, fw, fh = frame(x, y, TITLE)
    size = TITLE["size"]
    c.setFillColor(ink)
    c.setFont(BOLD, size)
    c.drawCentredString(fx + fw / 2, fy + fh - size * 0.93, card["title"])

    # art: the file path, so reportlab embeds the image once for the whole document
    fx, fy, fw, fh = frame(x, y, ART)
    art = root / card.get("art", ART_SRC)  # a card's own art where it names one (the `art` deck)
    c.drawImage(str(art), fx, fy, fw, fh, preserveAspectRatio=True, anchor="c", mask="auto")

    # four stat boxes: rounded rectangle, small label on top, large bold value in the middle
    for label, field, sx in STATS:
        fx, fy, fw, fh = frame(x, y, {"x": sx, "w": STAT_W, "h": STAT_H}, STAT_Y)
        c.setFillColor(HexColor(STAT_FILL))
        c.setStrokeColor(HexColor(STAT_STROKE))
        c.setLineWidth(STAT_STROKE_WIDTH)
        c.roundRect(fx, fy, fw, fh, min(fw, fh) * 0.15, stroke=1, fill=1)
        label_h = fh * 0.32
        label_size = min(STAT_SIZE * 0.45, label_h * 0.8)
        inset = min(fw, fh) * 0.1
        label_top = fy + fh - label_h - inset * 0.6 + (label_h + label_size * LEADING) / 2
        c.setFillColor(ink)
        c.setFont(REGULAR, label_size)
        c.drawCentredString(fx + fw / 2, label_top - label_size * 0.93, label)
        value_h = fh - label_h - 1
        line = STAT_SIZE * LEADING
        c.setFont(BOLD, STAT_SIZE)
        c.drawCentredString(fx + fw / 2, fy + 0.5 + (value_h + line) / 2 - STAT_SIZE * 0.93, str(card[field]))

    # rules text: wrapped, shrunk by 0.5 pt until it fits (not below min_size)
    fx, fy, fw, fh = frame(x, y, RULES)
    size = RULES["size"]
    lines = simpleSplit(card["text"], REGULAR, size, fw)
    while len(lines) * size * LEADING > fh + 0.01 and size - 0.5 >= RULES["min_size"]:
        size -= 0.5
        lines = simpleSplit(card["text"], REGULAR, size, fw)
    c.setFillColor(ink)
    c.setFont(REGULAR, size)
    baseline = fy + fh - size * 0.93
    for text in lines:
        c.drawString(fx, baseline, text)
        baseline -= size * LEADING


def draw_back(c: Canvas, x: float, y: float, bleed_box: Box) -> None:
    c.setFillColor(HexColor(BACK_BACKGROUND))
    c.rect(*bleed_box, stroke=0, fill=1)
    fx, fy, fw, fh = frame(x, y, BACK_FRAME)
    c.setStrokeColor(HexColor(BACK_INK))
    c.setLineWidth(BACK_FRAME["stroke_width"])
    c.roundRect(fx, fy, fw, fh, BACK_FRAME["radius"] * MM, stroke=1, fill=0)
    fx, fy, fw, fh = frame(x, y, BACK_TEXT)
    size = BACK_TEXT["size"]
    c.setFillColor(HexColor(BACK_INK))
    c.setFont(BOLD, size)
    c.drawCentredString(fx + fw / 2, fy + (fh + size * LEADING) / 2 - size * 0.93, BACK_WORD)


def grid() -> tuple[list[tuple[float, float]], list[float], list[float]]:
    """Trim lower-left corners of the cards on a sheet (reading order), and the x and y of the cut lines."""
    w, h, bleed, margin = CARD_W * MM, CARD_H * MM, BLEED * MM, MARGIN * MM
    columns = int((PAGE_W - 2 * margin - 2 * bleed) // w)
    rows = int((PAGE_H - 2 * margin - 2 * bleed) // h)
    left = (PAGE_W - columns * w) / 2
    top = (PAGE_H + rows * h) / 2
    slots = [(left + col * w, top - (row + 1) * h) for row in range(rows) for col in range(columns)]
    xs = [left + col * w for col in range(columns + 1)]
    ys = [top - row * h for row in range(rows + 1)]
    return slots, xs, ys


def bleed_box(x: float, y: float, xs: list[float], ys: list[float]) -> Box:
    """The card's bleed, only on the sheet's outer edges: cards butt against each other inside."""
    w, h, b = CARD_W * MM, CARD_H * MM, BLEED * MM
    left = b if abs(x - min(xs)) < 0.01 else 0.0
    right = b if abs(x + w - max(xs)) < 0.01 else 0.0
    bottom = b if abs(y - min(ys)) < 0.01 else 0.0
    top = b if abs(y + h - max(ys)) < 0.01 else 0.0
    return x - left, y - bottom, w + left + right, h + bottom + top


def crop_marks(c: Canvas, used: list[tuple[float, float]]) -> None:
    """Marks at every cut line of the cards on the page, outside their block (a partial sheet: its cards only)."""
    w, h = CARD_W * MM, CARD_H * MM
    xs = sorted({round(x, 4) for x, _ in used} | {round(x + w, 4) for x, _ in used})
    ys = sorted({round(y, 4) for _, y in used} | {round(y + h, 4) for _, y in used})
    reach = (BLEED + CROP_OFFSET) * MM
    length = CROP_LENGTH * MM
    left, right, bottom, top = min(xs) - reach, max(xs) + reach, min(ys) - reach, max(ys) + reach
    c.setStrokeColor(black)
    c.setLineWidth(CROP_WIDTH)
    for x in xs:
        c.line(x, top, x, top + length)
        c.line(x, bottom, x, bottom - length)
    for y in ys:
        c.line(left, y, left - length, y)
        c.line(right, y, right + length, y)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root, out = Path(argv[0]), Path(argv[1])
    for name in (REGULAR, BOLD):
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / f"{name}.ttf")))
    cards: list[dict[str, Any]] = []
    for path in sorted((root / "cards").rglob("*.json")):
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
        cards.extend(data if isinstance(data, list) else [data])

    slots, xs, ys = grid()
    back_slots = [(PAGE_W - x - CARD_W * MM, y) for x, y in slots]  # long-edge duplex: mirrored left to right
    back_xs = [PAGE_W - x for x in reversed(xs)]
    out.parent.mkdir(parents=True, exist_ok=True)
    c = Canvas(
        str(out), pagesize=(PAGE_W, PAGE_H), invariant=1, pageCompression=1, initialFontName=REGULAR, initialFontSize=9
    )
    c.setTitle("raw reportlab benchmark")
    per_sheet = len(slots)
    for start in range(0, len(cards), per_sheet):
        sheet = cards[start : start + per_sheet]
        for card, (x, y) in zip(sheet, slots, strict=False):
            draw_front(c, card, x, y, bleed_box(x, y, xs, ys), root)
        crop_marks(c, slots[: len(sheet)])
        c.showPage()
        for x, y in back_slots[: len(sheet)]:
            draw_back(c, x, y, bleed_box(x, y, back_xs, ys))
        crop_marks(c, back_slots[: len(sheet)])
        c.showPage()
    c.save()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
