"""`pnp build`: check, then render every kind with a layout into output/, incrementally.

Per game: output/<folder>/<kind>.pdf for each kind, and output/<folder>.pdf with them all.
A build that finds errors writes nothing; each file is written atomically; a file whose inputs
(records, layouts, icons, fonts, images, options, pnp itself) did not change is not rewritten.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from pnp.check import CheckOptions, LoadedProject, check_loaded, load_icon_specs, load_project_records
from pnp.config import Project
from pnp.impose import Duplex, ImpositionError, SheetSpec, parse_paper
from pnp.layout import Layout
from pnp.output import Manifest, OutputResult, OutputRun, atomic_write, current, digest, write_bytes
from pnp.problems import Finding, Problem

PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class BuildOptions:
    paper: str = "a4"
    duplex: Duplex = "long"
    kinds: tuple[str, ...] = ()
    force: bool = False
    progress: bool = False


BuildResult = OutputResult


def output_root(project: Project, paper: str) -> Path:
    """output/ for the project's paper; output/<paper>/ for another, so A4 and Letter coexist."""
    if paper.lower() == project.paper.lower():
        return project.output
    return project.output / re.sub(r"[^a-z0-9.]+", "-", paper.lower()).strip("-")


def _code_digest() -> str:
    hasher = hashlib.sha256()
    for path in sorted(PACKAGE.glob("*.py")) + [PACKAGE / "layout.schema.json"]:
        hasher.update(path.read_bytes())
    return hasher.hexdigest()


def _asset_files(project: Project, layout: Layout, records: list[dict[str, Any]]) -> list[Path]:
    """Files a layout may draw: static image paths in the layout, and record fields that are paths."""
    files: list[Path] = []
    for face in ("front", "back"):
        for element in (layout.data.get(face) or {}).get("elements", []):
            src = element.get("src")
            if isinstance(src, str) and "{" not in src:
                files.append(project.root / src)
            font = element.get("font")
            if isinstance(font, str) and font.endswith((".ttf", ".otf")):
                files.append(project.root / font)
    for record in records:
        for key in ("image", "portrait", "art", "icon_image"):
            value = record.get(key)
            if isinstance(value, str):
                files.append(project.root / value)
    return files


def kinds_to_build(loaded: LoadedProject, layouts: Any, wanted: tuple[str, ...]) -> list[str]:
    kinds = sorted(k for k in loaded.index.files_by_kind if k in layouts.by_kind)
    if wanted:
        unknown = [k for k in wanted if k not in loaded.schemas.kind_uri]
        if unknown:
            from pnp.config import ConfigError

            raise ConfigError(f"unknown kind {unknown[0]!r}; known kinds: {', '.join(loaded.schemas.kinds)}")
        kinds = [k for k in kinds if k in wanted]
    return kinds


def render_kind(
    loaded: LoadedProject,
    layout: Layout,
    kind: str,
    spec: SheetSpec,
    handle: IO[bytes],
    title: str,
    tick: Callable[[int], None] | None = None,
) -> list[tuple[Any, Finding]]:
    """Draw one kind's cut sheets into `handle`; returns located render problems."""
    from pnp.pdf import expand_faces, write_cut_sheets
    from pnp.render import Renderer

    def lookup(record_id: str) -> dict[str, Any] | None:
        entry = loaded.index.first.get(record_id)
        return entry[1].records[entry[2]] if entry else None

    renderer = Renderer(layout, loaded.project.root, load_icon_specs(loaded.project), lookup)
    records = [((f, i), r) for f, i, r in loaded.records(kind)]
    faces, issues = expand_faces(renderer, records)
    found: list[tuple[Any, Finding]] = []
    origins = {str(record.get("id")): origin for origin, record in records}
    for issue in issues:  # copies and expand: located at the record
        record_file, index = origins[issue.record_id]
        message = f"record {issue.record_id!r}, layout {layout.name!r}: {issue.message}"
        found.append((record_file, Finding(issue.code, message, record_file.pointer(index))))
    for sheet_issue in write_cut_sheets(handle, renderer, faces, spec, title, tick):
        face, issue = sheet_issue.face, sheet_issue.issue
        record_file, index = face.origin
        found.append(
            (
                record_file,
                Finding(
                    issue.code,
                    f"record {issue.record_id!r}, layout {layout.name!r}: {issue.message}",
                    record_file.pointer(index),
                ),
            )
        )
    return found


