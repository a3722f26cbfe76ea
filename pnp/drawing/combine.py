"""The combined file of a game: every kind's faces packed onto shared sheets, kind after kind.

Faces of the same trim size and bleed share sheets (one grid), in the order of the kinds, so a
kind of two cards no longer takes a sheet of its own. Faces are not drawn again: pnp.drawing.pdf marks
each face's drawing on a per-kind page (marked content, FACE_TAG), each face becomes a form
XObject of its own and is placed, clipped to its bleed, at its slot on the shared sheet; the
combined file costs no rendering and shows exactly the per-kind faces.
Backs go to the back slot of their front, so duplex stays aligned.
Each face's own clip (cut back in its kind's butted file where a neighbour touched it) is widened
to its whole bleed and the face is clipped again at its slot here, so a face whose neighbour slot
is empty keeps its bleed on that edge whatever its neighbours were in its own file.
Tokens of several sizes share token sheets instead (pnp.drawing.shelf) where that takes fewer sheets:
there each face keeps its whole bleed and gets its own cut guide. [paper] mix-sizes shelf-packs
faces of every size together the same way: all of them (true), or only the part-filled last sheet
of each size ("last-sheets"), where that saves paper.
"""

from __future__ import annotations

import io
import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

from pnp.core.output import unwrapped
from pnp.drawing.impose import (
    MM,
    Box,
    ImpositionError,
    Mark,
    SheetSpec,
    clips,
    crop_marks,
    fold_line,
    for_faces,
    grid,
    oriented,
    pack,
)
from pnp.drawing.pdf import FACE_TAG, Frame, ink_extent, write_frames
from pnp.drawing.shelf import Piece, bleed_box, corner_ticks, hexagon, is_token, kind_sheets, shelf_pack, spacing


@dataclass(frozen=True, slots=True)
class Part:
    """One kind's file, as pnp.drawing.pdf.write_cut_sheets wrote it."""

    path: Path
    kind: str
    faces: int  # faces drawn in it, in slot order
    width: float  # trim, points
    height: float
    bleed: float
    has_back: bool
    shape: str = "rect"  # pnp.project.layout's `shape`: rect, rounded, round, hex
    spec: SheetSpec | None = None  # the sheets its own file was drawn on, when not the build's (a layout's cutting)
    title: str = ""  # the kind's name on the sheet's label: its schema's title ("" : the kind's key)


@dataclass(frozen=True, slots=True)
class _Placed:
    """One face of a part on a shared sheet of the combined file."""

    part: int
    index: int  # the face's number within its part
    front: Box  # its trim on the shared sheet
    back: Box
    front_clip: Box  # where it may paint
    back_clip: Box


@dataclass(frozen=True, slots=True)
class _Sheet:
    """One sheet of the combined file: its faces, and the spec they are cut by."""

    faces: tuple[_Placed, ...]
    spec: SheetSpec  # duplex and bleed of this sheet's faces
    tokens: bool = False  # a token sheet (pnp.drawing.shelf): each face keeps its whole bleed and its own cut guide


def _part_spec(part: Part, spec: SheetSpec) -> SheetSpec:
    return oriented(replace(for_faces(part.spec or spec, part.has_back), bleed=part.bleed), part.width, part.height)


