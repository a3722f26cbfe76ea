"""Write cut sheets: fronts (and mirrored backs) of many faces onto pages, with crop marks.

The only stage that owns a reportlab canvas for cut sheets. Output is deterministic
(reportlab invariant mode: no timestamps or random ids) and uses only embedded TrueType fonts.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import product
from typing import IO, TYPE_CHECKING, Any

from reportlab.lib.colors import black
from reportlab.pdfgen.canvas import Canvas

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.problems import Finding
from pnp.drawing.elements import template_failures
from pnp.drawing.fonts import SANS, pdf_settings, register_bundled
from pnp.drawing.impose import Box, Mark, SheetSpec, crop_marks, fold_line, for_faces, label_spot, oriented
from pnp.drawing.render import Renderer
from pnp.drawing.shelf import Piece, hexagon, kind_sheets
from pnp.drawing.stablefont import track_fonts
from pnp.project.jsonfile import whole_number

if TYPE_CHECKING:
    from pnp.drawing.facestore import FaceStore

FACE_TAG = "PnpFace"  # marked-content tag around each face drawn on a cut sheet, in slot order
PAGES_DRAWN: collections.Counter[str] = collections.Counter()  # per kind name: pages drawn, not copied (tests)


@dataclass(frozen=True, slots=True)
class Face:
    """One physical card or token to print: a record, plus its expansion values."""

    record: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    origin: Any = None  # (record_file, index), to locate problems


def expand_faces(renderer: Renderer, records: list[tuple[Any, dict[str, Any]]]) -> tuple[list[Face], list[Finding]]:
    """Every face to print: copies of each record, and the layout's `expand` combinations.

    A `copies` or `expand` template that fails is a layout finding (`in_layout`), once per layout.
    """
    data = renderer.layout.data
    limits = current_limits()
    faces: list[Face] = []
    issues: list[Finding] = []
    copies_spec = data.get("copies")
    expand = data.get("expand") or {}
    templated = isinstance(copies_spec, str) or any(isinstance(spec, dict) for spec in expand.values())
    plain = not expand and copies_spec is None  # a face per copy of the record's own `copies`
    for origin, record in records:
        if plain:  # the common case, without building a template context per record
            copies = whole_number(record.get("copies", 1))
            copies = 1 if copies is None else copies
            if copies == 1 and len(faces) < limits.faces_per_kind:
                faces.append(Face(record, {"copy": 1}, origin))
                continue
            if 0 < copies <= limits.copies and len(faces) + copies <= limits.faces_per_kind:
                faces.extend([Face(record, {"copy": n}, origin) for n in range(1, copies + 1)])
                continue
        context = {**record, "record": record} if templated else record
        pointer = "/copies"
        try:
            copies = _int_value(renderer, copies_spec, context, default=record.get("copies", 1))
            axes: list[list[tuple[str, Any]]] = []
            for name, spec in expand.items():
                if isinstance(spec, dict):
                    pointer = f"/expand/{name}/from"
                    start = _int_value(renderer, spec["from"], context, 1)
                    pointer = f"/expand/{name}/to"
                    stop = _int_value(renderer, spec["to"], context, 1)
                    if stop - start >= limits.expand_range:
                        raise _OverLimit("expand_range", f"expand {name!r} from {start} to {stop}", pointer)
                    axes.append([(name, n) for n in range(start, stop + 1)])
                else:
                    axes.append([(name, value) for value in spec])
            if int(copies) > limits.copies:  # at the layout's `copies` template, when it gave the number
                raise _OverLimit("copies", f"{int(copies)} copies", "/copies" if copies_spec is not None else "")
            total = math.prod(len(axis) for axis in axes) * max(int(copies), 0)
            if len(faces) + total > limits.faces_per_kind:
                raise _OverLimit("faces_per_kind", f"{len(faces) + total} faces of this kind")
        except _OverLimit as over:
            issues.append(
                Finding("limit-exceeded", f"record {record.get('id')!r}: {over.message}", over.pointer, in_layout=True)
            )
            continue
        except template_failures() as err:
            message = (
                f"layout {renderer.layout.name!r}: {pointer[1:]} must give a whole number: {err} "
                f"(first met on record {record.get('id')!r})"
            )
            issues.append(Finding("template-error", message, pointer, in_layout=True))
            continue
        combos = [dict(combo) for combo in product(*axes)] if axes else [{}]
        for extra in combos:
            for copy_number in range(1, max(int(copies), 0) + 1):
                faces.append(Face(record, {**extra, "copy": copy_number}, origin))
    return faces, issues


def count_faces(renderer: Renderer, records: list[tuple[Any, dict[str, Any]]]) -> int:
    """How many faces `expand_faces` gives, without making them where the layout has no `copies`
    template and no `expand` (each record's own `copies`, all within the limits)."""
    data = renderer.layout.data
    if data.get("copies") is None and not data.get("expand"):
        limits = current_limits()
        total = 0
        for _, record in records:
            copies = whole_number(record.get("copies", 1))
            copies = 1 if copies is None else max(copies, 0)
            total += copies
            if copies > limits.copies or total > limits.faces_per_kind:
                break  # a limit met: counted as drawing counts it, below
        else:
            return total
    return len(expand_faces(renderer, records)[0])


def plainly_counted(renderer: Renderer, records: list[tuple[Any, dict[str, Any]]]) -> bool:
    """Whether counting the faces of `records` finds nothing: no `copies` template, no `expand`,
    and each record's own `copies` a whole number from 1 to the limit, all within the kind's
    limit (then each record's faces are its own: `expand_faces` of some records gives theirs)."""
    data = renderer.layout.data
    if data.get("copies") is not None or data.get("expand"):
        return False
    limits = current_limits()
    total = 0
    for _, record in records:
        copies = whole_number(record.get("copies", 1))
        if copies is None or not 1 <= copies <= limits.copies:
            return False
        total += copies
    return total <= limits.faces_per_kind


class _OverLimit(Exception):
    def __init__(self, name: str, what: str, pointer: str = "") -> None:
        super().__init__(name)
        self.message = exceeded(name, what)
        self.pointer = pointer  # in the layout: the template that gave the number


def _int_value(renderer: Renderer, spec: Any, context: dict[str, Any], default: Any) -> int:
    if spec is None:
        copies = whole_number(default)  # 2.0 (a JSON reader's integer) draws 2, as pnp check counts it
        return copies if copies is not None else 1
    if isinstance(spec, int):
        return spec
    template = renderer.counting.get(spec)
    if template is None:  # compiled once per layout, not once per record
        template = renderer.counting[spec] = renderer.env.from_string(spec)
    text = template.render(context).strip()
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{spec!r} gives {text!r}, not a whole number") from None


def new_canvas(handle: IO[bytes], pagesize: tuple[float, float], title: str) -> Canvas:
    """A deterministic canvas (invariant mode) whose only font is an embedded TrueType one."""
    pdf_settings()
    register_bundled()
    canvas = Canvas(
        handle, pagesize=pagesize, invariant=1, initialFontName=SANS.regular, initialFontSize=9, pageCompression=1
    )
    canvas.setTitle(title)
    canvas.setCreator("pnp")
    canvas.setAuthor("pnp")
    return canvas


def write_cut_sheets(
    handle: IO[bytes],
    renderer: Renderer,
    faces: list[Face],
    spec: SheetSpec,
    title: str,
    tick: Callable[[int], None] | None = None,
    name: str = "",
    store: FaceStore | None = None,
    save: bool = True,
) -> list[tuple[Face, Finding]]:
    """Draw every face, fronts then (if the layout has a back and duplex is on) the backs.

    `name` (the kind's schema title, or "mygame.unit") is printed in each sheet's margin with the sheet
    number, to sort a stack.
    `store` (pnp.drawing.facestore) reuses the drawing of faces that did not change. `save=False`
    (`pnp check`: only what drawing finds is wanted) leaves the PDF unwritten: no page is
    formatted or compressed.
    """
    register_bundled()
    spec = replace(for_faces(spec, renderer.has_back), bleed=renderer.bleed)
    spec = oriented(spec, renderer.width, renderer.height)  # [paper] orientation: the page turned for this kind
    piece = Piece(0, len(faces), renderer.width, renderer.height, renderer.bleed, renderer.shape, renderer.has_back)
    sheets = kind_sheets(piece, spec)
    canvas = new_canvas(handle, (spec.page_width, spec.page_height), title)
    problems: list[tuple[Face, Finding]] = []
    backs = spec.duplex != "none" and renderer.has_back
    if store is not None:
        store.begin(canvas, renderer, faces, backs)
    alike = _AlikeFindings(renderer) if store is None and not save else None
    for number, sheet in enumerate(sheets, 1):
        on_sheet = faces[sheet.first : sheet.first + len(sheet.fronts)]
        fronts_side = ("front", sheet.fronts, sheet.front_clips)
        backs_side = ("back", sheet.backs, sheet.back_clips)
        label = f"{name} {number}/{len(sheets)}" if name else ""
        if spec.duplex == "fold":  # one page: fronts, and their backs across the fold line
            sides = [fronts_side, backs_side] if backs else [fronts_side]
            _page(canvas, renderer, sides, on_sheet, spec, problems, label, sheet.honeycomb, store, alike)
            if tick is not None:
                tick(len(on_sheet))
            continue
        fronts_label = f"{label}, fronts" if label else ""
        _page(canvas, renderer, [fronts_side], on_sheet, spec, problems, fronts_label, sheet.honeycomb, store, alike)
        if tick is not None:
            tick(len(on_sheet))
        if backs:
            backs_label = f"{label}, backs" if label else ""
            _page(canvas, renderer, [backs_side], on_sheet, spec, problems, backs_label, sheet.honeycomb, store, alike)
    if not faces:
        canvas.showPage()
    if store is not None:
        store.finish(canvas)
    if save:
        canvas.save()
    return problems


Side = tuple[str, tuple[Box, ...], tuple[Box, ...]]  # face name, slots, clips


class _AlikeFindings:
    """For a drawing that is never written out (`pnp check`): a face that every record draws alike
    (`Renderer.alike_faces`, a deck's common back) is drawn once, when it finds nothing (a finding
    names its record: such a face is drawn on each card)."""

    def __init__(self, renderer: Renderer) -> None:
        self.faces = renderer.alike_faces()
        self.found: dict[str, list[Finding]] = {}

    def draw(
        self, canvas: Canvas, renderer: Renderer, side: str, face: Face, box: Box, clip: Box | None
    ) -> list[Finding]:
        chosen = renderer.face_for(side, face.record)
        if chosen not in self.faces:
            return renderer.draw(canvas, side, face.record, box, face.extra, clip)
        found = self.found.get(chosen)
        if found is None:
            found = renderer.draw(canvas, side, face.record, box, face.extra, clip)
            if not found:  # what a face finds names its record: such a face is drawn on each card
                self.found[chosen] = found
        return found


def _page(
    canvas: Canvas,
    renderer: Renderer,
    sides: list[Side],
    faces: list[Face],
    spec: SheetSpec,
    problems: list[tuple[Face, Finding]],
    label: str,
    honeycomb: bool,
    store: FaceStore | None,
    alike: _AlikeFindings | None = None,
) -> None:
    """One page: copied from `store` when it keeps a page showing the same faces at the same
    slots, else drawn (and kept for the next build)."""
    if store is None:
        _draw_page(canvas, renderer, sides, faces, spec, problems, label, honeycomb, alike=alike)
        return
    key = store.page_key(sides, faces, label, honeycomb)
    if store.replay_page(canvas, renderer, key, problems):
        return
    frame_fonts: set[tuple[str, int]] = set()
    _draw_page(canvas, renderer, sides, faces, spec, problems, label, honeycomb, store, frame_fonts)
    store.keep_page(canvas, key, frame_fonts)


def _draw_page(
    canvas: Canvas,
    renderer: Renderer,
    sides: list[Side],
    faces: list[Face],
    spec: SheetSpec,
    problems: list[tuple[Face, Finding]],
    label: str,
    honeycomb: bool = False,
    store: FaceStore | None = None,
    frame_fonts: set[tuple[str, int]] | None = None,
    alike: _AlikeFindings | None = None,
) -> None:
    """One page: each side's faces in slot order (each marked as a FACE_TAG), crop marks, label
    (the fonts these name go to `frame_fonts`).

    A honeycomb's faces are each clipped to their hexagon grown by the bleed, since their bleed
    boxes overlap, and carry their own cut guide (pnp.drawing.render's hairline): no crop marks.
    """
    PAGES_DRAWN[renderer.layout.name] += 1
    used: list[Box] = []
    for face_name, slots, clips in sides:
        for face, box, clip in zip(faces, slots, clips, strict=False):
            canvas.addLiteral(f"/{FACE_TAG} BMC")  # lets pnp.drawing.combine lift each face out of this page
            if honeycomb:
                canvas.saveState()
                outline = canvas.beginPath()
                corners = hexagon(box, renderer.bleed)
                outline.moveTo(*corners[0])
                for corner in corners[1:]:
                    outline.lineTo(*corner)
                outline.close()
                canvas.clipPath(outline, stroke=0, fill=0)
            if store is not None:
                found = store.draw(canvas, renderer, face_name, face, box, clip)
            elif alike is not None:
                found = alike.draw(canvas, renderer, face_name, face, box, clip)
            else:
                found = renderer.draw(canvas, face_name, face.record, box, face.extra, clip)
            for issue in found:
                problems.append((face, issue))
            if honeycomb:
                canvas.restoreState()
            canvas.addLiteral("EMC")
        used.extend(slots[: len(faces)])
    marks = () if honeycomb else _crop_marks(tuple(used), spec)
    fold = fold_line(tuple(used), spec)
    if frame_fonts is not None:
        track_fonts(canvas._doc, frame_fonts)
    try:
        _marks(canvas, marks, fold)
        _registration(canvas, label, spec, ink_extent(tuple(used), spec.bleed), marks + fold)
    finally:
        if frame_fonts is not None:
            track_fonts(canvas._doc, None)
    canvas.showPage()


@lru_cache(maxsize=64)
def _crop_marks(used: tuple[Box, ...], spec: SheetSpec) -> tuple[Mark, ...]:
    """Every full sheet of a kind has the same slots: its marks are worked out once."""
    return tuple(crop_marks(used, spec))


@dataclass(frozen=True, slots=True)
class Frame:
    """What a sheet carries besides its faces: crop marks and the registration label."""

    marks: tuple[Mark, ...]
    label: str
    fold: tuple[Mark, ...] = ()
    spec: SheetSpec | None = None  # its own page (turned by [paper] orientation), when not the file's
    ink: tuple[float, float] = (math.inf, math.inf)  # the lowest and leftmost ink on it (ink_extent)


def write_frames(handle: IO[bytes], frames: list[Frame], spec: SheetSpec, title: str) -> None:
    """Pages holding only crop marks and labels, for faces placed on them afterwards (pnp.drawing.combine)."""
    canvas = new_canvas(handle, (spec.page_width, spec.page_height), title)
    for frame in frames:
        page = frame.spec or spec
        canvas.setPageSize((page.page_width, page.page_height))
        _marks(canvas, frame.marks, frame.fold)
        _registration(canvas, frame.label, page, frame.ink, frame.marks + frame.fold)
        canvas.showPage()
    if not frames:
        canvas.showPage()
    canvas.save()


def ink_extent(boxes: tuple[Box, ...], bleed: float) -> tuple[float, float]:
    """The lowest and the leftmost ink of faces at `boxes`: where the registration label may go."""
    if not boxes:
        return (math.inf, math.inf)
    return (min(b.y for b in boxes) - bleed, min(b.x for b in boxes) - bleed)


def _registration(
    canvas: Canvas,
    label: str,
    spec: SheetSpec,
    ink: tuple[float, float] = (math.inf, math.inf),
    marks: tuple[Mark, ...] = (),
) -> None:
    """The sheet's name in its bottom margin ("Unit card 3/9, fronts"), to sort and match printed sheets,
    where no crop mark crosses it (pnp.drawing.impose.label_spot): slid along the margin between the
    marks, or in the left margin, turned, when the faces come too close to the bottom edge (9 cards on Letter)."""
    if not label:
        return
    canvas.setFillColor(black)
    canvas.setFont(SANS.regular, 6)
    centre = spec.page_width / (4 if spec.duplex == "fold" else 2)  # in fold, clear of the fold line's mark
    spot = label_spot(canvas.stringWidth(label, SANS.regular, 6), spec, marks, ink, centre)
    if spot.turned:
        canvas.saveState()
        canvas.translate(spot.x, spot.y)
        canvas.rotate(90)
        canvas.drawCentredString(0, 0, label)
        canvas.restoreState()
        return
    canvas.drawCentredString(spot.x, spot.y, label)


def _marks(canvas: Canvas, marks: tuple[Mark, ...], fold: tuple[Mark, ...] = ()) -> None:
    """Crop marks as solid hairlines; the fold line (fold-and-glue) dashed."""
    canvas.setStrokeColor(black)
    canvas.setLineWidth(0.3)
    for mark in marks:
        canvas.line(mark.x1, mark.y1, mark.x2, mark.y2)
    if fold:
        canvas.saveState()
        canvas.setDash(1.5, 1.5)
        for mark in fold:
            canvas.line(mark.x1, mark.y1, mark.x2, mark.y2)
        canvas.restoreState()
