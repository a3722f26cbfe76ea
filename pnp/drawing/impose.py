"""Imposition: pure geometry. Where each card goes on which sheet, crop marks, duplex backs.

Knows nothing of how a card looks. All lengths in points; origin at the page's lower left
(reportlab's convention). Long-edge duplex: a back sits at x = page_width - x_front - width,
same y; short-edge: same x, y = page_height - y_front - height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from pnp.core.units import MM as MM  # re-exported: geometry in points
from pnp.core.units import PAPERS as PAPERS
from pnp.core.units import ImpositionError as ImpositionError
from pnp.core.units import parse_paper as parse_paper

EDGE = 1e-6  # points: a box edge on a line is not across it
Duplex = Literal["long", "short", "fold", "none"]
Cutting = Literal["butted", "gutter"]


@dataclass(frozen=True, slots=True)
class SheetSpec:
    """How to lay cards out on paper (all in points)."""

    page_width: float
    page_height: float
    margin: float = 5 * MM
    gutter: float = 0.0  # butted: space between trims (0: shared cut lines); gutter: space between bleeds
    bleed: float = 3 * MM
    crop_length: float = 4 * MM
    crop_offset: float = 1 * MM  # gap between the bleed edge and the start of a mark
    duplex: Duplex = "long"
    cutting: Cutting = "butted"  # gutter: each card keeps its whole bleed, two guillotine cuts per gap
    orientation: str = ""  # portrait | landscape | auto (the one that holds more faces) | "": the paper as given
    columns: int = 0  # [paper] columns, rows: exactly this grid (0: as many as fit)
    rows: int = 0
    per_page: int = 0  # [paper] cards-per-page: at most this many faces a sheet (0: as many as fit)
    mix_sizes: str = ""  # [paper] mix-sizes: "all", "last-sheets" or "": sizes shelf-packed together (combine)

    @property
    def spacing(self) -> float:
        """Space between the trims of two neighbouring cards."""
        return self.gutter + (2 * self.bleed if self.cutting == "gutter" else 0.0)


@dataclass(frozen=True, slots=True)
class Box:
    """A card's trim box on a page: lower-left corner and size."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class Mark:
    """One crop-mark line segment."""

    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class Grid:
    """Where the faces of one sheet go: each front and its back, their clips, and the crop marks."""

    columns: int
    rows: int
    fronts: tuple[Box, ...]  # in reading order: left to right, top to bottom
    backs: tuple[Box, ...]  # the matching back position of each front slot
    marks: tuple[Mark, ...]
    front_clips: tuple[Box, ...]  # where each card may paint: its bleed, cut back where neighbours are close
    back_clips: tuple[Box, ...]

    @property
    def per_sheet(self) -> int:
        return len(self.fronts)


def flips_x(spec: SheetSpec) -> bool:
    """Whether a back mirrors its front left to right: turning the paper over its long edge on a
    portrait page, over its short edge on a landscape one (the paper turns about that edge)."""
    landscape = spec.page_width > spec.page_height + EDGE
    return (spec.duplex == "short") == landscape


def back_box(front: Box, spec: SheetSpec) -> Box:
    if spec.duplex in ("long", "short") and not flips_x(spec):
        return Box(front.x, spec.page_height - front.y - front.height, front.width, front.height)
    return Box(spec.page_width - front.x - front.width, front.y, front.width, front.height)


MAX_POINTS = 3e7  # about 10 km: no sheet is larger
MAX_CARDS_PER_SHEET = 2500  # 5 mm tokens on a Letter page come close


def grid(card_width: float, card_height: float, spec: SheetSpec) -> Grid:
    """As many cards as fit inside the margins, the block centred on the page.

    Fold (`duplex = "fold"`): the fronts fill the left half, their right bleed ending at the fold
    line (the page's vertical centre), and each back is their mirror image about it; or, when
    that holds more cards or the cards are too wide for half the page, the same about the
    horizontal centre (fronts in the lower half).
    """
    if not all(math.isfinite(v) and abs(v) < MAX_POINTS for v in (spec.page_width, spec.page_height)):
        raise ImpositionError(
            "the paper is beyond any sheet of paper (over 10 km); check --paper or [build] paper in pnp.toml"
        )
    sizes = (card_width, card_height, spec.bleed, spec.spacing, spec.margin)
    if not all(math.isfinite(v) and abs(v) < MAX_POINTS for v in sizes):  # e.g. a bleed of 1e307 mm
        raise ImpositionError(
            "the card size, bleed or margins are beyond any sheet of paper (over 10 km); check the layout's size and bleed"
        )
    if spec.duplex != "fold":
        return _grid(card_width, card_height, spec)
    try:
        vertical: Grid | None = _grid(card_width, card_height, spec)
    except ImpositionError:
        vertical = None
    try:
        turned = replace(spec, page_width=spec.page_height, page_height=spec.page_width)
        horizontal = _transposed(_grid(card_height, card_width, turned), spec)
    except ImpositionError:
        if vertical is None:
            raise
        return vertical
    return vertical if vertical is not None and vertical.per_sheet >= horizontal.per_sheet else horizontal


