#!/usr/bin/env python3
"""The plain reportlab twin of bench/build_bench.py's poker deck, written as the reportlab user guide teaches.

    python bench/raw_poker.py PROJECT_DIR OUT.pdf

A deck pnp's benchmark was not written around (the deck Squib, protograf and decksmith users
draw): records in one CSV file (`PROJECT_DIR/cards/deck.csv`), fronts only, A4, a centred 3 x 3
grid of 63 x 88 mm poker cards with 3 mm bleed on the outer edges and crop marks. Each card: a
rounded frame, a bold title, a 300 x 200 px art image, four rounded stat boxes (label and value)
and a ~40-word rules text. The fonts are Liberation Sans (TrueType, embedded), registered as the
user guide's chapter on fonts shows; text is set with canvas.drawCentredString and, for the
rules, one text object (beginText / textLine) per card with lines from simpleSplit, shrunk by
0.5 pt until they fit. Everything is drawn on every card (no forms), as the guide's examples do.
Deterministic (invariant=1) and page-compressed, as pnp's output is. No pnp code.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from reportlab.lib.colors import HexColor, black
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

LIBERATION = Path("/usr/share/fonts/truetype/liberation")
DEJAVU = Path(__file__).resolve().parents[1] / "pnp" / "fonts"
# the Liberation Sans faces (Debian fonts-liberation); DejaVu Sans (bundled with pnp) when absent
FONT_FILES = (
    (LIBERATION / "LiberationSans-Regular.ttf", LIBERATION / "LiberationSans-Bold.ttf")
    if (LIBERATION / "LiberationSans-Regular.ttf").is_file()
    else (DEJAVU / "DejaVuSans.ttf", DEJAVU / "DejaVuSans-Bold.ttf")
)
REGULAR, BOLD = "Sans", "Sans-Bold"

PAGE_W, PAGE_H = 210 * mm, 297 * mm
CARD_W, CARD_H, BLEED, MARGIN = 63.0, 88.0, 3.0, 5.0
CROP_LENGTH, CROP_OFFSET, CROP_WIDTH = 4.0, 1.0, 0.3
LEADING = 1.18
BACKGROUND, INK = "#fbf7ee", "#1b1b1b"
FRAME = {"x": 2.5, "y": 2.5, "w": 58.0, "h": 83.0, "radius": 2.5, "stroke_width": 1.2}
FRAME_STROKE = "#7a5c2e"
TITLE = {"x": 4.0, "y": 4.5, "w": 55.0, "h": 7.0, "size": 12.0}
ART = {"x": 6.5, "y": 12.5, "w": 50.0, "h": 33.3333}  # 300 x 200 px at 3:2
ART_SRC = "art/art.png"
ART_PX = (300, 200)
STAT_Y, STAT_W, STAT_H, STAT_SIZE = 47.5, 12.5, 11.0, 13.0
STAT_FILL, STAT_STROKE, STAT_STROKE_WIDTH = "#ffffff", "#7a5c2e", 0.8
STATS = (("ATK", "attack", 4.0), ("DEF", "defense", 18.1667), ("HP", "health", 32.3333), ("SPD", "speed", 46.5))
RULES = {"x": 5.0, "y": 60.5, "w": 53.0, "h": 23.0, "size": 8.0, "min_size": 6.0}


def place(x: float, y: float, spec: dict[str, float]) -> tuple[float, float, float, float]:
    """An element's box in page points (lower-left x, y, width, height); spec in mm from the card's top-left."""
    w, h = spec["w"] * mm, spec["h"] * mm
    return x + spec["x"] * mm, y + CARD_H * mm - spec["y"] * mm - h, w, h


def draw_card(c: canvas.Canvas, card: dict[str, str], x: float, y: float, bleed: tuple[float, ...], art: str) -> None:
    c.setFillColor(HexColor(BACKGROUND))
    c.rect(*bleed, stroke=0, fill=1)
    fx, fy, fw, fh = place(x, y, FRAME)
    c.setStrokeColor(HexColor(FRAME_STROKE))
    c.setLineWidth(FRAME["stroke_width"])
    c.roundRect(fx, fy, fw, fh, FRAME["radius"] * mm, stroke=1, fill=0)

    fx, fy, fw, fh = place(x, y, TITLE)
    c.setFillColor(HexColor(INK))
    c.setFont(BOLD, TITLE["size"])
    c.drawCentredString(fx + fw / 2, fy + fh - TITLE["size"] * 0.93, card["title"])

    fx, fy, fw, fh = place(x, y, ART)
    c.drawImage(art, fx, fy, fw, fh, preserveAspectRatio=True, anchor="c")

    for label, field, sx in STATS:
        fx, fy, fw, fh = place(x, y, {"x": sx, "y": STAT_Y, "w": STAT_W, "h": STAT_H})
        c.setFillColor(HexColor(STAT_FILL))
        c.setStrokeColor(HexColor(STAT_STROKE))
        c.setLineWidth(STAT_STROKE_WIDTH)
        c.roundRect(fx, fy, fw, fh, min(fw, fh) * 0.15, stroke=1, fill=1)
        label_h = fh * 0.32
        label_size = min(STAT_SIZE * 0.45, label_h * 0.8)
        inset = min(fw, fh) * 0.1
        label_top = fy + fh - label_h - inset * 0.6 + (label_h + label_size * LEADING) / 2
        c.setFillColor(HexColor(INK))
        c.setFont(REGULAR, label_size)
        c.drawCentredString(fx + fw / 2, label_top - label_size * 0.93, label)
        value_h = fh - label_h - 1
        c.setFont(BOLD, STAT_SIZE)
        c.drawCentredString(fx + fw / 2, fy + 0.5 + (value_h + STAT_SIZE * LEADING) / 2 - STAT_SIZE * 0.93, card[field])

    fx, fy, fw, fh = place(x, y, RULES)
    size = RULES["size"]
    lines = simpleSplit(card["text"], REGULAR, size, fw)
    while len(lines) * size * LEADING > fh + 0.01 and size - 0.5 >= RULES["min_size"]:
        size -= 0.5
        lines = simpleSplit(card["text"], REGULAR, size, fw)
    text = c.beginText(fx, fy + fh - size * 0.93)
    text.setFont(REGULAR, size, size * LEADING)
    text.setFillColor(HexColor(INK))
    for line in lines:
        text.textLine(line)
    c.drawText(text)


def slots() -> tuple[list[tuple[float, float]], list[float], list[float]]:
    """Trim lower-left corners on a sheet (reading order), and the x and y of the cut lines."""
    w, h, bleed, margin = CARD_W * mm, CARD_H * mm, BLEED * mm, MARGIN * mm
    columns = int((PAGE_W - 2 * margin - 2 * bleed) // w)
    rows = int((PAGE_H - 2 * margin - 2 * bleed) // h)
    left, top = (PAGE_W - columns * w) / 2, (PAGE_H + rows * h) / 2
    corners = [(left + col * w, top - (row + 1) * h) for row in range(rows) for col in range(columns)]
    return corners, [left + col * w for col in range(columns + 1)], [top - row * h for row in range(rows + 1)]


def bleed_box(x: float, y: float, xs: list[float], ys: list[float]) -> tuple[float, ...]:
    """The card's bleed on the sheet's outer edges only: cards butt against each other inside."""
    w, h, b = CARD_W * mm, CARD_H * mm, BLEED * mm
    left = b if abs(x - min(xs)) < 0.01 else 0.0
    right = b if abs(x + w - max(xs)) < 0.01 else 0.0
    bottom = b if abs(y - min(ys)) < 0.01 else 0.0
    top = b if abs(y + h - max(ys)) < 0.01 else 0.0
    return x - left, y - bottom, w + left + right, h + bottom + top


def crop_marks(c: canvas.Canvas, used: list[tuple[float, float]]) -> None:
    w, h = CARD_W * mm, CARD_H * mm
    xs = sorted({round(x, 4) for x, _ in used} | {round(x + w, 4) for x, _ in used})
    ys = sorted({round(y, 4) for _, y in used} | {round(y + h, 4) for _, y in used})
    reach, length = (BLEED + CROP_OFFSET) * mm, CROP_LENGTH * mm
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
    pdfmetrics.registerFont(TTFont(REGULAR, str(FONT_FILES[0])))
    pdfmetrics.registerFont(TTFont(BOLD, str(FONT_FILES[1])))
    with (root / "cards" / "deck.csv").open(encoding="utf-8", newline="") as handle:
        cards = list(csv.DictReader(handle))
    corners, xs, ys = slots()
    out.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(out), pagesize=(PAGE_W, PAGE_H), invariant=1, pageCompression=1)
    c.setTitle("raw reportlab poker deck")
    art = str(root / ART_SRC)
    for start in range(0, len(cards), len(corners)):
        sheet = cards[start : start + len(corners)]
        for card, (x, y) in zip(sheet, corners, strict=False):
            draw_card(c, card, x, y, bleed_box(x, y, xs, ys), art)
        crop_marks(c, corners[: len(sheet)])
        c.showPage()
    c.save()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
