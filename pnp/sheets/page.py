"""The page every sheet is printed on: styles, header and footer, page numbers, markers.

A `SheetDoc` draws the current section's header at the top of each page and "game, page N of
M" at the foot; the canvas keeps its pages until the file is saved, when M is known, so a sheet
is laid out once (SheetCanvas).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate

from pnp.drawing import fonts
from pnp.sheets.inline import InlineArt, draw_inline

SANS = fonts.SANS
MARGIN_X = 15 * mm
MARGIN_TOP = 20 * mm
MARGIN_BOTTOM = 16 * mm
CELL_PAD = 3
INK = colors.HexColor("#1b2a3a")
ACCENT = colors.HexColor("#1f4e79")
GREY = colors.HexColor("#5f6b76")
RULE = colors.HexColor("#9aa5b1")
HEAD_BG = colors.HexColor("#dfe7ef")
ZEBRA = colors.HexColor("#f4f7fa")


@dataclass(frozen=True, slots=True)
class Where:
    """What is being drawn, for problems: the sheet file's pointer and the record's id."""

    pointer: str
    rid: str = ""


@dataclass(frozen=True, slots=True)
class Styles:
    title: ParagraphStyle
    subtitle: ParagraphStyle
    h1: ParagraphStyle
    h2: ParagraphStyle
    h3: ParagraphStyle
    body: ParagraphStyle
    label: ParagraphStyle
    small: ParagraphStyle
    item: ParagraphStyle
    item2: ParagraphStyle
    cell: ParagraphStyle
    cell_bold: ParagraphStyle
    head: ParagraphStyle
    token: ParagraphStyle
    toc: tuple[ParagraphStyle, ...]


def make_styles() -> Styles:
    def style(name: str, size: float, leading: float, bold: bool = False, italic: bool = False, **kw: Any) -> Any:
        return ParagraphStyle(
            name,
            fontName=SANS.pick(bold, italic),
            bulletFontName=SANS.regular,
            fontSize=size,
            leading=leading,
            textColor=kw.pop("textColor", INK),
            splitLongWords=1,
            **kw,
        )

    return Styles(
        title=style("pnp-title", 17, 21, True, textColor=ACCENT, spaceAfter=2),
        subtitle=style("pnp-subtitle", 9.5, 12.5, False, True, textColor=GREY, spaceAfter=4),
        h1=style("pnp-h1", 13.5, 17, True, textColor=ACCENT, spaceBefore=10, spaceAfter=4),
        h2=style("pnp-h2", 11.5, 14, True, textColor=ACCENT, spaceBefore=9, spaceAfter=3),
        h3=style("pnp-h3", 9.5, 12, True, spaceBefore=5, spaceAfter=2),
        body=style("pnp-body", 9, 11.5, spaceAfter=2),
        label=style("pnp-label", 9, 11.5, spaceBefore=2, spaceAfter=1.5),
        small=style("pnp-small", 7.5, 9.5, False, True, textColor=GREY),
        item=style("pnp-item", 9, 11.5, leftIndent=13, bulletIndent=1, spaceAfter=1.5),
        item2=style("pnp-item2", 8.5, 11, leftIndent=27, bulletIndent=15, spaceAfter=1),
        cell=style("pnp-cell", 8, 10),
        cell_bold=style("pnp-cell-bold", 8, 10, True),
        head=style("pnp-head", 8, 10, True, textColor=ACCENT),
        token=style("pnp-token", 7, 8.2, True, alignment=TA_CENTER),
        toc=(
            style("pnp-toc1", 10.5, 16, False, leftIndent=0, firstLineIndent=0, spaceBefore=2),
            style("pnp-toc2", 9.5, 13, False, leftIndent=14, firstLineIndent=0),
            style("pnp-toc3", 9, 12, False, leftIndent=28, firstLineIndent=0),
        ),
    )


class Mark(Flowable):  # type: ignore[misc]
    """Zero-size marker: starts a section (header text, page numbering) or says what is drawn."""

    def __init__(
        self, header: str | None = None, section: int | None = None, where: Where | None = None, level: int = 0
    ) -> None:
        super().__init__()
        self.header = header
        self.section = section
        self.where = where
        self.level = level

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        canv = self.canv
        if self.header is not None:
            canv.pnp_header = self.header
        if self.section is not None:
            canv.pnp_section = self.section
            key = f"section-{self.section}"
            canv.bookmarkPage(key)
            canv.addOutlineEntry(self.header or key, key, self.level, closed=False)
        if self.where is not None:
            canv.pnp_where = self.where


class SheetDoc(BaseDocTemplate):  # type: ignore[misc]
    """One PDF: a header with the section's title, a footer with the game and page N of M."""

    def __init__(
        self, buffer: io.BytesIO, pagesize: tuple[float, float], title: str, footer: str, per_section: bool,
    ) -> None:  # fmt: skip
        super().__init__(
            buffer, pagesize=pagesize, leftMargin=MARGIN_X, rightMargin=MARGIN_X, topMargin=MARGIN_TOP,
            bottomMargin=MARGIN_BOTTOM, title=title, author="pnp", creator="pnp", subject=footer, invariant=1,
        )  # fmt: skip
        self.footer = footer
        self.per_section = per_section
        self.counts: dict[int, int] = {}
        frame = Frame(
            self.leftMargin, self.bottomMargin, self.width, self.height, id="body",
            leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0,
        )  # fmt: skip
        self.pending: list[Flowable] = []
        self.addPageTemplates([PageTemplate(id="sheet", frames=[frame], onPage=self._header, onPageEnd=self._footer)])

    def build(self, flowables: list[Flowable], *args: Any, **kwargs: Any) -> None:
        self.pending = flowables  # the list platypus consumes: its head is what the next page starts with
        super().build(flowables, *args, **kwargs)

    def beforeDocument(self) -> None:
        self.counts = {}  # multiBuild lays the document out more than once

    def afterFlowable(self, flowable: Flowable) -> None:
        entry = getattr(flowable, "_pnp_toc", None)
        if entry is not None:
            level, text, key = entry
            self.notify("TOCEntry", (level, text, self.page, key))

    def _header(self, canv: Canvas, doc: Any) -> None:
        """Drawn first on each page (so text extraction reads it first): the section's title."""
        for flowable in self.pending[:12]:  # a section starting on this page: its title, not the last one
            if not isinstance(flowable, Mark):
                break
            if flowable.header is not None:
                canv.pnp_header = flowable.header
                canv.pnp_section = flowable.section
        width, height = self.pagesize
        canv.saveState()
        title = str(getattr(canv, "pnp_header", ""))
        top = height - MARGIN_TOP + 7 * mm
        size = 9.0
        room = width - 2 * MARGIN_X
        while size > 6 and stringWidth(title, SANS.bold, size) > room:
            size -= 0.5
        while title and stringWidth(title, SANS.bold, size) > room:
            title = title[:-2] + "\u2026"
        canv.setFont(SANS.bold, size)
        canv.setFillColor(ACCENT)
        canv.drawString(MARGIN_X, top, title)
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.6)
        canv.line(MARGIN_X, top - 3, width - MARGIN_X, top - 3)
        canv.restoreState()

    def _footer(self, canv: Canvas, doc: Any) -> None:
        """At the end of each page: which page of its section (or of the file) it is. The footer
        itself is drawn when the file is saved (SheetCanvas.save), once every count is known: so
        the body is laid out once, not again for "of M"."""
        section = int(getattr(canv, "pnp_section", 1) or 1) if self.per_section else 0
        self.counts[section] = self.counts.get(section, 0) + 1
        canv.pnp_footer = (self, section, self.counts[section])

    def draw_footer(self, canv: Canvas, section: int, number: int) -> None:
        """The footer text, and page N of M (of the section, or of the file)."""
        total = self.counts.get(section)
        width, _height = self.pagesize
        canv.saveState()
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.6)
        bottom = MARGIN_BOTTOM - 8 * mm
        canv.line(MARGIN_X, bottom + 9, width - MARGIN_X, bottom + 9)
        canv.setFont(SANS.regular, 7.5)
        canv.setFillColor(GREY)
        canv.drawString(MARGIN_X, bottom, self.footer)
        page = f"page {number} of {total}" if total else f"page {number}"
        canv.drawRightString(width - MARGIN_X, bottom, page)
        canv.restoreState()