def run_build(project: Project, options: BuildOptions) -> BuildResult:
    loaded = load_project_records(project)
    problems = list(check_loaded(loaded, CheckOptions()))
    if any(p.severity == "error" for p in problems):
        return BuildResult((), (), tuple(problems))
    with OutputRun(project.output) as run:  # a failed build writes nothing: see pnp.output
        result = _build_checked(project, options, loaded, problems)
        if result.exit_code:
            run.discard()
            return BuildResult((), (), result.problems)
    return result


def _build_checked(
    project: Project, options: BuildOptions, loaded: LoadedProject, problems: list[Problem]
) -> BuildResult:
    """Render a project that passed its check; outputs are staged by the caller's OutputRun."""
    from pnp.layout import LayoutSet

    layouts = LayoutSet(project.layouts, project.display, set(loaded.schemas.kind_uri))
    width, height = parse_paper(options.paper)
    spec = SheetSpec(width, height, duplex=options.duplex)
    manifest = Manifest(project.output)
    out_root = output_root(project, options.paper)
    code = _code_digest()
    icons_file = project.layouts / "icons.json"
    written: list[Path] = []
    skipped: list[Path] = []
    per_game: dict[str, list[tuple[Path, str]]] = {}
    kinds = kinds_to_build(loaded, layouts, options.kinds)
    plans = []
    for kind in kinds:
        layout = layouts.by_kind[kind]
        records = [r for _, _, r in loaded.records(kind)]
        game = project.game(kind)
        target = out_root / game.folder / f"{kind}.pdf"
        key = digest(
            code,
            options.paper,
            options.duplex,
            layout.data,
            orjson.dumps(records).decode(),
            files=[*layout.files, icons_file, *_asset_files(project, layout, records)],
        )
        per_game.setdefault(game.folder, []).append((target, key))
        plans.append((kind, layout, target, key, len(records)))
    progress = _progress(options.progress, sum(n for *_, n in plans if True))
    for kind, layout, target, key, count in plans:
        if not options.force and manifest.fresh(target, key):
            skipped.append(target)
            progress(count)
            continue
        located: list[Problem] = []

        def draw(
            handle: IO[bytes], kind: str = kind, layout: Layout = layout, located: list[Problem] = located
        ) -> None:
            found = render_kind(loaded, layout, kind, spec, handle, f"{project.game(kind).title}: {kind}")
            located.extend(_locate(project, record_file, finding) for record_file, finding in found)
            if any(p.severity == "error" for p in located):
                raise _Discard  # the temporary file goes; the previous output stays as it was

        try:
            atomic_write(target, draw)  # straight to the temporary file: no second copy in memory
        except ImpositionError as err:
            problems.append(Problem(str(layout.chain[-1].source.display), 1, 1, "", "layout-error", "error", str(err)))
            continue
        except _Discard:
            problems.extend(located)
            progress(count)
            continue
        problems.extend(located)
        progress(count)
        manifest.record(target, key)
        written.append(target)
    for folder, parts in sorted(per_game.items()):
        if options.kinds:
            continue  # a partial build does not rewrite the combined file
        combined = out_root / f"{folder}.pdf"
        key = digest(code, [k for _, k in parts])
        if not options.force and manifest.fresh(combined, key):
            skipped.append(combined)
            continue
        if any(p.severity == "error" for p in problems) or not all(current(path).is_file() for path, _ in parts):
            continue
        _combine(combined, [current(path) for path, _ in parts])
        manifest.record(combined, key)
        written.append(combined)
    sheets = _build_sheets(loaded, project, options, manifest)
    for path, was_written, messages in sheets:
        (written if was_written else skipped).append(path)
        for message in messages:
            problems.append(Problem(project.display(path), 1, 1, "", "text-overflow", "error", message))
    manifest.save()
    unique = tuple(dict.fromkeys(problems))  # copies of one record report a problem once
    return BuildResult(tuple(written), tuple(skipped), tuple(sorted(unique, key=Problem.sort_key)))


def _build_sheets(
    loaded: LoadedProject, project: Project, options: BuildOptions, manifest: Manifest
) -> list[tuple[Path, bool, tuple[str, ...]]]:
    """Scenario setup sheets and reference aids (pnp.sheets), when the kinds are not filtered."""
    if options.kinds:
        return []
    try:
        from pnp import sheets
    except ImportError:
        return []
    sheets.draw_token, sheets.draw_token_inputs = token_drawer(loaded)
    out_root = output_root(project, options.paper)
    results = sheets.build_sheets(loaded, out_root, options.paper, manifest, force=options.force)
    return [(r.path, r.written, tuple(r.problems)) for r in results]


