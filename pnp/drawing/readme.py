"""The "read me first" page of a game: how to print and cut its files, written from the build's data.

What to print (the combined file, or each kind's file, and how many sheets each takes), every
other file the build makes for the game (reference aids, setup sheets, booklets: what each is and
its pages, and that the combined file does not hold them), on which paper, at 100 %, which duplex
edge (or fold and glue), what to cut first, and what the kit does not include (`[games.X]
not-included` in pnp.toml). pnp.outputs.build writes it as `output/<game>/read-me-first.pdf` and
as the first page of the combined file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from pnp.core.units import MM
from pnp.drawing.fonts import SANS
from pnp.drawing.pdf import new_canvas

DUPLEX_STEPS = {
    "long": "Print double-sided, flipping on the long edge (long-edge binding). Each sheet is a page of "
    "fronts followed by the page of their backs.",
    "short": "Print double-sided, flipping on the short edge (short-edge binding). Each sheet is a page of "
    "fronts followed by the page of their backs.",
    "fold": "Print single-sided. Each page holds the fronts and, beside them, their backs: fold the sheet "
    "along the dashed line, glue the halves back to back, let it dry, then cut.",
    "none": "Print single-sided: fronts only.",
}


@dataclass(frozen=True, slots=True)
class PrintedFile:
    """One file of the game, as the read-me lists it."""

    name: str  # as the user finds it, relative to the output folder
    what: str  # the kinds it holds
    sheets: int


@dataclass(frozen=True, slots=True)
class Document:
    """A file of the game that is no cut sheet (a sheet file's output: an aid, a setup sheet, a booklet)."""

    name: str  # relative to the output folder
    what: str  # its title as printed on it (and its subtitle)
    pages: int


@dataclass(frozen=True, slots=True)
class ReadMe:
    """What a game's read-me page says (its repr is the page's digest: pnp.outputs.build)."""

    title: str
    paper: str  # "a4 (210 x 297 mm)"
    margins: str  # "4 mm (a home printer's reach)"
    duplex: str
    check: str  # a face to measure: "Poker card faces measure 63 x 88 mm between their crop marks"
    files: tuple[PrintedFile, ...]
    cutting: tuple[str, ...]  # what to cut first, then what
    not_included: tuple[str, ...] = ()
    documents: tuple[Document, ...] = ()
    combined: str = ""  # the combined file's name, when one is written ("" when each kind's file is all)


def read_me_lines(readme: ReadMe) -> list[tuple[str, str]]:
    """The page as (style, text) lines: "title", "heading", "text", "item"."""
    lines: list[tuple[str, str]] = [("title", readme.title), ("subtitle", "Read me first: printing and cutting")]
    lines.append(("heading", "1. What to print: the cards and tokens"))
    for number, printed in enumerate(readme.files):
        plural = "s" if printed.sheets != 1 else ""
        lead = "All of them, in one file: " if number == 0 and readme.combined else ""
        lines.append(("item", f"{lead}{printed.name}: {printed.what}, {printed.sheets} sheet{plural} of paper"))
    if readme.combined:
        lines.append(("text", "Print the first file, or the others one by one (to reprint a single kind)."))
    section = 2
    if readme.documents:
        lines.append(("heading", f"{section}. Other files of this game"))
        where = f" (not in {readme.combined})" if readme.combined else ""
        lines.append(("text", f"Each is a file of its own{where}: print the ones you need, at 100 %."))
        for document in readme.documents:
            plural = "s" if document.pages != 1 else ""
            lines.append(("item", f"{document.name}: {document.what}, {document.pages} page{plural}"))
        section += 1
    lines.append(("heading", f"{section}. How to print"))
    lines.append(("item", f"Paper: {readme.paper}; margins {readme.margins}."))
    lines.append(
        (
            "item",
            "Scale: 100 % (actual size). Turn off 'fit to page' and 'shrink oversized pages'; "
            f"then check one printed sheet: {readme.check}.",
        )
    )
    lines.append(("item", DUPLEX_STEPS.get(readme.duplex, DUPLEX_STEPS["long"])))
    lines.append(("item", "Each sheet's label (in its margin) names its file and number, to sort a printed stack."))
    lines.append(("heading", f"{section + 1}. What to cut first"))
    lines.extend(("item", step) for step in readme.cutting)
    if readme.not_included:
        lines.append(("heading", f"{section + 2}. Not included in this kit"))
        lines.extend(("item", thing) for thing in readme.not_included)
    return lines


STYLES = {  # font, size, space before (points)
    "title": (SANS.bold, 18, 0),
    "subtitle": (SANS.regular, 12, 6),
    "heading": (SANS.bold, 12, 14),
    "text": (SANS.regular, 10, 4),
    "item": (SANS.regular, 10, 4),
}


BLANK_BACK = (
    "This side is left blank on purpose: the back of the read-me page, so that the cut sheets start on a front."
)


def write_read_me(handle: IO[bytes], readme: ReadMe, pagesize: tuple[float, float], even: bool = False) -> int:
    """One page (more if the lists are long), in the build's paper, with 20 mm margins; `even`:
    a blank page after an odd count, so that a duplex file's sheets still start on a front.
    Returns the pages written."""
    from reportlab.lib.utils import simpleSplit

    canvas = new_canvas(handle, pagesize, f"{readme.title}: read me first")
    width, height = pagesize
    left, top, bottom = 20 * MM, height - 20 * MM, 20 * MM
    y = top
    for style, text in read_me_lines(readme):
        font, size, before = STYLES[style]
        indent = 5 * MM if style == "item" else 0.0
        wrapped = simpleSplit(text, font, size, width - 2 * left - indent)
        y -= before
        for number, line in enumerate(wrapped):
            if y - size * 1.3 < bottom:
                canvas.showPage()
                y = top
            y -= size * 1.3
            canvas.setFont(font, size)
            if style == "item" and number == 0:
                canvas.drawString(left, y, "\u2022")
            canvas.drawString(left + indent, y, line)
    canvas.showPage()
    if even and canvas.getPageNumber() % 2 == 0:  # the next page would be a back: left blank, and says so
        canvas.setFont(SANS.regular, 8)
        canvas.setFillGray(0.45)
        canvas.drawCentredString(width / 2, bottom, BLANK_BACK)
        canvas.showPage()
    pages = int(canvas.getPageNumber()) - 1
    canvas.save()
    return pages