def combined_sheets(parts: list[Part], spec: SheetSpec) -> list[_Sheet]:
    """Every sheet of the combined file, in order: per geometry (in order of first appearance)
    a shared grid; tokens of several sizes on shared token sheets where that takes fewer sheets;
    with [paper] mix-sizes, every face shelf-packed together ("all") or the part-filled last sheet
    of each size ("last-sheets"), where that takes fewer sheets."""
    groups: dict[tuple[float, float, float, str], list[int]] = {}
    for number, part in enumerate(parts):
        own = _part_spec(part, spec)
        key = (round(part.width, 3), round(part.height, 3), round(part.bleed, 3), own.cutting + str(own.gutter))
        groups.setdefault(key, []).append(number)
    gridded = {key: _grid_sheets(parts, members, spec) for key, members in groups.items()}
    for key, members in groups.items():  # hexagons of one size: a honeycomb where that takes fewer sheets
        if all(parts[m].shape == "hex" for m in members):
            honeycomb = _token_sheets(parts, members, spec)
            if honeycomb is not None and len(honeycomb) < len(gridded[key]):
                gridded[key] = honeycomb
    tokens = [key for key, members in groups.items() if is_token(parts[members[0]].width, parts[members[0]].height)]
    pooled = _token_sheets(parts, [m for key in tokens for m in groups[key]], spec) if len(tokens) > 1 else None
    if pooled is not None and len(pooled) >= sum(len(gridded[key]) for key in tokens):
        pooled = None  # token sheets only where they save paper
    runs: list[list[_Sheet]] = []  # each size's sheets (the pooled tokens' one run)
    for key in groups:
        if pooled is not None and key in tokens:
            if key == tokens[0]:
                runs.append(pooled)
            continue
        runs.append(gridded[key])
    result = [sheet for run in runs for sheet in run]
    if spec.mix_sizes == "all" and len(groups) > 1:  # every face of the game shelf-packed together
        mixed = _token_sheets(parts, [m for members in groups.values() for m in members], spec)
        if mixed is not None and len(mixed) < len(result):  # only where that saves paper
            return mixed
    if spec.mix_sizes == "last-sheets" and len(runs) > 1:
        return _last_sheets_mixed(parts, runs, spec)
    return result


def _last_sheets_mixed(parts: list[Part], runs: list[list[_Sheet]], spec: SheetSpec) -> list[_Sheet]:
    """`runs` with the last sheets of some sizes shelf-packed together after the others' sheets,
    where that saves paper: the least filled last sheets first (by the paper their faces and
    bleeds cover), as many of them as saves the most sheets (the fewest, of equal savings: each
    face moved loses its shared cut lines). Full sheets keep their grids."""

    def covered(sheet: _Sheet) -> float:
        return sum(
            (parts[p.part].width + 2 * parts[p.part].bleed) * (parts[p.part].height + 2 * parts[p.part].bleed)
            for p in sheet.faces
        )

    last = sorted((covered(run[-1]), number) for number, run in enumerate(runs) if run)
    best: tuple[int, list[int], list[_Sheet]] = (0, [], [])
    for count in range(2, len(last) + 1):
        chosen = [number for _, number in last[:count]]
        pieces = [piece for number in chosen for piece in _pieces(parts, runs[number][-1])]
        mixed = _shelf_sheets(parts, pieces, spec)
        if mixed is not None and count - len(mixed) > best[0]:
            best = (count - len(mixed), chosen, mixed)
    saved, chosen, mixed = best
    if not saved:
        return [sheet for run in runs for sheet in run]
    kept = [sheet for number, run in enumerate(runs) for sheet in (run[:-1] if number in chosen else run)]
    return kept + mixed


def _pieces(parts: list[Part], sheet: _Sheet) -> list[Piece]:
    """The faces of `sheet` as shelf pieces: each part's faces on it (a run of its numbers)."""
    numbers: dict[int, list[int]] = {}
    for placed in sheet.faces:
        numbers.setdefault(placed.part, []).append(placed.index)
    pieces = []
    for m, indexes in numbers.items():
        part = parts[m]
        for start, count in _spans(sorted(indexes)):
            pieces.append(Piece(m, count, part.width, part.height, part.bleed, part.shape, part.has_back, start))
    return pieces


