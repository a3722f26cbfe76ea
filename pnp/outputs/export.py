"""`pnp export`: files for somewhere other than the home printer.

- printshop: one card per page at trim + bleed, with TrimBox and BleedBox on every page, backs and
  fronts interleaved in the order print shops ask for; elements outside the safe zone are warned about.
- png: one PNG per card face, rasterised with pypdfium2 from those print-shop pages.
- tts: Tabletop Simulator deck sheets (at most 10 x 7 slots, the last one the hidden face, at most
  4096 px a side) with a back image and a JSON file per sheet giving what to type when importing.
- gallery: a static HTML proof page (Jinja2 template in pnp/templates/), every card as an image with
  its record's fields and its problems, searchable by name, opening from the file system.

There is one drawing path: every face is drawn by `Renderer.draw` onto a print-shop page, and the
images are rasterised from those pages, so every export shows exactly what prints. Like `pnp build`:
a project with errors writes nothing, every file is written atomically, a file whose inputs did
not change is not rewritten (digests in the output folder's manifest), output is deterministic.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import io
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from pnp.core.output import Manifest, OutputResult, OutputRun, atomic_write, digest, remove_output
from pnp.core.problems import Finding, Problem
from pnp.core.progress import progress_bar
from pnp.drawing.findings import asset_files, code_digest, place
from pnp.drawing.impose import MM, Box
from pnp.project.config import ConfigError, Game, Project
from pnp.project.loaded import LoadedProject, load_project_records
from pnp.verify.run import CheckOptions, check_loaded

if TYPE_CHECKING:
    from PIL.Image import Image

    from pnp.drawing.pdf import Face
    from pnp.drawing.render import Renderer
    from pnp.project.layout import Layout
    from pnp.translation.translate import Fallbacks, Localized

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
GALLERY_TEMPLATE = "gallery.html.j2"
INCH = 72.0


@dataclass(frozen=True, slots=True)
class Preset:
    """A print shop's file spec for one card or token size (points): trim, bleed, safe zone."""

    width: float
    height: float
    bleed: float
    safe: float  # inside the trim: what must not be cut off stays this far from it


# The US print-on-demand card printers ask for 1/8 in bleed and 1/8 in safe zone on their inch
# sizes; European printers for 3 mm bleed and 3 mm safe on millimetre sizes; tokens 2 mm each.
PRESETS: dict[str, Preset] = {
    "poker-us": Preset(2.5 * INCH, 3.5 * INCH, INCH / 8, INCH / 8),  # 2.75 x 3.75 in with bleed
    "bridge-us": Preset(2.25 * INCH, 3.5 * INCH, INCH / 8, INCH / 8),
    "mini-us": Preset(1.75 * INCH, 2.5 * INCH, INCH / 8, INCH / 8),
    "tarot-us": Preset(2.75 * INCH, 4.75 * INCH, INCH / 8, INCH / 8),
    "poker": Preset(63 * MM, 88 * MM, 3 * MM, 3 * MM),  # 69 x 94 mm with bleed
    "bridge": Preset(57 * MM, 89 * MM, 3 * MM, 3 * MM),
    "mini": Preset(44 * MM, 63 * MM, 3 * MM, 3 * MM),
    "tarot": Preset(70 * MM, 120 * MM, 3 * MM, 3 * MM),
    "square": Preset(70 * MM, 70 * MM, 3 * MM, 3 * MM),
    "token-20": Preset(20 * MM, 20 * MM, 2 * MM, 2 * MM),
    "token-25": Preset(25 * MM, 25 * MM, 2 * MM, 2 * MM),
    "token-30": Preset(30 * MM, 30 * MM, 2 * MM, 2 * MM),
    "token-38": Preset(38 * MM, 38 * MM, 2 * MM, 2 * MM),
}
TTS_MAX_COLUMNS = 10
TTS_MAX_ROWS = 7
TTS_MIN_SIDE = 2  # Tabletop Simulator's importer takes 2-10 columns and 2-7 rows
TTS_MAX_PIXELS = 4096
TTS_PER_SHEET = TTS_MAX_COLUMNS * TTS_MAX_ROWS - 1  # the last slot holds the hidden face
SAFE_CODE = "outside-safe-zone"
PLAIN_HIDDEN = "#808080"
EPSILON = 0.01  # points
REF_FILTER = re.compile(r"\|\s*ref\b")
RECORD_PREFIX = re.compile(r"^record '[^']*'(: |, )")  # redundant on the gallery's card
Order = Literal["back-front", "front-back"]
Side = Literal["front", "back"]


