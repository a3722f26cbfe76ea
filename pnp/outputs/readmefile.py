"""A game's "read me first" page planned from the build: its files, their sheets, its other files
(aids, setup sheets, booklets) and their pages, paper, duplex, cutting (pnp.drawing.readme draws it)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pnp.core.output import current
from pnp.core.units import MM, PRINTERS
from pnp.drawing.readme import Document, PrintedFile, ReadMe, write_read_me

if TYPE_CHECKING:
    from pnp.drawing.combine import Part
    from pnp.drawing.impose import SheetSpec
    from pnp.project.config import Project
    from pnp.sheets.build import SheetResult


def plan_read_me(
    project: Project,
    paper: str,
    spec: SheetSpec,
    parts: list[Part],
    combined: Path | None,
    out_root: Path,
    names: Mapping[str, str] | None = None,
    documents: tuple[Document, ...] = (),
    own_sheets: int = 0,
) -> ReadMe:
    """The read-me of the game whose kinds' files are `parts` (`combined`: its combined file, if
    written, which holds `own_sheets` sheets of this read-me first). `names`: each kind's name for
    people (its schema's title); `documents`: the game's other files (documents_of)."""
    from pnp.drawing.combine import combined_sheets, sheet_count

    game = project.game(parts[0].kind)
    shown = {part.kind: (names or {}).get(part.kind) or part.kind for part in parts}
    files = []
    if combined is not None:
        packed = len(combined_sheets(parts, spec)) + own_sheets
        what = f"this page first, then the {len(parts)} files below packed together"
        files.append(PrintedFile(_shown(combined, out_root), what, packed))
    for part in parts:
        faces = f"{part.faces} face{'s' if part.faces != 1 else ''}"
        files.append(
            PrintedFile(
                _shown(part.path, out_root, game.folder, part.kind),
                f"{shown[part.kind]}, {faces}",
                sheet_count([part], spec),
            )
        )
    first = parts[0]
    size = f"{first.width / MM:g} x {first.height / MM:g} mm"
    named = f" \N{EM DASH} {shown[first.kind]} \N{EM DASH}" if shown[first.kind] != first.kind else ""
    margin = spec.margin / MM
    reach = PRINTERS[project.sheet.printer]
    margins = f"{margin:g} mm" + (
        f" (a {project.sheet.printer} printer prints to {reach:g} mm of the edge)" if reach else ""
    )
    width, height = spec.page_width / MM, spec.page_height / MM
    turned = f", {spec.orientation}" if spec.orientation in ("portrait", "landscape") else ""
    turned = ", each kind turned the way that fits most" if spec.orientation == "auto" else turned
    return ReadMe(
        title=game.title,
        paper=f"{paper} ({width:.1f} x {height:.1f} mm){turned}",
        margins=margins,
        duplex=spec.duplex if any(part.has_back for part in parts) else "none",  # no backs: nothing to turn
        check=f"a face of {_shown(first.path, out_root, game.folder, first.kind)}{named} "
        f"measures {size} between its crop marks",
        files=tuple(files),
        cutting=tuple(_cutting(parts, spec, combined is not None)),
        not_included=game.not_included,
        documents=documents,
        combined=_shown(combined, out_root) if combined is not None else "",
    )


def settled_read_me(
    project: Project,
    paper: str,
    spec: SheetSpec,
    parts: list[Part],
    combined: Path | None,
    out_root: Path,
    names: Mapping[str, str] | None = None,
    documents: tuple[Document, ...] = (),
) -> tuple[ReadMe, bytes, int]:
    """The read-me, its pages as they open the combined file (an even count in duplex) and the sheets
    of paper they take: the combined file's sheet count on the page counts these too. Without a
    combined file (`combined` None) nothing counts them: the read-me is planned, not drawn (b"", 0)."""
    if combined is None:
        return plan_read_me(project, paper, spec, parts, None, out_root, names, documents, 1), b"", 0
    duplex = spec.duplex in ("long", "short") and any(part.has_back for part in parts)  # else fronts only
    own = 1
    for _ in range(4):  # a longer list may take a page more, which changes the count it prints
        readme = plan_read_me(project, paper, spec, parts, combined, out_root, names, documents, own)
        buffer = io.BytesIO()
        pages = write_read_me(buffer, readme, (spec.page_width, spec.page_height), even=duplex)
        sheets = (pages + 1) // 2 if duplex else pages
        if sheets == own:
            break
        own = sheets
    return readme, buffer.getvalue(), own


def documents_of(results: Iterable[SheetResult], folder: Path, out_root: Path) -> tuple[Document, ...]:
    """The sheet files' outputs under a game's folder (`folder`) that exist, with their pages."""
    results = list(results)
    if not results:
        return ()  # no sheet files: pikepdf is not even imported (a small build's start-up)
    import pikepdf

    found = []
    folder, out_root = folder.resolve(), out_root.resolve()  # a sheet's output path is resolved
    for result in results:
        path = current(result.path)
        if not result.path.resolve().is_relative_to(folder) or not path.is_file():
            continue
        with pikepdf.open(path) as pdf:
            pages = len(pdf.pages)
        what = result.title or result.path.stem
        if result.subtitle and result.subtitle != result.title:
            what += f" ({result.subtitle})"
        found.append(Document(_shown(result.path.resolve(), out_root), what, pages))
    return tuple(sorted(found, key=lambda document: (document.name.count("/"), document.name)))


def _shown(path: Path, out_root: Path, folder: str = "", kind: str = "") -> str:
    """A file as the user finds it from the output folder (the part's own file, not the temporary one)."""
    if kind:
        return f"{folder}/{kind}.pdf"
    return path.relative_to(out_root).as_posix() if path.is_relative_to(out_root) else path.name


def _cutting(parts: list[Part], spec: SheetSpec, combined: bool) -> list[str]:
    """What to cut first, then what: the steps that apply to these kinds' shapes and cutting, on
    the sheets this build makes (gaps only where a kind is cut with gutters, or where the
    combined file lays tokens on token sheets)."""
    from pnp.drawing.combine import combined_sheets

    styles = {(part.spec or spec).cutting for part in parts}
    shapes = {part.shape for part in parts}
    token_sheets = combined and any(sheet.tokens for sheet in combined_sheets(parts, spec))
    steps = [
        "Trim the sheet's margins off first; then cut the lines that run right across the sheet, "
        "where the crop marks in the margins point, into strips, and each strip into faces."
    ]
    if "butted" in styles:
        steps.append("Butted faces share their cut lines: one cut between two neighbours.")
    if "gutter" in styles or token_sheets:
        steps.append(
            "Faces with a gap between them (gutter cutting, token sheets) keep their own bleed: two cuts "
            "between neighbours, along each face's corner marks; cut the gap away."
        )
    if shapes & {"round", "hex"}:  # the shapes this game has: "Round tokens", "Hex tokens", "Round and hex tokens"
        named = " and ".join(shape for shape in ("round", "hex") if shape in shapes).capitalize()
        steps.append(f"{named} tokens: cut their square out first, then along their grey hairline.")
    if "rounded" in shapes:
        steps.append("Rounded cards: round their corners last, with a corner punch.")
    return steps