class SheetCanvas(Canvas):  # type: ignore[misc]
    """A canvas whose initial font is DejaVu Sans (reportlab's default would pull in Helvetica), and
    which draws the inline icons of paragraphs (pnp.sheets.inline)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["initialFontName"] = SANS.regular
        kwargs["initialFontSize"] = 9
        kwargs["initialLeading"] = 11
        super().__init__(*args, **kwargs)
        self.pnp_header = ""
        self.pnp_section = 1
        self.pnp_where: Where | None = None
        self.pnp_footer: tuple[SheetDoc, int, int] | None = None
        self._pnp_pages: list[dict[str, Any]] = []

    def showPage(self) -> None:  # noqa: N802 - reportlab's name
        """Keep the page until the file is saved, when its footer can say how many pages there are."""
        self._pnp_pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        """Each kept page with its footer (page N of M), then the file."""
        for state in self._pnp_pages:
            self.__dict__.update(state)
            if self.pnp_footer is not None:
                doc, section, number = self.pnp_footer
                doc.draw_footer(self, section, number)
            Canvas.showPage(self)
        self._pnp_pages = []
        Canvas.save(self)

    def drawImage(self, image: Any, x: float, y: float, width: Any = None, height: Any = None, **kw: Any) -> Any:  # noqa: N802
        """An inline icon of a paragraph (pnp.sheets.inline) is drawn from its art; any other image as usual."""
        if isinstance(image, InlineArt):
            draw_inline(self, image, x, y, float(width), float(height))
            return (width, height)
        return super().drawImage(image, x, y, width, height, **kw)


class TooTall(Exception):
    """A block taller than a page that platypus cannot split; `where` says which block and record."""

    def __init__(self, where: Where | None) -> None:
        super().__init__(where)
        self.where = where


def render_pdf(
    flow: list[Flowable], pagesize: tuple[float, float], title: str, footer: str, per_section: bool, toc: bool
) -> bytes:
    """Lay the flowables out; raise TooTall for an unsplittable block. One pass: footers are drawn
    when the file is saved (SheetCanvas); a table of contents takes reportlab's passes (multiBuild)."""
    from reportlab.platypus.doctemplate import LayoutError

    buffer = io.BytesIO()
    doc = SheetDoc(buffer, pagesize, title, footer, per_section)
    try:
        if toc:
            doc.multiBuild(flow, canvasmaker=SheetCanvas)
        else:
            doc.build(flow, canvasmaker=SheetCanvas)
    except LayoutError:
        raise TooTall(getattr(getattr(doc, "canv", None), "pnp_where", None)) from None
    return buffer.getvalue()