@dataclass(frozen=True, slots=True)
class ExportOptions:
    kinds: tuple[str, ...] = ()
    force: bool = False
    progress: bool = False
    dpi: int = 300
    bleed: float | None = None  # printshop: points, overriding the layout's (or the preset's) bleed
    preset: str | None = None  # printshop: a key of PRESETS
    order: Order = "back-front"  # printshop: back 1, front 1, back 2, ... or front 1, back 1, ...
    with_bleed: bool = False  # png: keep the bleed around each image
    with_errors: bool = False  # gallery: write the page even when the project has errors
    lang: str = ""  # a translation (pnp.translation.translate): exported into output/<lang>/
    fallback: bool = False  # with lang: draw the source text where a translation is missing (marked in the gallery)


ExportResult = OutputResult


def parse_length(text: str) -> float:
    """'3mm', '0.125in', '1/8in', '9pt' -> points (at most 25 mm)."""
    key = text.strip().lower().replace(" ", "")
    for unit, factor in (("mm", MM), ("in", INCH), ("pt", 1.0)):
        if key.endswith(unit):
            try:
                value = float(Fraction(key[: -len(unit)])) * factor
            except (ValueError, ZeroDivisionError):
                break
            if not 0 <= value <= 25 * MM:
                raise ConfigError(f"bleed {text!r} is out of range; use 0 to 25 mm")
            return value
    raise ConfigError(f"bleed {text!r}: give a length with its unit, such as 3mm, 0.125in, 1/8in or 9pt")


# --- shared: load, check, plan every kind -------------------------------------------------


@dataclass(slots=True)
class KindPlan:
    """One kind to export: its layout, a renderer, the faces to draw and their file names."""

    kind: str
    game: Game
    layout: Layout
    renderer: Renderer
    faces: list[Face]
    names: list[str]
    key: str  # digest of the kind's inputs (records, layout, icons, assets, pnp itself)
    origins: dict[str, Any] = field(default_factory=dict)  # record id -> (record_file, index)
    blocked: bool = False  # copies or expand could not be counted: the kind is not written (like pnp build)
    relocate: Callable[[list[Any], str], list[Any]] | None = None  # a language: overflows go to the catalog

    @property
    def units(self) -> int:
        """Progress units: one per face and side."""
        return len(self.faces) * len(self.sides)

    @property
    def sides(self) -> tuple[Side, ...]:
        return ("front", "back") if self.renderer.has_back else ("front",)