def _transposed(turned: Grid, spec: SheetSpec) -> Grid:
    """A grid laid out on the page turned about its diagonal, turned back: x and y swap."""
    pairs = sorted(
        (
            (Box(f.y, f.x, f.height, f.width), Box(b.y, b.x, b.height, b.width))
            for f, b in zip(turned.fronts, turned.backs, strict=True)
        ),
        key=lambda pair: (-pair[0].y, pair[0].x),  # reading order: top to bottom, left to right
    )
    fronts = tuple(front for front, _ in pairs)
    backs = tuple(back for _, back in pairs)
    front_clips = tuple(_clip(box, fronts, spec) for box in fronts)
    back_clips = tuple(_clip(box, backs, spec) for box in backs)
    return Grid(turned.rows, turned.columns, fronts, backs, crop_marks(fronts, spec), front_clips, back_clips)


def _grid(card_width: float, card_height: float, spec: SheetSpec) -> Grid:
    pitch_x = card_width + spec.spacing
    pitch_y = card_height + spec.spacing
    fold_gap = max(spec.spacing, 2 * spec.bleed)  # between a front's trim and its back's, across the fold
    usable_w = spec.page_width - 2 * spec.margin
    if spec.duplex == "fold":
        usable_w = spec.page_width / 2 - spec.margin - fold_gap / 2 + spec.bleed
    usable_h = spec.page_height - 2 * spec.margin
    columns = int((usable_w + spec.spacing - 2 * spec.bleed) // pitch_x) if usable_w > 0 else 0
    rows = int((usable_h + spec.spacing - 2 * spec.bleed) // pitch_y) if usable_h > 0 else 0
    if columns < 1 or rows < 1:
        where = " half of" if spec.duplex == "fold" else ""
        raise ImpositionError(
            f"a {card_width / MM:.1f} x {card_height / MM:.1f} mm card with {spec.bleed / MM:.1f} mm bleed does not fit"
            f"{where} a {spec.page_width / MM:.0f} x {spec.page_height / MM:.0f} mm page with "
            f"{spec.margin / MM:g} mm margins; use a larger paper or smaller margins ([paper] in pnp.toml)"
        )
    for asked, fits, what in ((spec.columns, columns, "columns"), (spec.rows, rows, "rows")):
        if asked > fits:
            raise ImpositionError(
                f"{asked} {what} of {card_width / MM:.1f} x {card_height / MM:.1f} mm cards with "
                f"{spec.bleed / MM:g} mm bleed do not fit{' half of' if spec.duplex == 'fold' else ''} a "
                f"{spec.page_width / MM:.1f} x {spec.page_height / MM:.1f} mm page with {spec.margin / MM:g} mm "
                f"margins (it holds {fits}); use a larger paper, smaller margins or another orientation, "
                f"or ask for {fits} {what} ([paper] in pnp.toml)"
            )
    columns, rows = spec.columns or columns, spec.rows or rows
    if columns * rows > MAX_CARDS_PER_SHEET:  # placing and clipping each against the others is quadratic
        raise ImpositionError(
            f"a {card_width / MM:.2f} x {card_height / MM:.2f} mm card makes {columns * rows} cards on one "
            f"{spec.page_width / MM:.0f} x {spec.page_height / MM:.0f} mm page, over the {MAX_CARDS_PER_SHEET} "
            "pnp places on a sheet; use a bigger card size or a smaller paper"
        )
    block_w = columns * card_width + (columns - 1) * spec.spacing
    block_h = rows * card_height + (rows - 1) * spec.spacing
    left = (spec.page_width - block_w) / 2
    if spec.duplex == "fold":
        left = spec.page_width / 2 - fold_gap / 2 - block_w
    top = (spec.page_height + block_h) / 2
    fronts = tuple(
        Box(left + c * pitch_x, top - card_height - r * pitch_y, card_width, card_height)
        for r in range(rows)
        for c in range(columns)
    )[: spec.per_page or None]
    backs = tuple(back_box(box, spec) for box in fronts)
    front_clips = tuple(_clip(box, fronts, spec) for box in fronts)
    back_clips = tuple(_clip(box, backs, spec) for box in backs)
    return Grid(columns, rows, fronts, backs, crop_marks(fronts, spec), front_clips, back_clips)


def oriented(spec: SheetSpec, card_width: float, card_height: float) -> SheetSpec:
    """The spec with its page turned as `orientation` asks; `auto`: the orientation whose grid holds
    more of these faces (portrait on a tie, or when neither holds one)."""
    short, long = sorted((spec.page_width, spec.page_height))
    portrait = replace(spec, page_width=short, page_height=long, orientation="portrait")
    landscape = replace(spec, page_width=long, page_height=short, orientation="landscape")
    if spec.orientation == "portrait":
        return portrait
    if spec.orientation == "landscape":
        return landscape
    if spec.orientation != "auto":
        return spec
    held = []
    for turned in (portrait, landscape):
        try:
            held.append(grid(card_width, card_height, turned).per_sheet)
        except ImpositionError:
            held.append(0)
    return landscape if held[1] > held[0] else portrait


def holds(card_width: float, card_height: float, spec: SheetSpec, name: str = "") -> str:
    """How many of these faces a sheet of `spec` (oriented) holds, and why no more: for `pnp build`."""
    found = grid(card_width, card_height, spec)
    paper = f"{name} ({spec.page_width / MM:.1f} x {spec.page_height / MM:.1f} mm)" if name else ""
    paper = paper or f"{spec.page_width / MM:.1f} x {spec.page_height / MM:.1f} mm"
    if spec.orientation:
        paper += f" {spec.orientation}"
    size = f"{card_width / MM:g} x {card_height / MM:g} mm + {spec.bleed / MM:g} mm bleed"
    text = f"{found.per_sheet} a sheet: {found.columns} x {found.rows} of {size}, {spec.cutting}, on {paper}"
    text += f" with {spec.margin / MM:g} mm margins"
    if spec.per_page and found.per_sheet == spec.per_page < found.columns * found.rows:
        return text + f" (cards-per-page = {spec.per_page})"
    if spec.columns and spec.rows:
        return text + " (the grid asked for)"
    span_w = found.columns * card_width + found.columns * spec.spacing - spec.spacing + 2 * spec.bleed
    span_h = found.rows * card_height + found.rows * spec.spacing - spec.spacing + 2 * spec.bleed
    room_w = spec.page_width - 2 * spec.margin
    room_h = spec.page_height - 2 * spec.margin
    more_w = span_w + card_width + spec.spacing
    more_h = span_h + card_height + spec.spacing
    if spec.duplex == "fold":
        return text + " (fold: the fronts take one half of the page, their backs the other)"
    return text + (
        f"; one more column needs {more_w / MM:.1f} mm of the {room_w / MM:.1f} mm across, "
        f"one more row {more_h / MM:.1f} mm of the {room_h / MM:.1f} mm down"
    )


def with_cutting(spec: SheetSpec, cutting: str | None, gutter: float) -> SheetSpec:
    """The spec for a layout with its own cutting style (None: the build's); `gutter` between
    bleeds applies to the gutter style only (butted cards share their cut lines)."""
    if cutting not in ("butted", "gutter") or cutting == spec.cutting:
        return spec
    return replace(
        spec, cutting="gutter" if cutting == "gutter" else "butted", gutter=gutter if cutting == "gutter" else 0.0
    )


def for_faces(spec: SheetSpec, has_back: bool) -> SheetSpec:
    """The spec for faces with or without backs: fold-and-glue without backs needs no fold (the whole page)."""
    return replace(spec, duplex="none") if spec.duplex == "fold" and not has_back else spec


def fold_line(boxes: tuple[Box, ...], spec: SheetSpec) -> tuple[Mark, ...]:
    """Where to fold a fold-and-glue sheet: the page's vertical centre, above and below the cards;
    or its horizontal centre, left and right of them, when cards straddle the vertical one."""
    if spec.duplex != "fold" or not boxes:
        return ()
    x = spec.page_width / 2
    if any(b.x < x - EDGE and b.x + b.width > x + EDGE for b in boxes):
        y = spec.page_height / 2
        left = min(b.x for b in boxes) - spec.bleed - spec.crop_offset
        right = max(b.x + b.width for b in boxes) + spec.bleed + spec.crop_offset
        return (Mark(left, y, left - spec.crop_length, y), Mark(right, y, right + spec.crop_length, y))
    top = max(b.y + b.height for b in boxes) + spec.bleed + spec.crop_offset
    bottom = min(b.y for b in boxes) - spec.bleed - spec.crop_offset
    return (Mark(x, top, x, top + spec.crop_length), Mark(x, bottom, x, bottom - spec.crop_length))


def clips(boxes: tuple[Box, ...], spec: SheetSpec) -> tuple[Box, ...]:
    """Where each of these faces may paint, among these faces only: a slot left empty on a
    sheet that is not full is no neighbour, so the face beside it keeps its bleed there."""
    return tuple(_clip(box, boxes, spec) for box in boxes)


def _clip(box: Box, others: tuple[Box, ...], spec: SheetSpec) -> Box:
    """The card's bleed box, limited to half the gap on sides where another card is nearer than two bleeds."""
    reach = {"left": spec.bleed, "right": spec.bleed, "bottom": spec.bleed, "top": spec.bleed}
    for other in others:
        if other is box:
            continue
        overlaps_y = other.y < box.y + box.height - EDGE and box.y < other.y + other.height - EDGE
        overlaps_x = (
            other.x < box.x + box.width - EDGE and box.x < other.x + other.width - EDGE
        )  # a diagonal one is none
        if overlaps_y and other.x >= box.x + box.width - 1e-6:
            reach["right"] = min(reach["right"], (other.x - box.x - box.width) / 2)
        if overlaps_y and other.x + other.width <= box.x + 1e-6:
            reach["left"] = min(reach["left"], (box.x - other.x - other.width) / 2)
        if overlaps_x and other.y >= box.y + box.height - 1e-6:
            reach["top"] = min(reach["top"], (other.y - box.y - box.height) / 2)
        if overlaps_x and other.y + other.height <= box.y + 1e-6:
            reach["bottom"] = min(reach["bottom"], (box.y - other.y - other.height) / 2)
    return Box(
        box.x - reach["left"],
        box.y - reach["bottom"],
        box.width + reach["left"] + reach["right"],
        box.height + reach["bottom"] + reach["top"],
    )


def crop_marks(boxes: tuple[Box, ...], spec: SheetSpec) -> tuple[Mark, ...]:
    """Marks at every trim line, outside the block of cards, so none crosses a card or its bleed."""
    if not boxes:
        return ()
    xs = sorted({round(b.x, 4) for b in boxes} | {round(b.x + b.width, 4) for b in boxes})
    ys = sorted({round(b.y, 4) for b in boxes} | {round(b.y + b.height, 4) for b in boxes})
    left = min(b.x for b in boxes) - spec.bleed - spec.crop_offset
    right = max(b.x + b.width for b in boxes) + spec.bleed + spec.crop_offset
    bottom = min(b.y for b in boxes) - spec.bleed - spec.crop_offset
    top = max(b.y + b.height for b in boxes) + spec.bleed + spec.crop_offset
    length = spec.crop_length
    marks: list[Mark] = []
    for x in xs:
        marks.append(Mark(x, top, x, top + length))
        marks.append(Mark(x, bottom, x, bottom - length))
    for y in ys:
        marks.append(Mark(left, y, left - length, y))
        marks.append(Mark(right, y, right + length, y))
    return tuple(marks)


def paginate(count: int, per_sheet: int) -> list[range]:
    """Index ranges of the items on each sheet."""
    return [range(start, min(start + per_sheet, count)) for start in range(0, count, per_sheet)]


def pack(counts: list[int], per_sheet: int) -> list[list[tuple[int, int]]]:
    """Several parts' items one after another onto shared sheets, in order, no slot left empty
    but the last: for each sheet, the (part, index in part) of each slot."""
    items = [(part, index) for part, count in enumerate(counts) for index in range(count)]
    return [items[start : start + per_sheet] for start in range(0, len(items), per_sheet)]


def intersect(a: Box, b: Box) -> Box:
    """The common part of two boxes (zero-sized where they do not overlap)."""
    x, y = max(a.x, b.x), max(a.y, b.y)
    right, top = min(a.x + a.width, b.x + b.width), min(a.y + a.height, b.y + b.height)
    return Box(x, y, max(right - x, 0.0), max(top - y, 0.0))


REGISTRATION_BASELINE = 3.5 * MM  # the sheet label's baseline, from the bottom edge, inside most printers' reach
LABEL_ASCENT = 1.9 * MM  # a 6 pt label (pnp.drawing.pdf): its glyphs above the baseline, and a hair
LABEL_DESCENT = 0.6 * MM  # and below it
LABEL_CLEAR = 0.5 * MM  # the least room between the label and a crop mark
LABEL_EDGE = 3 * MM  # the nearest a moved label comes to the paper's edge


@dataclass(frozen=True, slots=True)
class LabelSpot:
    """Where a sheet's label goes: the middle of its baseline; `turned`: reading upwards, in the left margin."""

    x: float
    y: float
    turned: bool


def label_spot(
    width: float, spec: SheetSpec, marks: tuple[Mark, ...], ink: tuple[float, float], centre: float
) -> LabelSpot:
    """A place for a label `width` long that no mark crosses and no face covers: in the bottom
    margin, as near `centre` as the marks allow; else turned in the left margin (beside the faces,
    or beyond the marks' ends), as near the middle as they allow. `ink`: the lowest and leftmost
    ink of the faces (pnp.drawing.pdf.ink_extent)."""
    lowest, leftmost = ink
    baseline = max(REGISTRATION_BASELINE, spec.margin - (LABEL_ASCENT + LABEL_DESCENT))
    below = lowest >= baseline + LABEL_ASCENT + LABEL_DESCENT
    if below:
        across = [(min(m.x1, m.x2), max(m.x1, m.x2)) for m in marks if _meets(m, baseline, vertical=False)]
        x = _free_spot(width, centre, across, LABEL_EDGE, spec.page_width - LABEL_EDGE)
        if x is not None:
            return LabelSpot(x, baseline, False)
    middle = spec.page_height / 2
    if math.isfinite(leftmost):
        beside = leftmost - 1 * MM
        outside = [min(m.x1, m.x2) for m in marks if max(m.x1, m.x2) <= beside + LABEL_DESCENT + LABEL_CLEAR]
        columns = [beside] + ([min(outside) - LABEL_CLEAR - LABEL_DESCENT] if outside else [])
        for column in columns:
            if column - LABEL_ASCENT < LABEL_EDGE and column != beside:
                continue
            down = [(min(m.y1, m.y2), max(m.y1, m.y2)) for m in marks if _meets(m, column, vertical=True)]
            y = _free_spot(width, middle, down, LABEL_EDGE, spec.page_height - LABEL_EDGE)
            if y is not None:
                return LabelSpot(column, y, True)
    if below or not (leftmost > lowest):  # nowhere clear: where a label always went
        return LabelSpot(centre, baseline, False)
    return LabelSpot(leftmost - 1 * MM, middle, True)


def _meets(mark: Mark, baseline: float, vertical: bool) -> bool:
    """Whether a mark reaches into the band a label on `baseline` takes (across the page, or turned)."""
    if vertical:  # turned: glyphs stand to the left of the baseline
        low, high = baseline - LABEL_ASCENT, baseline + LABEL_DESCENT
        start, end = sorted((mark.x1, mark.x2))
    else:
        low, high = baseline - LABEL_DESCENT, baseline + LABEL_ASCENT
        start, end = sorted((mark.y1, mark.y2))
    return start < high + LABEL_CLEAR and end > low - LABEL_CLEAR


def _free_spot(
    width: float, centre: float, blocked: list[tuple[float, float]], low: float, high: float
) -> float | None:
    """Where to centre a stretch `width` long within [low, high] that meets no blocked span: at
    `centre` if it can, else in the middle of the free gap whose middle is nearest `centre`."""
    best: float | None = None
    start = low
    for begin, end in [*sorted(blocked), (high + LABEL_CLEAR, high + LABEL_CLEAR)]:
        stop = min(begin - LABEL_CLEAR, high)
        if stop - start >= width:  # `centre` itself when it fits here, else the middle of the gap
            fits = start + width / 2 <= centre <= stop - width / 2
            spot = centre if fits else (start + stop) / 2
            if best is None or abs(spot - centre) < abs(best - centre) - EDGE:
                best = spot
        start = max(start, end + LABEL_CLEAR)
    return best
