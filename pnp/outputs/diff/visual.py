"""output/diff/: what changed, to see and to print.

- index.html: every face whose digest changed (and only those), before and after side by side,
  the region whose pixels differ outlined; images as PNG files in img/ beside it (no network).
- errata.pdf: a changelog in words, then exactly the changed and added faces (fronts and backs,
  copies as in the game) on cut sheets, drawn as `pnp build` draws them (pnp.drawing.findings).

Everything is written in one OutputRun: the previous report is replaced as a whole, and images
of an earlier report that this one does not show are removed.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from pnp.core.output import OutputRun, atomic_write, remove_output
from pnp.core.problems import Problem
from pnp.outputs.diff.compare import Diff, FaceChange, Version, records_by_key
from pnp.outputs.diff.report import REASON_WORDS, changelog_lines, field_words

if TYPE_CHECKING:
    from PIL.Image import Image

    from pnp.drawing.pdf import Face

FOLDER = "diff"
OUTLINE = "#e0007a"
PAD = 3  # pixels between the changed pixels and their outline


@dataclass(frozen=True, slots=True)
class Picture:
    """One side of one face: its image before and after (None where the face did not exist), and
    the box of the pixels that differ, as fractions of the image (None: no visible difference)."""

    side: str
    before: bytes | None
    after: bytes | None
    size: tuple[int, int]
    box: tuple[float, float, float, float] | None
    unchanged: bool = False  # both versions draw this side alike: only `after` is kept, shown once


@dataclass(frozen=True, slots=True)
class Shown:
    change: FaceChange
    label: str  # the face: its record's title, with its expansion values
    pictures: tuple[Picture, ...]


def write_report(output: Path, old: Version, new: Version, diff: Diff, dpi: int) -> tuple[list[Path], list[Problem]]:
    """Write `output`/diff/ (the working tree's output folder, whichever versions are compared);
    the files written, and what drawing the errata found (text that no longer fits, a missing image)."""
    folder = output / FOLDER
    shown = shown_faces(old, new, diff, dpi)
    files: dict[Path, bytes] = {}
    for n, face in enumerate(shown, 1):
        for picture in face.pictures:
            for when, data in (("before", picture.before), ("after", picture.after)):
                if data is not None:
                    files[folder / "img" / f"{n:04d}-{picture.side}-{when}.png"] = data
    files[folder / "index.html"] = page(diff, shown).encode()
    problems: list[Problem] = []
    errata = folder / "errata.pdf"
    if any(f.status != "removed" for f in diff.faces) or diff.records:
        files[errata], problems = errata_pdf(new, diff)
    with OutputRun(output):
        for path, data in files.items():
            atomic_write(path, partial(_write, data=data))
        stale = [p for p in (folder / "img").glob("*.png") if p not in files]
        if errata not in files and errata.is_file():
            stale.append(errata)
        for path in stale:
            remove_output(path)
    return [path for path in (folder / "index.html", errata) if path in files], problems


def _write(handle: IO[bytes], data: bytes) -> None:
    handle.write(data)


# --- the faces, drawn -------------------------------------------------------------------------


def shown_faces(old: Version, new: Version, diff: Diff, dpi: int) -> list[Shown]:
    """Each changed face's sides, drawn in both versions where it exists in them."""
    by_kind: dict[str, list[FaceChange]] = {}
    for change in diff.faces:
        by_kind.setdefault(change.kind, []).append(change)
    shown: list[Shown] = []
    for kind, changes in sorted(by_kind.items()):
        ids = {c.id for c in changes}
        before = _drawn(old, kind, ids, dpi)
        after = _drawn(new, kind, ids, dpi)
        for change in changes:
            names = sorted(
                {name for (rid, name) in before if rid == change.id}
                | {name for (rid, name) in after if rid == change.id}
            )
            for name in names:
                was, now = before.get((change.id, name), {}), after.get((change.id, name), {})
                sides = [s for s in ("front", "back") if s in was or s in now]
                pictures = tuple(_picture(side, was.get(side), now.get(side)) for side in sides)
                label = change.title + (f" ({name})" if name else "")
                shown.append(Shown(change, label, pictures))
    return shown


def _picture(side: str, before: Image | None, after: Image | None) -> Picture:
    from PIL import ImageChops

    from pnp.outputs.export_run import png_bytes

    shown = after if after is not None else before
    assert shown is not None
    box: tuple[float, float, float, float] | None
    if before is None or after is None or before.size != after.size:
        box = (0.0, 0.0, 1.0, 1.0)
    else:
        found = ImageChops.difference(before, after).getbbox()
        width, height = after.size
        if found is None:
            return Picture(side, None, png_bytes(after), after.size, None, unchanged=True)
        left, top = max(0, found[0] - PAD), max(0, found[1] - PAD)  # a few pixels around the change
        right, bottom = min(width, found[2] + PAD), min(height, found[3] + PAD)
        box = (left / width, top / height, right / width, bottom / height)
    return Picture(
        side,
        png_bytes(before) if before is not None else None,
        png_bytes(after) if after is not None else None,
        shown.size,
        box,
    )


def _drawn(version: Version, kind: str, ids: set[str], dpi: int) -> dict[tuple[str, str], dict[str, Image]]:
    """Images of the distinct faces (one copy; each expansion) of the records `ids` of `kind`, by
    (id, expansion name) and side; empty when the kind has no layout in this version."""
    from pnp.drawing.pdf import expand_faces
    from pnp.drawing.render import Renderer
    from pnp.outputs.export_run import KindPlan, draw_pages, no_tick, rasterise

    loaded = version.loaded
    layout = loaded.layouts.by_kind.get(kind)
    if layout is None or kind not in loaded.kinds_to_build():
        return {}
    keyed = {id(placed.record): key[1] for key, placed in records_by_key(loaded).items() if key[0] == kind}
    entries = [((f, i), r) for f, i, r in loaded.records(kind) if keyed.get(id(r)) in ids]
    renderer = Renderer(layout, loaded.project.root, loaded.icons, loaded.lookup)
    faces, _ = expand_faces(renderer, entries)
    faces = [face for face in faces if face.extra.get("copy", 1) == 1]
    names = [_expansion(face) for face in faces]
    plan = KindPlan(kind, loaded.project.game(kind), layout, renderer, faces, names, "")
    drawn = draw_pages(plan, renderer.bleed, "front-back", kind, no_tick, tolerant=True)
    found: dict[tuple[str, str], dict[str, Image]] = {}
    for (index, side), image in zip(drawn.pages, rasterise(plan, drawn, dpi, False), strict=True):
        face = faces[index]
        found.setdefault((keyed[id(face.record)], names[index]), {})[side] = image
    return found


def _expansion(face: Face) -> str:
    """A face's expansion values ("element fire, level 2"), "" for a record's only face."""
    return ", ".join(f"{key} {value}" for key, value in face.extra.items() if key != "copy")


# --- index.html -------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; color: #222; background: #fafafa; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin: 0 0 .3rem; }
.face { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 1rem; margin: 1rem 0; }
.status { font-size: .8rem; padding: .1rem .4rem; border-radius: 3px; background: #eee; margin-left: .5rem; }
.added { background: #d8f5d8; } .removed { background: #fbd9d9; } .changed { background: #fdf0c8; }
.sides { display: flex; flex-wrap: wrap; gap: 1.5rem; }
.pair { display: flex; gap: .5rem; align-items: flex-start; }
figure { margin: 0; min-width: 10rem; } figcaption { font-size: .8rem; color: #555; }
.image { position: relative; display: inline-block; line-height: 0; box-shadow: 0 0 0 1px #ccc; }
.image img { display: block; }
.box { position: absolute; outline: 3px solid OUTLINE; outline-offset: 1px; pointer-events: none; }
.fields { font-size: .85rem; color: #444; margin: .2rem 0 .6rem; padding-left: 1.2rem; }
.none { width: 8rem; height: 3rem; line-height: 3rem; text-align: center; color: #999; border: 1px dashed #ccc; }
""".replace("OUTLINE", OUTLINE)


def page(diff: Diff, shown: list[Shown]) -> str:
    """The report page: the changelog, then each changed face's sides, before and after."""
    escape = html.escape
    title = f"pnp diff: {diff.before} → {diff.after}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    lines = changelog_lines(diff)
    if not lines:
        parts.append("<p>No changes to records, faces or project files.</p>")
    else:
        parts.append("<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>")
    fields = {(r.kind, r.id): r.fields for r in diff.records}
    for n, face in enumerate(shown, 1):
        change = face.change
        why = ", ".join(REASON_WORDS[r] for r in change.reasons)
        parts.append(f'<section class="face" id="face-{n}">')
        parts.append(
            f"<h2>{escape(change.kind)}: {escape(face.label)}"
            f'<span class="status {change.status}">{change.status}</span></h2>'
        )
        parts.append(f"<div>layout {escape(change.layout)}; changed by {escape(why)}</div>")
        own = fields.get((change.kind, change.id), ())
        if own:
            parts.append('<ul class="fields">' + "".join(f"<li>{escape(field_words(f))}</li>" for f in own) + "</ul>")
        parts.append('<div class="sides">')
        for picture in face.pictures:
            parts.append('<div class="pair">')
            if picture.unchanged:
                caption = f"{picture.side}: no visible change"
                src = f"img/{n:04d}-{picture.side}-after.png"
                parts.append(
                    f'<figure><figcaption>{caption}</figcaption><div class="image">'
                    f'<img src="{src}" width="{picture.size[0]}" height="{picture.size[1]}" '
                    f'alt="{escape(face.label)}, {picture.side}"></div></figure></div>'
                )
                continue
            for when, data in (("before", picture.before), ("after", picture.after)):
                label = diff.before if when == "before" else diff.after
                caption = f"{picture.side}, {when} ({escape(label)})"
                if data is None:
                    parts.append(f'<figure><figcaption>{caption}</figcaption><div class="none">none</div></figure>')
                    continue
                src = f"img/{n:04d}-{picture.side}-{when}.png"
                width, height = picture.size
                box = ""
                if picture.box is not None:
                    x0, y0, x1, y1 = picture.box
                    box = (
                        f'<span class="box" style="left:{x0 * 100:.2f}%;top:{y0 * 100:.2f}%;'
                        f'width:{(x1 - x0) * 100:.2f}%;height:{(y1 - y0) * 100:.2f}%"></span>'
                    )
                parts.append(
                    f'<figure><figcaption>{caption}</figcaption><div class="image">'
                    f'<img src="{src}" width="{width}" height="{height}" alt="{escape(face.label)}, {picture.side} {when}">'
                    f"{box}</div></figure>"
                )
            parts.append("</div>")
        parts.append("</div></section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


# --- errata.pdf -------------------------------------------------------------------------------


def errata_pdf(new: Version, diff: Diff) -> tuple[bytes, list[Problem]]:
    """The changelog page, then each kind's changed and added faces on cut sheets."""
    import pikepdf

    from pnp.drawing.findings import render_kind
    from pnp.drawing.impose import MM, Cutting, Duplex, SheetSpec, parse_paper, with_cutting

    loaded = new.loaded
    project = loaded.project
    width, height = parse_paper(project.paper)
    cutting: Cutting = "gutter" if project.cutting == "gutter" else "butted"
    gutter = project.gutter_mm * MM if cutting == "gutter" else 0.0
    spec = SheetSpec(width, height, gutter=gutter, duplex=cast(Duplex, project.duplex), cutting=cutting)
    wanted: dict[str, set[str]] = {}
    for change in diff.faces:
        if change.status != "removed":
            wanted.setdefault(change.kind, set()).add(change.id)
    keyed = {id(placed.record): key for key, placed in records_by_key(loaded).items()}
    parts = [changelog_pdf(diff, project.name, (width, height), spec.duplex in ("long", "short"))]
    problems: list[Problem] = []
    for kind in sorted(wanted):
        layout = loaded.layouts.by_kind[kind]
        records = [((f, i), r) for f, i, r in loaded.records(kind) if keyed.get(id(r), ("", ""))[1] in wanted[kind]]
        buffer = io.BytesIO()
        own = with_cutting(spec, layout.cutting, project.gutter_mm * MM)
        title = f"{project.game(kind).title}: {kind} errata"
        found = render_kind(loaded, layout, kind, own, buffer, title, records=records, name=f"{kind} errata")
        problems.extend(record_file.locate(finding) for record_file, finding in found)
        parts.append(buffer.getvalue())
    out = pikepdf.new()
    sources = [pikepdf.open(io.BytesIO(data)) for data in parts]
    for source in sources:
        out.pages.extend(source.pages)
    out.docinfo[pikepdf.Name.Title] = f"{project.name}: errata, {diff.before} to {diff.after}"
    out.docinfo[pikepdf.Name.Creator] = "pnp"
    out.docinfo[pikepdf.Name.Producer] = "pnp"
    buffer = io.BytesIO()
    out.save(buffer, deterministic_id=True, compress_streams=True)
    for source in sources:
        source.close()
    return buffer.getvalue(), sorted(set(problems), key=Problem.sort_key)


def changelog_pdf(diff: Diff, name: str, size: tuple[float, float], even: bool) -> bytes:
    """The changes in words on the first page (continued when they do not fit); padded to an even
    number of pages when the sheets print on both sides, so each front meets its back."""
    from reportlab.lib.utils import simpleSplit

    from pnp.drawing.fonts import SANS
    from pnp.drawing.impose import MM
    from pnp.drawing.pdf import new_canvas

    buffer = io.BytesIO()
    width, height = size
    canvas = new_canvas(buffer, size, f"{name}: changelog")
    margin, size_pt, leading = 15 * MM, 10.0, 13.0
    pages = 1
    y = height - margin
    canvas.setFont(SANS.bold, 16)
    canvas.drawString(margin, y - 16, f"{name}: errata")
    y -= 30
    canvas.setFont(SANS.regular, size_pt)
    canvas.drawString(margin, y - size_pt, f"Changes from {diff.before} to {diff.after}.")
    y -= 2 * leading
    printed = sorted({f.kind for f in diff.faces if f.status != "removed"})
    lines = changelog_lines(diff)
    if printed:
        lines.append(
            f"The sheets that follow hold every new and changed face ({', '.join(printed)}), copies as in the game."
        )
    for line in lines:
        for n, piece in enumerate(simpleSplit("• " + line, SANS.regular, size_pt, width - 2 * margin - 10)):
            if y - leading < margin:
                canvas.showPage()
                pages += 1
                canvas.setFont(SANS.regular, size_pt)
                y = height - margin
            canvas.drawString(margin + (10 if n else 0), y - size_pt, piece)
            y -= leading
    canvas.showPage()
    if even and pages % 2:
        canvas.showPage()  # the back of the changelog: blank
    canvas.save()
    return buffer.getvalue()