def _spans(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted numbers as (first, count) runs of consecutive ones."""
    spans: list[tuple[int, int]] = []
    for number in numbers:
        if spans and spans[-1][0] + spans[-1][1] == number:
            spans[-1] = (spans[-1][0], spans[-1][1] + 1)
        else:
            spans.append((number, 1))
    return spans


def _group_spec(parts: list[Part], members: list[int], spec: SheetSpec) -> SheetSpec:
    """The sheets a group of parts of one size share: the first part's cutting, turned for it."""
    first = parts[members[0]]
    group_spec = replace(for_faces(first.spec or spec, any(parts[m].has_back for m in members)), bleed=first.bleed)
    return oriented(group_spec, first.width, first.height)


def _grid_sheets(parts: list[Part], members: list[int], spec: SheetSpec) -> list[_Sheet]:
    first = parts[members[0]]
    group_spec = _group_spec(parts, members, spec)
    shared = grid(first.width, first.height, group_spec)
    sheets = pack([parts[m].faces for m in members], shared.per_sheet)
    result = []
    clipped: dict[int, tuple[tuple[Box, ...], tuple[Box, ...]]] = {}  # full sheets alike: worked out once
    for sheet in sheets:
        used = len(sheet)  # an empty slot is no neighbour: the faces beside it keep their bleed there
        fronts, backs = shared.fronts[:used], shared.backs[:used]
        if used not in clipped:
            clipped[used] = (tuple(clips(fronts, group_spec)), tuple(clips(backs, group_spec)))
        front_clips, back_clips = clipped[used]
        placed = tuple(
            _Placed(members[p], i, fronts[slot], backs[slot], front_clips[slot], back_clips[slot])
            for slot, (p, i) in enumerate(sheet)
        )
        result.append(_Sheet(placed, group_spec))
    return result


def _token_sheets(parts: list[Part], members: list[int], spec: SheetSpec) -> list[_Sheet] | None:
    """Tokens of several sizes shelf-packed (pnp.drawing.shelf); None when one does not fit the page.
    One kind alone is laid on its own sheets (its layout's cutting), as in its own file."""
    pieces = [
        Piece(m, parts[m].faces, parts[m].width, parts[m].height, parts[m].bleed, parts[m].shape, parts[m].has_back)
        for m in members
    ]
    return _shelf_sheets(parts, pieces, spec)


def _shelf_sheets(parts: list[Part], pieces: list[Piece], spec: SheetSpec) -> list[_Sheet] | None:
    """`pieces` shelf-packed on token sheets, in the orientation taking fewer (auto); None when one
    does not fit the page. One part's alone keep its own sheets' cutting."""
    members = {piece.part for piece in pieces}
    own = parts[next(iter(members))].spec if len(members) == 1 else None
    token_spec = replace(
        for_faces(own or spec, any(p.has_back for p in pieces)), bleed=max(p.bleed for p in pieces), cutting="gutter"
    )
    turns = [oriented(token_spec, 0, 0)] if token_spec.orientation != "auto" else [
        replace(token_spec, orientation="portrait"), replace(token_spec, orientation="landscape")
    ]  # fmt: skip
    packings = []
    for turned in turns:
        turned = oriented(turned, 0, 0)
        try:
            packings.append((len(shelf_pack(pieces, turned)), turned))
        except ImpositionError:
            continue
    if not packings:
        return None
    token_spec = min(packings, key=lambda packing: packing[0])[1]  # auto: the orientation taking fewer sheets
    sheets = shelf_pack(pieces, token_spec)
    return [
        _Sheet(
            tuple(
                _Placed(
                    s.part,
                    s.index,
                    s.front,
                    s.back,
                    bleed_box(s.front, parts[s.part].bleed),
                    bleed_box(s.back, parts[s.part].bleed),
                )
                for s in sheet
            ),
            token_spec,
            tokens=True,
        )
        for sheet in sheets
    ]


def sheet_count(parts: list[Part], spec: SheetSpec) -> int:
    """Sheets of paper the combined file takes (the same parts, wherever their files are, are
    counted once: a build asks for a kind's count and its read-me page again)."""
    return _sheet_count(tuple(replace(part, path=Path()) for part in parts), spec)


@lru_cache(maxsize=64)
def _sheet_count(parts: tuple[Part, ...], spec: SheetSpec) -> int:
    if len(parts) == 1 and parts[0].shape != "hex":  # one grid (combined_sheets): counted, not laid out
        part = parts[0]
        per_sheet = grid(part.width, part.height, _group_spec(list(parts), [0], spec)).per_sheet
        return -(-part.faces // per_sheet)  # every sheet full but the last (pnp.drawing.impose.pack)
    return len(combined_sheets(list(parts), spec))


def write_combined(
    handle: IO[bytes], parts: list[Part], spec: SheetSpec, title: str, name: str, front: bytes = b""
) -> int:
    """Write the packed file; returns its number of sheets. In duplex every sheet has a back page
    (blank where no face on it has a back), so fronts stay on odd pages; in fold, one page a sheet.
    `front`: a PDF whose pages come first (the game's read-me, an even count in duplex)."""
    import pikepdf

    layout = combined_sheets(parts, spec)
    total = len(layout)
    frames: list[Frame] = []
    pages: list[list[tuple[_Placed, bool, bool]]] = []  # per page: each face, whether its back, on a token sheet
    for number, sheet in enumerate(layout, 1):
        sheet_spec = sheet.spec
        kinds = " + ".join(dict.fromkeys(parts[p.part].title or parts[p.part].kind for p in sheet.faces))
        label = f"{name}: {kinds} {number}/{total}"
        fronts = [(p, False, sheet.tokens) for p in sheet.faces]
        backs = [(p, True, sheet.tokens) for p in sheet.faces if parts[p.part].has_back and sheet_spec.duplex != "none"]
        if sheet_spec.duplex == "fold":
            pages.append(fronts + backs)
            boxes = _boxes(fronts + backs)
            ink = ink_extent(boxes, sheet_spec.bleed)
            frames.append(
                Frame(_guides(fronts + backs, parts, sheet), label, fold_line(boxes, sheet_spec), sheet_spec, ink)
            )
            continue
        pages.append(fronts)
        ink = ink_extent(_boxes(fronts), sheet_spec.bleed)
        frames.append(Frame(_guides(fronts, parts, sheet), f"{label}, fronts", spec=sheet_spec, ink=ink))
        if sheet_spec.duplex != "none":
            pages.append(backs)
            ink = ink_extent(_boxes(backs), sheet_spec.bleed)
            back_label = f"{label}, backs" if backs else ""
            frames.append(Frame(_guides(backs, parts, sheet), back_label, spec=sheet_spec, ink=ink))
    buffer = io.BytesIO()
    write_frames(buffer, frames, spec, title)
    buffer.seek(0)
    out = pikepdf.open(buffer)
    sources = [pikepdf.open(part.path) for part in parts]
    forms: dict[tuple[int, int], list[Any]] = {}  # the faces of each per-kind page, copied once
    specs = [_part_spec(part, spec) for part in parts]
    own_sheets = [
        kind_sheets(Piece(0, part.faces, part.width, part.height, part.bleed, part.shape, part.has_back), part_spec)
        for part, part_spec in zip(parts, specs, strict=True)
    ]
    firsts = [[sheet.first for sheet in sheets] for sheets in own_sheets]  # to find a face's sheet
    for page, placed in zip(out.pages, pages, strict=True):
        commands: list[str] = []
        for number, (face, back, whole) in enumerate(placed):
            part = parts[face.part]
            sheets = own_sheets[face.part]  # the sheets the part's own file was drawn on
            sheet_number = bisect_right(firsts[face.part], face.index) - 1
            own = sheets[sheet_number]
            slot = face.index - own.first
            source_page, drawn = _source(part, sheet_number, len(own.fronts), slot, back, specs[face.part])
            if (face.part, source_page) not in forms:  # each face with its whole bleed, clipped here to its slot
                forms[face.part, source_page] = _face_forms(out, sources[face.part], source_page, part)
            resource = pikepdf.Name(f"/PnpFace{number}")  # not add_resource's random prefix: same bytes each build
            page.add_resource(forms[face.part, source_page][drawn], pikepdf.Name.XObject, resource)
            origin = (own.backs if back else own.fronts)[slot]
            target = face.back if back else face.front
            area = face.back_clip if back else face.front_clip  # its bleed, cut back only where a neighbour is close
            dx, dy = target.x - origin.x, target.y - origin.y
            outline = ""
            if whole and part.shape == "hex":  # a honeycomb's neighbours come close: the grown hexagon only
                corners = hexagon(target, part.bleed)
                outline = " ".join(f"{x:.4f} {y:.4f} {'m' if i == 0 else 'l'}" for i, (x, y) in enumerate(corners))
                outline += " h W n "
            commands.append(
                f"q {area.x:.4f} {area.y:.4f} {area.width:.4f} {area.height:.4f} re W n {outline}"
                f"1 0 0 1 {dx:.4f} {dy:.4f} cm {resource} Do Q"
            )
        if commands:
            page.contents_add(out.make_stream(("q\n" + "\n".join(commands) + "\nQ\n").encode()), prepend=True)
    if front:
        matter = pikepdf.open(io.BytesIO(front))
        for number, page in enumerate(matter.pages):
            out.pages.insert(number, page)
    unique_subset_tags(out)
    out.docinfo[pikepdf.Name.Title] = title
    out.docinfo[pikepdf.Name.Creator] = "pnp"
    out.docinfo[pikepdf.Name.Producer] = "pnp"
    out.save(cast(BinaryIO, unwrapped(handle)), deterministic_id=True, compress_streams=True)
    for opened in sources:
        opened.close()
    return total


def unique_subset_tags(pdf: Any) -> None:
    """Give every embedded font subset of `pdf` a tag of its own (AAAAAA+, AAAAAB+, ... in object
    order): each kind's file names its first subset of a font AAAAAA+ (reportlab), so a file
    made of several would hold many subsets under one name, which preflight flags and a RIP
    may confuse. The descriptor's FontName follows its font's."""
    import pikepdf

    number = 0
    for font in pdf.objects:
        if not isinstance(font, pikepdf.Dictionary) or font.get("/Type") != pikepdf.Name.Font:
            continue
        base = str(font.get("/BaseFont", ""))
        if len(base) < 9 or base[7] != "+":  # "/AAAAAA+Name": a subset
            continue
        name = pikepdf.Name("/" + subset_tag(number) + base[7:])
        number += 1
        font.BaseFont = name
        descriptor = font.get("/FontDescriptor")
        if isinstance(descriptor, pikepdf.Dictionary):
            descriptor.FontName = name


def subset_tag(number: int) -> str:
    """The number-th subset tag: six capital letters (AAAAAA, AAAAAB, ... as base 26)."""
    letters = []
    for _ in range(6):
        number, digit = divmod(number, 26)
        letters.append(chr(ord("A") + digit))
    return "".join(reversed(letters))


def _boxes(placed: list[tuple[_Placed, bool, bool]]) -> tuple[Box, ...]:
    return tuple(p.back if back else p.front for p, back, _ in placed)


def _guides(placed: list[tuple[_Placed, bool, bool]], parts: list[Part], sheet: _Sheet) -> tuple[Mark, ...]:
    """Crop marks at the grid's trim lines; on a token sheet, each rectangular token's own corner
    ticks (round and hex tokens carry their hairline cut guide, drawn with the face)."""
    if not sheet.tokens:
        return crop_marks(_boxes(placed), sheet.spec)
    reach = spacing(sheet.spec.bleed, sheet.spec) / 2 - 0.5 * MM  # a token sheet's spec holds its largest bleed
    return tuple(
        mark
        for p, back, _ in placed
        if parts[p.part].shape not in ("round", "hex")
        for mark in corner_ticks(p.back if back else p.front, reach)
    )


def _source(part: Part, sheet: int, on_sheet: int, slot: int, back: bool, spec: SheetSpec) -> tuple[int, int]:
    """Where pnp.drawing.pdf.write_cut_sheets drew a face (the `slot`th of the `on_sheet` faces of its
    `sheet`): its page in the part's file, its number on that page."""
    if spec.duplex == "fold":  # fronts, then their backs, on one page
        return sheet, slot + (on_sheet if back else 0)
    if spec.duplex != "none" and part.has_back:  # a fronts page, then its backs page
        return 2 * sheet + (1 if back else 0), slot
    return sheet, slot


_CLIP = re.compile(rb"n [-0-9. ]+ re W\*? n")


def _face_forms(out: Any, source: Any, page_number: int, whole: Part) -> list[Any]:
    """Each face drawn on a source page, in slot order, as a form XObject of `out`.

    Each face's own clip (pnp.drawing.render's first `re W* n`, cut back in its file where butted
    neighbours touched it) becomes its whole bleed box (`whole`: the face's part).

    The page's content is split at its lines: pnp.drawing.pdf writes each face between a line
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
    clipped = True  # the current face's own clip is seen (or not to be changed)
    for line in lines:
        bare = line.strip()
        if depth == 0:
            if bare == opening:
                faces.append([])
                depth = 1
                clipped = False
            continue
        if bare.endswith((b" BMC", b" BDC")):
            depth += 1
        elif bare == b"EMC":
            depth -= 1
            if depth == 0:
                continue
        if not clipped and _CLIP.fullmatch(bare):
            clipped = True
            b = whole.bleed
            line = f"n {-b:.4f} {-b:.4f} {whole.width + 2 * b:.4f} {whole.height + 2 * b:.4f} re W n".encode()
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