class Session:
    """One export run: the checked project, the manifest, and what was written or skipped."""

    def __init__(self, project: Project, options: ExportOptions) -> None:
        self.project = project
        self.options = options
        self.loaded: LoadedProject = load_project_records(project)
        self.problems: list[Problem] = list(check_loaded(self.loaded, CheckOptions(render=False)))  # it draws itself
        self.layouts = self.loaded.layouts
        self.localized: Localized | None = None
        if options.lang:  # a translation: the records and layouts in that language (pnp.translation.translate)
            from pnp.translation.translate import localize

            self.localized = localize(self.loaded, self.layouts, self.problems, options.lang, options.fallback, "")
            self.loaded, self.layouts, self.problems = (
                self.localized.loaded,
                self.localized.layouts,
                self.localized.problems,
            )
        self.manifest = Manifest(project.output)
        self.code = code_digest()
        self.written: list[Path] = []
        self.skipped: list[Path] = []
        self.removed: list[Path] = []

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems)

    def result(self) -> ExportResult:
        if self.written or self.removed:
            self.manifest.save()
        problems = sorted(set(self.problems), key=Problem.sort_key)
        return ExportResult(tuple(self.written), tuple(self.skipped), tuple(problems))

    def plans(self, distinct: bool = False, all_kinds: bool = False) -> list[KindPlan]:
        """Every kind with a layout (or the KINDs asked for); `distinct`: one face per record and expansion."""
        from pnp.drawing.pdf import expand_faces
        from pnp.drawing.render import Renderer

        project, loaded, layouts = self.project, self.loaded, self.layouts
        icons = loaded.icons
        icons_file = project.layouts / "icons.json"
        plans: list[KindPlan] = []
        for kind in loaded.kinds_to_build(() if all_kinds else self.options.kinds, layouts):
            layout = layouts.by_kind[kind]
            entries = list(loaded.records(kind))
            records = [record for _, _, record in entries]
            renderer = Renderer(layout, project.root, icons, self.lookup)
            faces, issues = expand_faces(renderer, [((f, i), r) for f, i, r in entries])
            origins = {str(r.get("id")): (f, i) for f, i, r in entries}
            issues = [*renderer.findings, *issues]
            self.problems.extend(source.locate(finding) for source, finding in place(layout, issues, []))
            if distinct:
                faces = [face for face in faces if face.extra.get("copy", 1) == 1]
            key = digest(
                self.code,
                layout.data,
                orjson.dumps(records).decode(),
                orjson.dumps(self.referenced(layout, records)).decode(),
                files=[*layout.files, icons_file, *asset_files(loaded, layout, kind)],
            )
            names = face_names(faces)
            relocate = self.localized.relocate if self.localized else None
            plans.append(
                KindPlan(kind, project.game(kind), layout, renderer, faces, names, key, origins, bool(issues), relocate)
            )
        return plans

    def lookup(self, record_id: str) -> dict[str, Any] | None:
        """The record with this id, for the layouts' `ref` filter (a referenced record's name)."""
        return self.loaded.lookup(record_id)

    def referenced(self, layout: Layout, records: list[dict[str, Any]]) -> list[Any]:
        """Records that `records` reference, when the layout shows them (`| ref`): their changes redraw the kind."""
        if not REF_FILTER.search(json.dumps(layout.data)):
            return []
        ids: set[str] = set()
        stack: list[Any] = [{k: v for k, v in r.items() if k != "id"} for r in records]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str) and value in self.loaded.index.first:
                ids.add(value)
        return [self.lookup(i) for i in sorted(ids)]

    def fresh(self, targets: list[Path], key: str) -> bool:
        return not self.options.force and bool(targets) and all(self.manifest.fresh(t, key) for t in targets)

    def skip_if_fresh(self, plan: KindPlan, targets: list[Path], key: str, tick: Callable[[int], None]) -> bool:
        """True (and the targets counted as up to date) when a kind need not be exported again."""
        if not self.fresh(targets, key):
            return False
        self.skipped.extend(targets)
        tick(plan.units)
        return True

    def write(self, target: Path, data: bytes, key: str) -> None:
        atomic_write(target, lambda handle: handle.write(data))
        self.manifest.record(target, key)
        self.written.append(target)

    def remove_stale(self, targets: Iterable[Path], candidates: Iterable[Path]) -> None:
        """Delete earlier exports of a kind that this export no longer produces (a record was removed)."""
        keep = {t.resolve() for t in targets}
        for path in candidates:
            if path.is_file() and path.resolve() not in keep:
                remove_output(path)
                self.removed.append(path)
                self.manifest.entries.pop(path.relative_to(self.manifest.folder).as_posix(), None)

    def progress(self, plans: list[KindPlan]) -> Callable[[int], None]:
        return progress_bar(self.options.progress, sum(p.units for p in plans))


def _in_output_run(
    run: Callable[[Project, ExportOptions], ExportResult],
) -> Callable[[Project, ExportOptions], ExportResult]:
    """An export as one OutputRun: the output folder locked, every file put in place at the end."""

    @functools.wraps(run)
    def locked(project: Project, options: ExportOptions) -> ExportResult:
        if options.lang:  # a translation is exported into output/<lang>/
            from pnp.translation.translate import check_language

            check_language(project, options.lang)
            project = replace(project, output=project.output / options.lang)
        with OutputRun(project.output):
            return run(project, options)

    return locked


def face_names(faces: list[Face]) -> list[str]:
    """File stems: the record id, with -1, -2, ... when a record has several faces (copies, expansions)."""
    bases = [_safe_name(face.record.get("id")) for face in faces]
    totals = Counter(bases)
    seen: Counter[str] = Counter()
    used: set[str] = set()
    names: list[str] = []
    for base in bases:
        seen[base] += 1
        name = base if totals[base] == 1 else f"{base}-{seen[base]}"
        while name in used:
            name += "-x"
        used.add(name)
        names.append(name)
    return names


SAFE_NAME_MAX = 100  # with -2-front.png and a temporary's .NAME.xxxxxxxx.tmp, far below 255 bytes


def _safe_name(value: Any) -> str:
    text = re.sub(r"[^a-z0-9_.-]+", "-", str(value if value is not None else "record").lower()).strip("-.")
    if len(text) > SAFE_NAME_MAX:  # an id of any length: a file name is at most 255 bytes
        text = f"{text[:SAFE_NAME_MAX].rstrip('-.')}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return text or "record"


def no_tick(count: int) -> None:
    """The progress callback when another step counts the work."""


# --- drawing: the print-shop PDF, the one path every export goes through ---------------------


@dataclass(slots=True)
class Drawn:
    pdf: bytes
    pages: list[tuple[int, Side]]  # (face index, side) of each page
    problems: list[Problem]
    bleed: float

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems)


