"""What every `pnp export` shares: its options, the checked project, a plan per kind, the drawn pages.

Each export (pnp.outputs.printshop, pnp.outputs.raster, pnp.outputs.gallery) is a function of a
Session: the project loaded and checked once, a KindPlan per kind (its renderer, faces and file
names, the digest of its inputs), and the manifest that lets a file whose inputs did not change
stay as it is. There is one drawing path: every face is drawn onto a print-shop page
(`draw_pages`), and the images are rasterised from those pages (`rasterise`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
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
    from pnp.translation.translate import Localized

INCH = 72.0
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
            number = key[: -len(unit)]
            if len(number) > 40:  # no length is written with more characters
                raise ConfigError(f"bleed {text[:30] + '...' + text[-8:]!r} is out of range; use 0 to 25 mm")
            try:
                top, _, bottom = number.partition("/")
                value = (float(top) / float(bottom) if bottom else float(top)) * factor
            except (ValueError, ZeroDivisionError):
                break
            if not 0 <= value <= 25 * MM:  # also inf (1e400mm) and nan
                raise ConfigError(f"bleed {text!r} is out of range; use 0 to 25 mm")
            return value
    shown = text if len(text) <= 40 else text[:30] + "..." + text[-8:]
    raise ConfigError(f"bleed {shown!r}: give a length with its unit, such as 3mm, 0.125in, 1/8in or 9pt")


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
        self.manifest = Manifest(project.output, project.root)
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
            renderer = Renderer(layout, project.root, icons, self.loaded.lookup)
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
                root=project.root,
            )
            names = face_names(faces)
            relocate = self.localized.relocate if self.localized else None
            plans.append(
                KindPlan(kind, project.game(kind), layout, renderer, faces, names, key, origins, bool(issues), relocate)
            )
        return plans

    def referenced(self, layout: Layout, records: list[dict[str, Any]]) -> list[Any]:
        """Records the layout may show besides `records` (`| ref`): their changes redraw the kind.
        Those `records` reference; every record where a template looks up an id it makes itself
        (`('spell-' ~ n) | ref`: pnp.drawing.faces.ref_use), as the build's face digests do."""
        from pnp.drawing.faces import ref_use

        use = ref_use(layout)
        if use == "none":
            return []
        if use == "any":
            return [record for record_file in self.loaded.files for record in record_file.records]
        return [record for _, record in self.loaded.referenced(records)]

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


def in_output_run(
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
