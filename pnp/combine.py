"""The combined file of a game: every kind's faces packed onto shared sheets, kind after kind.

Faces of the same trim size and bleed share sheets (one grid), in the order of the kinds, so a
kind of two cards no longer takes a sheet of its own. Faces are not drawn again: pnp.pdf marks
each face's drawing on a per-kind page (marked content, FACE_TAG), each face becomes a form
XObject of its own and is placed, clipped to its bleed, at its slot on the shared sheet; the
combined file costs no rendering and shows exactly the per-kind faces.
Backs go to the back slot of their front, so duplex stays aligned.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

from pnp.impose import Box, Grid, SheetSpec, crop_marks, fold_line, for_faces, grid, intersect, pack
from pnp.pdf import FACE_TAG, Frame, write_frames


@dataclass(frozen=True, slots=True)
class Part:
    """One kind's file, as pnp.pdf.write_cut_sheets wrote it."""

    path: Path
    kind: str
    faces: int  # faces drawn in it, in slot order
    width: float  # trim, points
    height: float
    bleed: float
    has_back: bool


@dataclass(frozen=True, slots=True)
class _Placed:
    part: int
    index: int  # the face's number within its part
    slot: int  # its slot on the shared sheet


def combined_sheets(parts: list[Part], spec: SheetSpec) -> list[tuple[Grid, SheetSpec, list[list[_Placed]]]]:
    """Per group of parts with one geometry (in order of first appearance): its grid, its spec
    (fold only where some face has a back) and its sheets."""
    groups: dict[tuple[float, float, float], list[int]] = {}
    for number, part in enumerate(parts):
        groups.setdefault((round(part.width, 3), round(part.height, 3), round(part.bleed, 3)), []).append(number)
    result = []
    for members in groups.values():
        first = parts[members[0]]
        group_spec = replace(for_faces(spec, any(parts[m].has_back for m in members)), bleed=first.bleed)
        shared = grid(first.width, first.height, group_spec)
        sheets = pack([parts[m].faces for m in members], shared.per_sheet)
        placed = [[_Placed(members[p], i, slot) for slot, (p, i) in enumerate(sheet)] for sheet in sheets]
        result.append((shared, group_spec, placed))
    return result


def sheet_count(parts: list[Part], spec: SheetSpec) -> int:
    """Sheets of paper the combined file takes."""
    return sum(len(sheets) for _, _, sheets in combined_sheets(parts, spec))