def draw_pages(
    plan: KindPlan, bleed: float, order: Order, title: str, tick: Callable[[int], None], tolerant: bool = False
) -> Drawn:
    """Every face of `plan` on its own page of trim + 2 * bleed, TrimBox and BleedBox set on every page."""
    from pnp.drawing.pdf import new_canvas

    renderer = plan.renderer
    renderer.bleed = bleed  # the background and bleed rects reach exactly to the page edge
    width, height = renderer.width + 2 * bleed, renderer.height + 2 * bleed
    buffer = io.BytesIO()
    canvas = new_canvas(buffer, (width, height), title)
    canvas.setTrimBox((bleed, bleed, width - bleed, height - bleed))  # applies to this and every later page
    canvas.setBleedBox((0, 0, width, height))
    box = Box(bleed, bleed, renderer.width, renderer.height)
    sides: tuple[Side, ...] = plan.sides if order == "front-back" else tuple(reversed(plan.sides))
    pages: list[tuple[int, Side]] = []
    problems: list[Problem] = []
    for index, face in enumerate(plan.faces):
        for side in sides:
            try:
                issues = renderer.draw(canvas, side, face.record, box, face.extra)
            except Exception as err:  # noqa: BLE001 - only the gallery draws records that failed pnp check
                if not tolerant:
                    raise
                message = f"record {face.record.get('id')!r}, layout {plan.layout.name!r}: could not draw: {err}"
                issues = [Finding("layout-error", message)]
            located = place(plan.layout, [], [(face.origin, issue) for issue in issues])
            if plan.relocate is not None:
                located = plan.relocate(located, plan.kind)
            problems.extend(source.locate(finding) for source, finding in located)
            canvas.showPage()
            pages.append((index, side))
        tick(len(sides))
    if not pages:
        canvas.showPage()
    canvas.save()
    return Drawn(buffer.getvalue(), pages, problems, bleed)


def rasterise(
    plan: KindPlan, drawn: Drawn, dpi: float, with_bleed: bool, tick: Callable[[int], None] | None = None
) -> Iterator[Image]:
    """RGB images of the pages of `drawn`, cropped to the trim unless `with_bleed`.

    Sizes are the page (or trim) size at `dpi`, rounded to whole pixels: a 2.5 x 3.5 in card at
    300 dpi is 750 x 1050 px (825 x 1125 with 1/8 in bleed). pdfium renders with a matrix, so the
    crop may start at a fraction of a pixel (1/8 in at 300 dpi is 37.5 px) and the scale is exact.
    """
    try:
        import pypdfium2 as pdfium
        import pypdfium2.raw as pdfium_c
    except ImportError:
        raise ConfigError("image exports need pypdfium2: pip install pypdfium2") from None
    scale = dpi / INCH
    renderer = plan.renderer
    if with_bleed:
        width_pt, height_pt, offset = renderer.width + 2 * drawn.bleed, renderer.height + 2 * drawn.bleed, 0.0
    else:
        width_pt, height_pt, offset = renderer.width, renderer.height, drawn.bleed * scale
    width, height = max(1, round(width_pt * scale)), max(1, round(height_pt * scale))
    document = pdfium.PdfDocument(drawn.pdf)
    try:
        for index in range(len(drawn.pages)):
            page = document[index]
            bitmap = pdfium.PdfBitmap.new_native(width, height, pdfium_c.FPDFBitmap_BGR, rev_byteorder=False)
            bitmap.fill_rect((255, 255, 255, 255), 0, 0, width, height)
            matrix = pdfium_c.FS_MATRIX(scale, 0, 0, scale, -offset, -offset)
            clip = pdfium_c.FS_RECTF(0, 0, width, height)
            pdfium_c.FPDF_RenderPageBitmapWithMatrix(bitmap, page, matrix, clip, pdfium_c.FPDF_ANNOT)
            image = bitmap.to_pil().convert("RGB").copy()
            bitmap.close()
            page.close()
            if tick is not None:
                tick(1)
            yield image
    finally:
        document.close()


def png_bytes(image: Image, dpi: float | None = None) -> bytes:
    """PNG without timestamps or other varying metadata: the same pixels give the same bytes."""
    buffer = io.BytesIO()
    options: dict[str, Any] = {"format": "PNG", "compress_level": 6}
    if dpi:
        options["dpi"] = (dpi, dpi)
    image.save(buffer, **options)
    return buffer.getvalue()


# --- safe zone ---------------------------------------------------------------------------------