def token_drawer(loaded: LoadedProject) -> tuple[Callable[..., bool], list[Path]]:
    """A hook drawing a token's front from its own layout, scaled into a square (for the aids)."""
    from pnp.impose import Box
    from pnp.layout import LayoutSet
    from pnp.render import Renderer

    project = loaded.project
    layouts = LayoutSet(project.layouts, project.display, set(loaded.schemas.kind_uri))
    icons = load_icon_specs(project)
    renderers: dict[str, Renderer] = {}

    def lookup(record_id: str) -> dict[str, Any] | None:
        entry = loaded.index.first.get(record_id)
        return entry[1].records[entry[2]] if entry else None

    def draw(canvas: Any, record: dict[str, Any], x: float, y: float, size: float) -> bool:
        layout = layouts.by_kind.get(str(record.get("kind")))
        if layout is None:
            return False
        renderer = renderers.get(layout.name)
        if renderer is None:
            renderer = renderers[layout.name] = Renderer(layout, project.root, icons, lookup)
        scale = size / max(renderer.width, renderer.height)
        box = Box(0, 0, renderer.width, renderer.height)
        canvas.saveState()
        canvas.translate(x + (size - renderer.width * scale) / 2, y + (size - renderer.height * scale) / 2)
        canvas.scale(scale, scale)
        if renderer.shape == "round":  # the token as cut: a disc, not its square bleed
            path = canvas.beginPath()
            path.circle(renderer.width / 2, renderer.height / 2, min(renderer.width, renderer.height) / 2)
            canvas.clipPath(path, stroke=0, fill=0)
        issues = renderer.draw(canvas, "front", record, box, {"copy": 1}, clip=box)
        canvas.restoreState()
        return not issues

    inputs = sorted({path for layout in layouts.layouts.values() for path in layout.files})
    return draw, inputs


def _locate(project: Project, record_file: Any, finding: Finding) -> Problem:
    if record_file is None:
        return Problem("", 0, 0, finding.pointer, finding.code, "error", finding.message)
    return record_file.locate(finding)  # type: ignore[no-any-return]


class _Discard(Exception):
    """Raised inside an atomic write to throw the new file away."""


def _combine(target: Path, parts: list[Path]) -> None:
    """One file with every kind of a game, deterministic (fixed document id)."""
    if len(parts) == 1:  # nothing to merge: the same document
        write_bytes(target, parts[0].read_bytes())
        return
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, ByteStringObject

    writer = PdfWriter()
    for part in parts:
        writer.append(str(part))
    ident = ByteStringObject(hashlib.md5(b"".join(p.read_bytes() for p in parts)).digest())  # noqa: S324 - an id, not security
    writer._ID = ArrayObject([ident, ident])
    writer.add_metadata({"/Title": target.stem, "/Creator": "pnp", "/Producer": "pnp"})

    def write(handle: IO[bytes]) -> None:
        writer.write(handle)

    atomic_write(target, write)


def _progress(enabled: bool, total: int) -> Callable[[int], None]:
    """A progress bar on a terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty() or total == 0:
        return lambda n: None
    import click

    bar = click.progressbar(length=total, label="rendering", file=sys.stderr)
    bar.__enter__()
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        bar.update(n)
        if done[0] >= total:
            bar.__exit__(None, None, None)

    return tick


def render_findings(loaded: LoadedProject) -> list[tuple[Any, Finding]]:
    """`pnp check --render`: draw every card into a throwaway PDF to find text that does not fit."""
    from pnp.layout import LayoutSet

    project = loaded.project
    layouts = LayoutSet(project.layouts, project.display, set(loaded.schemas.kind_uri))
    width, height = parse_paper(project.paper)
    spec = SheetSpec(width, height, duplex="long")
    found: list[tuple[Any, Finding]] = []
    for kind in kinds_to_build(loaded, layouts, ()):
        try:
            found.extend(
                (f, x)
                for f, x in render_kind(loaded, layouts.by_kind[kind], kind, spec, io.BytesIO(), kind)
                if f is not None
            )
        except ImpositionError:
            continue  # reported by pnp build
    return found
