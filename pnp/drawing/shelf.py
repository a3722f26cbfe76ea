"""Token sheets: pieces of several sizes on shared sheets. Pure geometry, like pnp.drawing.impose.

Cards of one size share a grid and its cut lines (pnp.drawing.impose.grid). Tokens of several sizes
cannot share cut lines, so each keeps its own bleed all round and its own cut guide: pieces are
laid in shelves (rows as tall as their tallest piece), left to right and top to bottom, tallest
kinds first; a run of hexagons of one size is laid as a honeycomb (columns three quarters of a
hexagon apart, every other column half a hexagon lower), which holds about a third more than a
grid of their bounding boxes (a hex kind's own file too, where that takes fewer sheets:
kind_sheets). Each sheet's group is centred on the page, like a card grid. Backs are each
front's mirror image (pnp.drawing.impose.back_box), so duplex and fold-and-glue stay aligned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from pnp.drawing.impose import MM, Box, ImpositionError, Mark, SheetSpec, back_box, clips, grid, paginate

TOKEN_LIMIT = 50 * MM  # a piece no larger than this either way is a token
MIN_SPACING = 2 * MM  # between two tokens' trims, even without bleed: room for their cut guides


@dataclass(frozen=True, slots=True)
class Piece:
    """One kind's tokens: how many, their trim, bleed and shape (pnp.project.layout's `shape`)."""

    part: int
    count: int
    width: float
    height: float
    bleed: float
    shape: str
    has_back: bool
    first: int = 0  # the number of its first token within its part (a part's last tokens alone: combine)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one token goes on its sheet: its trim box, front and back."""

    part: int
    index: int  # the token's number within its part
    front: Box
    back: Box


def is_token(width: float, height: float) -> bool:
    return width <= TOKEN_LIMIT + 1e-6 and height <= TOKEN_LIMIT + 1e-6


def spacing(bleed: float, spec: SheetSpec) -> float:
    """Space between two tokens' trims, for the largest bleed among them: both bleeds and the
    gutter, so none paints on another."""
    return max(2 * bleed + (spec.gutter if spec.cutting == "gutter" else 0.0), MIN_SPACING)


def order(pieces: list[Piece]) -> list[Piece]:
    """Tallest first (a shelf is never taller than its first piece), then in the parts' order."""
    return sorted(pieces, key=lambda p: (-round(p.height, 3), p.part))


def shelf_pack(pieces: list[Piece], spec: SheetSpec) -> list[list[Spot]]:
    """Every piece's tokens on as few sheets as the shelves allow; raises ImpositionError when
    a token does not fit the page at all."""
    edge = max(p.bleed for p in pieces)
    gap = spacing(edge, spec)
    fold = spec.duplex == "fold" and any(p.has_back for p in pieces)
    left = spec.margin + edge - gap / 2  # the cells (trim + gap) start here, so bleeds stay in the margins
    right = spec.page_width - left
    if fold:  # the fronts keep to the left half; their backs are mirrored onto the right one
        right = spec.page_width / 2 - max(gap, 2 * edge) / 2 + gap / 2
    top = spec.page_height - left
    bottom = left
    sheets: list[list[Spot]] = [[]]
    y = top  # the top of the current shelf
    x = left
    shelf = 0.0  # its height so far

    def new_sheet() -> None:
        nonlocal x, y, shelf
        sheets.append([])
        x, y, shelf = left, top, 0.0

    for piece in order(pieces):
        cell_w, cell_h = piece.width + gap, piece.height + gap
        if cell_w > right - left + 1e-6 or cell_h > top - bottom + 1e-6:
            raise ImpositionError(f"a {piece.width / MM:.1f} x {piece.height / MM:.1f} mm token does not fit the page")
        if piece.shape == "hex":
            y -= shelf
            x, shelf = left, 0.0
            placed = 0
            while placed < piece.count:
                boxes = _honeycomb(piece, gap, left, right, y, bottom, piece.count - placed)
                if not boxes and sheets[-1]:
                    new_sheet()
                    continue
                boxes = boxes or _honeycomb(piece, gap, left, right, y, bottom, 1)  # one, on a page of its own
                for box in boxes:
                    sheets[-1].append(Spot(piece.part, piece.first + placed, box, _back(box, spec)))
                    placed += 1
                y = min(b.y for b in boxes) - gap / 2
            continue
        for index in range(piece.count):
            if x + cell_w > right + 1e-6:
                x, y, shelf = left, y - shelf, 0.0
            if y - cell_h < bottom - 1e-6:
                new_sheet()
            box = Box(x + gap / 2, y - gap / 2 - piece.height, piece.width, piece.height)
            sheets[-1].append(Spot(piece.part, piece.first + index, box, _back(box, spec)))
            x += cell_w
            shelf = max(shelf, cell_h)
    fold_edge = spec.page_width / 2 - max(gap, 2 * edge) / 2 if fold else None
    return [_centred(sheet, spec, fold_edge) for sheet in sheets if sheet]


def _centred(sheet: list[Spot], spec: SheetSpec, fold_edge: float | None) -> list[Spot]:
    """The sheet's group of tokens moved to the page's centre, as pnp.drawing.impose centres a card grid
    (fold: against the fold line, `fold_edge`, and centred top to bottom); backs mirrored again.

    The packing area is symmetric about the page's centre, so the moved group stays inside it.
    """
    low_x = min(s.front.x for s in sheet)
    high_x = max(s.front.x + s.front.width for s in sheet)
    low_y = min(s.front.y for s in sheet)
    high_y = max(s.front.y + s.front.height for s in sheet)
    dx = fold_edge - high_x if fold_edge is not None else (spec.page_width - low_x - high_x) / 2
    dy = (spec.page_height - low_y - high_y) / 2
    moved = []
    for spot in sheet:
        front = Box(spot.front.x + dx, spot.front.y + dy, spot.front.width, spot.front.height)
        moved.append(Spot(spot.part, spot.index, front, _back(front, spec)))
    return moved