def safe_zone_problems(plan: KindPlan, preset: str | None = None) -> list[Problem]:
    """Warnings for drawn elements whose box leaves the safe zone (see docs/export.md for the rule):
    the layout's `safe`, or the print shop's with a preset."""
    from pnp.drawing.render import TEMPLATE_FAILURES

    renderer = plan.renderer
    width, height, safe = renderer.width, renderer.height, renderer.safe
    zone = f"layout {plan.layout.name!r}"
    if preset:
        safe, zone = _preset(preset).safe, f"preset {preset!r}"
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for face in plan.faces:
        record = face.record
        context = {**record, "record": record, "palette": renderer.palettes, **face.extra}
        for side in plan.sides:
            _, elements = renderer.faces[renderer.face_for(side, record)]
            for element in elements:
                marker = (side, element.name)  # where an element sits is the layout's: once per layout
                if marker in seen:
                    continue
                try:
                    if element.when is not None and not element.when(**context):
                        continue
                    if element.kind == "text" and not renderer.text_of(element, "text", context):
                        continue
                    if element.kind == "image" and not renderer.text_of(element, "src", context):
                        continue
                except TEMPLATE_FAILURES:
                    continue  # reported as a render problem
                x0, y0, x1, y1 = _element_bounds(renderer, element)
                if element.kind == "rect" and element.spec.get("bleed"):
                    continue  # a background meant to run into the bleed
                if x0 <= EPSILON and y0 <= EPSILON and x1 >= width - EPSILON and y1 >= height - EPSILON:
                    continue  # covers the whole card: a background
                edges = {"left": x0, "top": y0, "right": width - x1, "bottom": height - y1}
                edge, distance = min(edges.items(), key=lambda item: item[1])
                if distance >= safe - EPSILON:
                    continue
                seen.add(marker)
                if distance < -EPSILON:
                    where = f"runs {-distance / MM:.1f} mm past the {edge} edge"
                elif distance <= EPSILON:
                    where = f"touches the {edge} edge"
                else:
                    where = f"comes within {distance / MM:.1f} mm of the {edge} edge"
                message = (
                    f"{side} element {element.name!r} ({element.kind}) {where}, outside the {safe / MM:g} mm "
                    f"safe zone of {zone}; move it inwards "
                    '(a background: a rect with "bleed": true)'
                )
                found = Finding(SAFE_CODE, message, element.pointer, in_layout=True)
                problems.extend(source.locate(f) for source, f in place(plan.layout, [found], []))
    return problems


def _element_bounds(renderer: Renderer, element: Any) -> tuple[float, float, float, float]:
    """An element's box in points from the trim's top-left corner, y downwards: x0, y0, x1, y1."""
    spec, scale = element.spec, renderer.scale
    if element.kind == "polygon":
        xs = [float(p[0]) * scale for p in spec.get("points", [])] or [0.0]
        ys = [float(p[1]) * scale for p in spec.get("points", [])] or [0.0]
        return min(xs), min(ys), max(xs), max(ys)
    if element.kind == "line":
        x2, y2 = float(spec.get("x2", 0)) * scale, float(spec.get("y2", 0)) * scale
        return min(element.x, x2), min(element.y, y2), max(element.x, x2), max(element.y, y2)
    w = element.w or (renderer.width - element.x)
    h = element.h or (renderer.height - element.y)
    return element.x, element.y, element.x + w, element.y + h


# --- pnp export printshop ---------------------------------------------------------------------


@_in_output_run
def run_printshop(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/printshop/<kind>.pdf: one face per page at trim + bleed."""
    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    bleeds = [_printshop_bleed(plan, options) for plan in plans]  # a wrong preset stops before anything is written
    for plan in plans:
        session.problems.extend(safe_zone_problems(plan, options.preset))
    tick = session.progress(plans)
    for plan, bleed in zip(plans, bleeds, strict=True):
        if plan.blocked:
            tick(plan.units)
            continue
        target = project.output / plan.game.folder / "printshop" / f"{plan.kind}.pdf"
        key = digest(plan.key, "printshop", round(bleed, 6), options.order)
        if session.skip_if_fresh(plan, [target], key, tick):
            continue
        drawn = draw_pages(plan, bleed, options.order, f"{plan.game.title}: {plan.kind} (print shop)", tick)
        session.problems.extend(drawn.problems)
        if drawn.failed:
            continue  # the previous file stays as it was
        session.write(target, drawn.pdf, key)
    return session.result()


def _printshop_bleed(plan: KindPlan, options: ExportOptions) -> float:
    renderer = plan.renderer
    bleed = renderer.bleed
    if options.preset:
        preset = _preset(options.preset)
        width, height, bleed = preset.width, preset.height, preset.bleed
        if abs(renderer.width - width) > 0.1 * MM or abs(renderer.height - height) > 0.1 * MM:
            raise ConfigError(
                f"preset {options.preset!r} is for {width / MM:.1f} x {height / MM:.1f} mm cards, but kind "
                f"{plan.kind!r} (layout {plan.layout.name!r}) is {renderer.width / MM:.1f} x "
                f"{renderer.height / MM:.1f} mm; "
                "name the kinds of that size, or give --bleed instead"
            )
    if options.bleed is not None:
        bleed = options.bleed
    return bleed


def _preset(name: str) -> Preset:
    if name not in PRESETS:
        close = difflib.get_close_matches(name, sorted(PRESETS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(f"unknown preset {name!r}; {hint}presets: {', '.join(PRESETS)}")
    return PRESETS[name]


# --- pnp export png ---------------------------------------------------------------------------


@_in_output_run
def run_png(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/png/<kind>/<record-id>[-<n>]-front.png (and -back.png)."""
    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    tick = session.progress(plans)
    for plan in plans:
        if plan.blocked:
            tick(plan.units)
            continue
        folder = project.output / plan.game.folder / "png" / plan.kind
        targets = {(i, side): folder / f"{name}-{side}.png" for i, name in enumerate(plan.names) for side in plan.sides}
        key = digest(plan.key, "png", options.dpi, options.with_bleed)
        if session.skip_if_fresh(plan, list(targets.values()), key, tick):
            continue
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick)  # ticks as it rasterises
        session.problems.extend(drawn.problems)
        if drawn.failed:
            tick(len(drawn.pages))
            continue
        images = rasterise(plan, drawn, options.dpi, options.with_bleed, tick)
        for page, image in zip(drawn.pages, images, strict=True):
            session.write(targets[page], png_bytes(image, options.dpi), key)
        session.remove_stale(targets.values(), folder.glob("*.png"))
    return session.result()