def write_combined(handle: IO[bytes], parts: list[Part], spec: SheetSpec, title: str, name: str) -> int:
    """Write the packed file; returns its number of sheets. In duplex every sheet has a back page
    (blank where no face on it has a back), so fronts stay on odd pages; in fold, one page a sheet."""
    import pikepdf

    layout = combined_sheets(parts, spec)
    total = sum(len(sheets) for _, _, sheets in layout)
    frames: list[Frame] = []
    pages: list[list[tuple[_Placed, bool, Grid]]] = []  # per page: each face, whether its back, the sheet's grid
    number = 0
    for shared, group_spec, sheets in layout:
        for sheet in sheets:
            number += 1
            kinds = "+".join(dict.fromkeys(parts[p.part].kind for p in sheet))
            label = f"{name}: {kinds} {number}/{total}"
            fronts = [(p, False, shared) for p in sheet]
            backs = [(p, True, shared) for p in sheet if parts[p.part].has_back and group_spec.duplex != "none"]
            if group_spec.duplex == "fold":
                pages.append(fronts + backs)
                boxes = _boxes(fronts + backs)
                frames.append(Frame(crop_marks(boxes, group_spec), label, fold_line(boxes, group_spec)))
                continue
            pages.append(fronts)
            frames.append(Frame(crop_marks(_boxes(fronts), group_spec), f"{label}, fronts"))
            if group_spec.duplex != "none":
                pages.append(backs)
                frames.append(Frame(crop_marks(_boxes(backs), group_spec), f"{label}, backs" if backs else ""))
    buffer = io.BytesIO()
    write_frames(buffer, frames, spec, title)
    buffer.seek(0)
    out = pikepdf.open(buffer)
    sources = [pikepdf.open(part.path) for part in parts]
    forms: dict[tuple[int, int], list[Any]] = {}  # the faces of each per-kind page, copied once
    specs = [replace(for_faces(spec, part.has_back), bleed=part.bleed) for part in parts]
    grids = [grid(part.width, part.height, part_spec) for part, part_spec in zip(parts, specs, strict=True)]
    for page, placed in zip(out.pages, pages, strict=True):
        commands: list[str] = []
        for number, (face, back, target_grid) in enumerate(placed):
            part = parts[face.part]
            shared = grids[face.part]  # the grid the part's own file was drawn on
            source_page, drawn = _source(part, shared, face.index, back, specs[face.part])
            if (face.part, source_page) not in forms:
                forms[face.part, source_page] = _face_forms(out, sources[face.part], source_page)
            resource = pikepdf.Name(f"/PnpFace{number}")  # not add_resource's random prefix: same bytes each build
            page.add_resource(forms[face.part, source_page][drawn], pikepdf.Name.XObject, resource)
            slot = face.index % shared.per_sheet
            origin = (shared.backs if back else shared.fronts)[slot]
            source_clip = (shared.back_clips if back else shared.front_clips)[slot]
            target = (target_grid.backs if back else target_grid.fronts)[face.slot]
            clip = (target_grid.back_clips if back else target_grid.front_clips)[face.slot]
            dx, dy = target.x - origin.x, target.y - origin.y
            moved = Box(source_clip.x + dx, source_clip.y + dy, source_clip.width, source_clip.height)
            area = intersect(moved, clip)  # never more than the source drew of this face alone
            commands.append(
                f"q {area.x:.4f} {area.y:.4f} {area.width:.4f} {area.height:.4f} re W n "
                f"1 0 0 1 {dx:.4f} {dy:.4f} cm {resource} Do Q"
            )
        if commands:
            page.contents_add(out.make_stream(("q\n" + "\n".join(commands) + "\nQ\n").encode()), prepend=True)
    out.docinfo[pikepdf.Name.Title] = title
    out.docinfo[pikepdf.Name.Creator] = "pnp"
    out.docinfo[pikepdf.Name.Producer] = "pnp"
    out.save(cast(BinaryIO, handle), deterministic_id=True, compress_streams=True)
    for opened in sources:
        opened.close()
    return total


def _boxes(placed: list[tuple[_Placed, bool, Grid]]) -> tuple[Box, ...]:
    return tuple((shared.backs if back else shared.fronts)[p.slot] for p, back, shared in placed)


def _source(part: Part, shared: Grid, index: int, back: bool, spec: SheetSpec) -> tuple[int, int]:
    """Where pnp.pdf.write_cut_sheets drew a face: its page in the part's file, its number on that page."""
    sheet, slot = divmod(index, shared.per_sheet)
    if spec.duplex == "fold":  # fronts, then their backs, on one page
        on_sheet = min(shared.per_sheet, part.faces - sheet * shared.per_sheet)
        return sheet, slot + (on_sheet if back else 0)
    if spec.duplex != "none" and part.has_back:  # a fronts page, then its backs page
        return 2 * sheet + (1 if back else 0), slot
    return sheet, slot


def _face_forms(out: Any, source: Any, page_number: int) -> list[Any]:
    """Each face drawn on a source page, in slot order, as a form XObject of `out`.

    The page's content is split at its lines: pnp.pdf writes each face between a line
    `/PnpFace BMC` and its matching `EMC` (reportlab puts every operator on a line of its own,
    and a text operator's line never is exactly `EMC`). The faces share the page's resources,
    copied once.
    """
    import pikepdf

    page = source.pages[page_number]
    contents = page.obj.Contents
    streams = [contents] if isinstance(contents, pikepdf.Stream) else list(contents)
    lines = b"\n".join(stream.read_bytes() for stream in streams).split(b"\n")
    opening = b"/" + FACE_TAG.encode() + b" BMC"
    faces: list[list[bytes]] = []
    depth = 0
    for line in lines:
        bare = line.strip()
        if depth == 0:
            if bare == opening:
                faces.append([])
                depth = 1
            continue
        if bare.endswith((b" BMC", b" BDC")):
            depth += 1
        elif bare == b"EMC":
            depth -= 1
            if depth == 0:
                continue
        faces[-1].append(line)
    resources = out.copy_foreign(source.make_indirect(page.obj.Resources))
    box = [float(v) for v in page.mediabox]
    return [
        out.make_stream(
            b"\n".join(face),
            Type=pikepdf.Name.XObject,
            Subtype=pikepdf.Name.Form,
            BBox=box,
            Resources=resources,
        )
        for face in faces
    ]