def _honeycomb(
    piece: Piece, gap: float, left: float, right: float, top: float, bottom: float, wanted: int
) -> list[Box]:
    """Up to `wanted` hexagons as a honeycomb between `top` and `bottom`, in reading order.

    Each hexagon's cell is the hexagon grown by half the gap on every side (its width grows in
    proportion: a regular hexagon's is 2/sqrt(3) of its height); cells tile the plane with
    columns 3/4 of a cell apart, odd columns half a cell lower.
    """
    cell_w = piece.width + gap * piece.width / piece.height
    cell_h = piece.height + gap
    pitch = 0.75 * cell_w
    columns = 1 + int((right - left - cell_w + 1e-6) // pitch)
    if columns < 1:
        raise ImpositionError(f"a {piece.width / MM:.1f} x {piece.height / MM:.1f} mm hex token does not fit the page")
    drop = cell_h / 2 if columns > 1 and wanted > 1 else 0.0
    rows = int((top - bottom - drop + 1e-6) // cell_h)
    if rows < 1:
        return []
    rows = min(rows, math.ceil(wanted / columns))
    boxes: list[Box] = []
    for row in range(rows):
        for column in range(columns):
            if len(boxes) == wanted:
                break
            centre_x = left + cell_w / 2 + column * pitch
            centre_y = top - cell_h / 2 - row * cell_h - (cell_h / 2 if column % 2 else 0.0)
            boxes.append(Box(centre_x - piece.width / 2, centre_y - piece.height / 2, piece.width, piece.height))
    return boxes


def _back(front: Box, spec: SheetSpec) -> Box:
    """The mirror image of a front: about the long edge, the short edge, or the fold line."""
    return back_box(front, spec)


def hexagon(box: Box, grow: float = 0.0) -> tuple[tuple[float, float], ...]:
    """The corners of a hex token (points left and right, as pnp.drawing.render draws it), grown by `grow`."""
    width = box.width + 2 * grow * box.width / box.height
    height = box.height + 2 * grow
    cx, cy = box.x + box.width / 2, box.y + box.height / 2
    x, y = cx - width / 2, cy - height / 2
    return (
        (x, cy),
        (x + width / 4, y + height),
        (x + 3 * width / 4, y + height),
        (x + width, cy),
        (x + 3 * width / 4, y),
        (x + width / 4, y),
    )


def corner_ticks(box: Box, length: float) -> tuple[Mark, ...]:
    """A rectangular token's cut guide: each trim line carried out from its corners, `length`
    long, so the guides lie in the token's own bleed and go with it when cut."""
    marks = []
    for x, dx in ((box.x, -1), (box.x + box.width, 1)):
        for y, dy in ((box.y, -1), (box.y + box.height, 1)):
            marks.append(Mark(x, y, x + dx * length, y))
            marks.append(Mark(x, y, x, y + dy * length))
    return tuple(marks)


@dataclass(frozen=True, slots=True)
class KindSheet:
    """One sheet of a kind's own file: the slots of its faces, from face number `first` on."""

    first: int
    fronts: tuple[Box, ...]
    backs: tuple[Box, ...]
    front_clips: tuple[Box, ...]  # where each face may paint
    back_clips: tuple[Box, ...]
    honeycomb: bool  # hexagons interlocked: each face is clipped to its hexagon grown by its bleed


def kind_sheets(piece: Piece, spec: SheetSpec) -> list[KindSheet]:
    """The sheets of one kind's own file (`spec`: its own, bleed included): its grid, or for hex
    faces a honeycomb (with the token sheets' spacing) where that takes fewer sheets.

    pnp.drawing.pdf draws a kind's file from these and pnp.drawing.combine finds each face in it by them.
    """
    shared = grid(piece.width, piece.height, spec)
    grid_sheets = paginate(piece.count, shared.per_sheet)
    packed = _honeycomb_sheets(piece, spec) if piece.shape == "hex" and piece.count > 1 else None
    if packed is None or len(packed) >= len(grid_sheets):
        alike: dict[int, KindSheet] = {}  # full sheets share their slots and clips: worked out once
        for used in {len(span) for span in grid_sheets}:  # an empty slot is no neighbour: bleed beside it
            fronts, backs = shared.fronts[:used], shared.backs[:used]
            alike[used] = KindSheet(0, fronts, backs, clips(fronts, spec), clips(backs, spec), False)
        return [replace(alike[len(span)], first=span.start) for span in grid_sheets]
    result = []
    first = 0
    for sheet in packed:
        fronts = tuple(s.front for s in sheet)
        backs = tuple(s.back for s in sheet)
        result.append(
            KindSheet(
                first,
                fronts,
                backs,
                tuple(bleed_box(b, piece.bleed) for b in fronts),
                tuple(bleed_box(b, piece.bleed) for b in backs),
                True,
            )
        )
        first += len(sheet)
    return result


def _honeycomb_sheets(piece: Piece, spec: SheetSpec) -> list[list[Spot]] | None:
    try:
        return shelf_pack([piece], replace(spec, cutting="gutter"))
    except ImpositionError:
        return None


def bleed_box(box: Box, bleed: float) -> Box:
    """A trim box grown by its bleed all round: where a token on its own may paint."""
    return Box(box.x - bleed, box.y - bleed, box.width + 2 * bleed, box.height + 2 * bleed)