# --- pnp export tts ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SheetGrid:
    columns: int
    rows: int
    cell_width: int
    cell_height: int

    @property
    def size(self) -> tuple[int, int]:
        return self.columns * self.cell_width, self.rows * self.cell_height


def tts_grid(count: int, card_width: int, card_height: int) -> SheetGrid:
    """The grid for `count` cards plus the hidden face: the largest cards within 4096 px, then the fewest slots."""
    if not 0 < count <= TTS_PER_SHEET:
        raise ValueError(f"a sheet holds 1 to {TTS_PER_SHEET} cards, not {count}")
    best: tuple[tuple[float, int, int], int, int, float] | None = None
    for columns in range(TTS_MIN_SIDE, TTS_MAX_COLUMNS + 1):
        for rows in range(TTS_MIN_SIDE, TTS_MAX_ROWS + 1):
            if columns * rows < count + 1:
                continue
            scale = min(1.0, TTS_MAX_PIXELS / (columns * card_width), TTS_MAX_PIXELS / (rows * card_height))
            rank = (-scale, columns * rows, columns)
            if best is None or rank < best[0]:
                best = (rank, columns, rows, scale)
    assert best is not None
    _, columns, rows, scale = best
    return SheetGrid(columns, rows, max(1, math.floor(card_width * scale)), max(1, math.floor(card_height * scale)))


def split_sheets(count: int) -> list[range]:
    """Cards per sheet: as few sheets as the 69-card limit allows, filled evenly (70 cards: 35 + 35)."""
    sheets = max(1, math.ceil(count / TTS_PER_SHEET))
    base, extra = divmod(count, sheets)
    ranges: list[range] = []
    start = 0
    for n in range(sheets):
        size = base + (1 if n < extra else 0)
        ranges.append(range(start, start + size))
        start += size
    return [r for r in ranges if len(r)]


def compose_sheet(images: list[Image], hidden: Image, grid: SheetGrid) -> Image:
    from PIL import Image as PILImage

    sheet = PILImage.new("RGB", grid.size, (255, 255, 255))
    cell = (grid.cell_width, grid.cell_height)
    slots = grid.columns * grid.rows
    for slot, image in [*enumerate(images), (slots - 1, hidden)]:
        column, row = slot % grid.columns, slot // grid.columns
        fitted = image if image.size == cell else image.resize(cell, PILImage.Resampling.LANCZOS)
        sheet.paste(fitted.convert("RGB"), (column * grid.cell_width, row * grid.cell_height))
    return sheet


