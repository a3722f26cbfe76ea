"""A game's "read me first" page planned from the build: its files, their sheets, paper, duplex,
cutting (pnp.drawing.readme draws it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pnp.core.units import MM, PRINTERS
from pnp.drawing.readme import PrintedFile, ReadMe

if TYPE_CHECKING:
    from pnp.drawing.combine import Part
    from pnp.drawing.impose import SheetSpec
    from pnp.project.config import Project


def plan_read_me(
    project: Project, paper: str, spec: SheetSpec, parts: list[Part], combined: Path | None, out_root: Path
) -> ReadMe:
    """The read-me of the game whose kinds' files are `parts` (`combined`: its combined file, if written)."""
    from pnp.drawing.combine import sheet_count

    game = project.game(parts[0].kind)
    files = []
    if combined is not None:
        kinds = ", ".join(part.kind for part in parts)
        files.append(PrintedFile(_shown(combined, out_root), f"every kind ({kinds})", sheet_count(parts, spec)))
    for part in parts:
        faces = f"{part.faces} face{'s' if part.faces != 1 else ''}"
        files.append(
            PrintedFile(
                _shown(part.path, out_root, game.folder, part.kind), f"{part.kind}, {faces}", sheet_count([part], spec)
            )
        )
    first = parts[0]
    size = f"{first.width / MM:g} x {first.height / MM:g} mm"
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
        duplex=spec.duplex,
        check=f"a {first.kind} face measures {size} between its crop marks",
        files=tuple(files),
        cutting=tuple(_cutting(parts, spec)),
        not_included=game.not_included,
    )


def _shown(path: Path, out_root: Path, folder: str = "", kind: str = "") -> str:
    """A file as the user finds it from the output folder (the part's own file, not the temporary one)."""
    if kind:
        return f"{folder}/{kind}.pdf"
    return path.relative_to(out_root).as_posix() if path.is_relative_to(out_root) else path.name


def _cutting(parts: list[Part], spec: SheetSpec) -> list[str]:
    """What to cut first, then what: the steps that apply to these kinds' shapes and cutting."""
    from pnp.drawing.shelf import is_token

    styles = {(part.spec or spec).cutting for part in parts}
    shapes = {part.shape for part in parts}
    steps = [
        "Trim the sheet's margins off first; then cut the lines that run right across the sheet, "
        "where the crop marks in the margins point, into strips, and each strip into faces."
    ]
    if "butted" in styles:
        steps.append("Butted faces share their cut lines: one cut between two neighbours.")
    if "gutter" in styles or any(is_token(p.width, p.height) for p in parts) or spec.mix_sizes:
        steps.append(
            "Faces with a gap between them (gutter cutting, token sheets) keep their own bleed: two cuts "
            "between neighbours, along each face's corner marks; cut the gap away."
        )
    if shapes & {"round", "hex"}:
        steps.append("Round and hex tokens: cut their square out first, then along their grey hairline.")
    if "rounded" in shapes:
        steps.append("Rounded cards: round their corners last, with a corner punch.")
    return steps