@_in_output_run
def run_tts(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/tts/<kind>-<n>.png and .json per sheet, and <kind>-back.png (or a back sheet per sheet)."""
    from PIL import Image as PILImage

    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    tick = session.progress(plans)
    for plan in plans:
        if plan.blocked:
            tick(plan.units)
            continue
        folder = project.output / plan.game.folder / "tts"
        ranges = split_sheets(len(plan.faces))
        key = digest(plan.key, "tts", options.dpi)
        existing = [p for p in folder.glob(f"{plan.kind}-*") if _is_tts_file(plan.kind, p.name)]
        if not plan.faces:
            session.remove_stale([], existing)
            continue
        planned = [
            folder / f"{plan.kind}-{n}{suffix}" for n in range(1, len(ranges) + 1) for suffix in (".png", ".json")
        ]
        backs = _tts_backs(planned) if session.fresh(planned, key) else []
        if backs and session.skip_if_fresh(plan, [*planned, *backs], key, tick):
            continue
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick)  # ticks as it rasterises
        session.problems.extend(drawn.problems)
        if drawn.failed:
            tick(len(drawn.pages))
            continue
        fronts: list[Image] = [PILImage.new("RGB", (1, 1))] * len(plan.faces)
        backs_: list[Image] = []
        for (index, side), image in zip(drawn.pages, rasterise(plan, drawn, options.dpi, False, tick), strict=True):
            if side == "front":
                fronts[index] = image
            else:
                backs_.append(image)
        uniform_back = bool(backs_) and all(b.tobytes() == backs_[0].tobytes() for b in backs_[1:])
        plain = PILImage.new("RGB", fronts[0].size, _plain_colour(plan))
        hidden = backs_[0] if uniform_back else plain
        outputs: dict[Path, bytes] = {}
        single_back = folder / f"{plan.kind}-back.png"
        for n, cards in enumerate(ranges, start=1):
            grid = tts_grid(len(cards), *fronts[0].size)
            face_file = folder / f"{plan.kind}-{n}.png"
            outputs[face_file] = png_bytes(compose_sheet([fronts[i] for i in cards], hidden, grid))
            if backs_ and not uniform_back:
                back_file = folder / f"{plan.kind}-{n}-back.png"
                outputs[back_file] = png_bytes(compose_sheet([backs_[i] for i in cards], plain, grid))
            else:
                back_file = single_back
                if back_file not in outputs:
                    back = backs_[0] if uniform_back else plain
                    outputs[back_file] = png_bytes(
                        back.resize((grid.cell_width, grid.cell_height), PILImage.Resampling.LANCZOS)
                    )
            info = {
                "width": grid.columns,
                "height": grid.rows,
                "count": len(cards),
                "face": face_file.name,
                "back": back_file.name,
                "unique_backs": back_file != single_back,
                "hidden_face": "last slot (bottom right)",
                "cards": [plan.names[i] for i in cards],
            }
            outputs[folder / f"{plan.kind}-{n}.json"] = (json.dumps(info, indent=2, ensure_ascii=False) + "\n").encode()
        for path, data in outputs.items():
            session.write(path, data, key)
        session.remove_stale(outputs, existing)
    return session.result()


def _tts_backs(planned: list[Path]) -> list[Path]:
    """The back images the sheets' JSON files name (empty when one cannot be read)."""
    backs: set[Path] = set()
    for path in planned:
        if path.suffix == ".json":
            try:
                backs.add(path.parent / str(json.loads(path.read_text(encoding="utf-8"))["back"]))
            except (OSError, ValueError, KeyError, TypeError):
                return []
    return sorted(backs)


def _is_tts_file(kind: str, name: str) -> bool:
    return re.fullmatch(re.escape(kind) + r"-(\d+(-back)?\.(png|json)|back\.png)", name) is not None


def _plain_colour(plan: KindPlan) -> str:
    """The hidden face when the backs differ: a plain card in the back's background colour (grey without)."""
    back = plan.layout.data.get("back")
    back = back.get("default") if isinstance(back, dict) and "by" in back else back  # a back chosen per record
    colour = back.get("background") if isinstance(back, dict) else None
    return colour if isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", colour) else PLAIN_HIDDEN


# --- pnp export gallery -----------------------------------------------------------------------


@_in_output_run
def run_gallery(project: Project, options: ExportOptions) -> ExportResult:
    """output/gallery/index.html and output/gallery/img/<game>/<kind>/<name>-front.png (and -back.png)."""
    session = Session(project, options)
    if session.failed and not options.with_errors:
        return session.result()
    plans = session.plans(distinct=True, all_kinds=True)
    gallery = project.output / "gallery"
    tick = session.progress(plans)
    images: dict[Path, tuple[bytes, str]] = {}
    fresh: list[Path] = []
    for plan in plans:
        session.problems.extend(safe_zone_problems(plan))
        folder = gallery / "img" / plan.game.folder / plan.kind
        targets = {(i, side): folder / f"{name}-{side}.png" for i, name in enumerate(plan.names) for side in plan.sides}
        key = digest(plan.key, "gallery", options.dpi)
        # always drawn (cheap), so the page lists text that does not fit; rasterised only when changed
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick, tolerant=options.with_errors)
        session.problems.extend(drawn.problems)
        if session.fresh(list(targets.values()), key):
            fresh.extend(targets.values())
            tick(len(drawn.pages))
            continue
        for page, image in zip(drawn.pages, rasterise(plan, drawn, options.dpi, False, tick), strict=True):
            images[targets[page]] = (png_bytes(image, options.dpi), key)
    if session.failed and not options.with_errors:
        return session.result()  # text that does not fit, a missing image: nothing is written
    fallbacks = session.localized.fallbacks if session.localized else None
    by_card = session.localized.problems_by_card(session.problems) if session.localized else {}
    html = render_gallery(project, plans, session.problems, options, fallbacks, by_card)
    index = gallery / "index.html"
    html_key = digest(html)
    for path, (data, key) in images.items():
        session.write(path, data, key)
    session.skipped.extend(fresh)
    if session.fresh([index], html_key):
        session.skipped.append(index)
    else:
        session.write(index, html.encode(), html_key)
    session.remove_stale([*images, *fresh], (gallery / "img").rglob("*.png"))
    return session.result()


def render_gallery(
    project: Project,
    plans: list[KindPlan],
    problems: list[Problem],
    options: ExportOptions,
    fallbacks: Fallbacks | None = None,
    by_card: dict[str, list[Problem]] | None = None,
) -> str:
    """The proof page: games, then kinds, then one figure per card with its fields and problems;
    in a language exported with --fallback, the cards showing source text are marked.
    `by_card`: a language's catalog problems by the record id whose card they concern."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    by_file: dict[str, list[Problem]] = {}
    for problem in problems:
        by_file.setdefault(problem.file, []).append(problem)
    games: dict[str, dict[str, Any]] = {}
    total = 0
    on_cards: set[Problem] = set()  # catalog problems shown on a card (not listed again outside)
    for plan in plans:
        game = games.setdefault(plan.game.folder, {"title": plan.game.title, "folder": plan.game.folder, "kinds": []})
        cards = []
        scale = options.dpi / INCH
        width, height = round(plan.renderer.width * scale), round(plan.renderer.height * scale)
        for name, face in zip(plan.names, plan.faces, strict=True):
            record = face.record
            base = f"img/{plan.game.folder}/{plan.kind}/{name}"
            catalog_own = (by_card or {}).get(str(record.get("id")), [])
            on_cards.update(catalog_own)
            own = _problems_of(face, by_file) + catalog_own
            title = str(record.get("name") or record.get("id") or name)
            cards.append(
                {
                    "id": str(record.get("id", "")),
                    "name": title,
                    "search": _search_text(f"{title} {record.get('id', '')}"),
                    "front": f"{base}-front.png",
                    "back": f"{base}-back.png" if plan.renderer.has_back else None,
                    "width": width,
                    "height": height,
                    "extra": ", ".join(f"{k} {v}" for k, v in face.extra.items() if k != "copy"),
                    "fields": [(key, _field_text(value)) for key, value in record.items()],
                    "problems": [
                        {
                            "severity": p.severity,
                            "code": p.code,
                            "message": RECORD_PREFIX.sub("", p.message),
                            "where": p.place + (f" (at {p.pointer})" if p.pointer else ""),
                        }
                        for p in own
                    ],
                    "errors": sum(1 for p in own if p.severity == "error"),
                    "fallback": fallbacks.of_card(str(record.get("id")), plan.layout) if fallbacks else [],
                }
            )
        total += len(cards)
        game["kinds"].append({"kind": plan.kind, "layout": plan.layout.name, "cards": cards})
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    record_files = _record_files(plans)
    unplaced = [p for p in problems if p.file not in record_files and p not in on_cards]
    return env.get_template(GALLERY_TEMPLATE).render(
        title=project.name,
        language=options.lang,
        source_language=project.languages[0] if project.languages else "",
        games=list(games.values()),
        total=total,
        dpi=options.dpi,
        unplaced=[
            {
                "severity": p.severity,
                "code": p.code,
                "message": p.message,
                "where": p.place if p.file else "",
            }
            for p in unplaced
        ],
    )


def _record_files(plans: list[KindPlan]) -> set[str]:
    return {origin[0].display for plan in plans for origin in plan.origins.values()}


def _problems_of(face: Face, by_file: dict[str, list[Problem]]) -> list[Problem]:
    """Problems located in the face's record: its file, at or under its record's JSON pointer."""
    if face.origin is None:
        return []
    record_file, index = face.origin
    pointer = record_file.pointer(index)
    own = [
        p for p in by_file.get(record_file.display, []) if p.pointer == pointer or p.pointer.startswith(pointer + "/")
    ]
    seen: set[tuple[str, str]] = set()
    unique = []
    for problem in own:
        if (problem.code, problem.message) not in seen:
            seen.add((problem.code, problem.message))
            unique.append(problem)
    return sorted(unique, key=lambda p: p.severity != "error")  # errors first, otherwise in file order


def _search_text(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def _field_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
