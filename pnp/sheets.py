"""Scenario setup sheets, the campaign booklet and one-page reference aids, from the records.

Everything here is drawn with reportlab's platypus from the same records the cards come from, so
a sheet never disagrees with the cards. Every reference is printed as the referenced record's
name. Output (under the project's output folder, see docs/sheets.md):

    <game>/setup/<scenario-id>.pdf      one per scenario; a Mage Knight scenario holds one sheet
                                        per variant, each starting on a new page
    <game>/campaign-<campaign-id>.pdf   the campaign booklet: contents, campaign rules, scenarios
    <game>/aids/<aid>.pdf               reference aids (combat tokens, tables, quests...)

Files are written atomically, skipped when their inputs are unchanged (the manifest), and
byte-identical for identical input (reportlab's invariant mode). Only the bundled DejaVu Sans
family is used, embedded. Text taller than a page (a table cell, a token summary) is a problem
naming the record and field, and that file is not written.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.doctemplate import LayoutError
from reportlab.platypus.tableofcontents import TableOfContents

from pnp import fonts
from pnp.output import Manifest, atomic_write, digest
from pnp.xrefs import values_at

if TYPE_CHECKING:
    from pnp.check import LoadedProject

SANS = fonts.SANS
PAPERS: dict[str, tuple[float, float]] = {"a4": A4, "letter": LETTER}
GAME_FOLDERS = {"homm3": "homm3-conflux", "homm4": "homm4", "mk": "mage-knight"}
GAME_NAMES = {
    "homm3": "Heroes of Might and Magic III: The Board Game \u2014 Conflux",
    "homm4": "Heroes of Might & Magic IV Collectible Card & Tile Game",
    "mk": "Mage Knight \u2014 The Apocalypse Dragon",
}

#: Hook set by the card-layout engine: draw `record` (a token) into the square of side `size`
#: whose lower-left corner is (x, y) in the canvas' current coordinates. Return False to get
#: the plain fallback drawing (a circle with the token's name and values).
draw_token: Callable[[Canvas, dict[str, Any], float, float, float], bool] | None = None
# Files the hook draws from (layouts, fonts): part of every aid's input digest.
draw_token_inputs: list[Path] = []

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
BOX = "\u2610"


@dataclass(frozen=True, slots=True)
class SheetResult:
    """One output file: where, whether it was (re)written, and what went wrong (if anything)."""

    path: Path
    written: bool
    problems: tuple[str, ...] = ()


class SheetOverflow(Exception):
    """Text that cannot fit on a page; the message names the record and field."""


# --------------------------------------------------------------------------- text and names


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a piece of printed text comes from: file, record id and JSON pointer in the record."""

    file: str
    rid: str
    pointer: str = ""

    def at(self, *parts: str | int) -> Origin:
        return Origin(self.file, self.rid, self.pointer + "".join(f"/{p}" for p in parts))

    def __str__(self) -> str:
        where = f" field {self.pointer}" if self.pointer else ""
        return f"{self.file}: record {self.rid!r}{where}"


def escape(text: Any) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_ICON = re.compile(r"\{([a-z0-9]+(?:-[a-z0-9]+)*)\}")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def titled(value: str) -> str:
    """'core-non-city' -> 'Core non city'; enum values shown to players."""
    text = value.replace("-", " ").replace("_", " ")
    return text[:1].upper() + text[1:]


class Context:
    """Lookups shared by every sheet of one build: names, icons, and the problems found."""

    def __init__(self, loaded: LoadedProject, icons: dict[str, Any]) -> None:
        self.loaded = loaded
        self.icons = icons
        self.problems: list[str] = []
        self.used: set[tuple[str, str]] = set()

    # names -------------------------------------------------------------------------------
    def record(self, rid: Any) -> dict[str, Any] | None:
        entry = self.loaded.index.first.get(rid) if isinstance(rid, str) else None
        if entry is None:
            return None
        _kind, record_file, index = entry
        record = record_file.records[index]
        return record if isinstance(record, dict) else None

    def plain_name(self, rid: Any) -> str:
        record = self.record(rid)
        if record is None or not isinstance(record.get("name"), str):
            return str(rid)
        return str(record["name"])

    def name(self, rid: Any, origin: Origin) -> str:
        """The referenced record's name as paragraph markup; a missing record is a problem."""
        self.used.add((origin.rid, origin.pointer))
        record = self.record(rid)
        if record is None or not isinstance(record.get("name"), str):
            self.problems.append(f"{origin}: {rid!r} names no record; printed as its id (run pnp check)")
            return f"<i>{escape(rid)}?</i>"
        return escape(record["name"])

    def names(self, ids: Sequence[Any], origin: Origin, sep: str = ", ") -> str:
        return sep.join(self.name(rid, origin.at(i)) for i, rid in enumerate(ids))

    def tile(self, rid: Any, origin: Origin) -> str:
        """A map tile: its name and printed code."""
        text = self.name(rid, origin)
        record = self.record(rid)
        code = record.get("code", record.get("number")) if record else None
        if code is not None and str(code) not in text:
            text += f" ({escape(code)})"
        return text

    def tiles(self, ids: Sequence[Any], origin: Origin) -> str:
        """Tiles grouped by name: 'Castle Far tile (F3, F6, F9)'."""
        groups: dict[str, list[str]] = {}
        for i, rid in enumerate(ids):
            record = self.record(rid)
            name = self.name(rid, origin.at(i))
            code = record.get("code", record.get("number")) if record else None
            groups.setdefault(name, [])
            if code is not None and escape(code) not in name:  # 'Countryside tile 7' already says 7
                groups[name].append(escape(code))
        return "; ".join(f"{name} ({', '.join(codes)})" if codes else name for name, codes in groups.items())

    # text --------------------------------------------------------------------------------
    def text(self, value: Any) -> str:
        """Record text as paragraph markup: *bold*, _italic_ and {icon} tokens."""
        out = escape(value)
        out = _BOLD.sub(r"<b>\1</b>", out)
        out = _ITALIC.sub(r"<i>\1</i>", out)
        return _ICON.sub(self._icon, out)

    def _icon(self, match: re.Match[str]) -> str:
        icon = self.icons.get(match.group(1))
        if not isinstance(icon, dict):
            return match.group(0)
        label = escape(icon.get("label") or match.group(1))
        color = icon.get("color") if isinstance(icon.get("color"), str) else "#444444"
        return f'<font backColor="{color}" color="#ffffff"><b>\u00a0{label}\u00a0</b></font>'


@dataclass(slots=True)
class Rec:
    """A record being printed, with the pointers of its references (from the schema's x-ref)."""

    file: str
    data: dict[str, Any]
    refs: dict[str, tuple[tuple[str, ...], str]]

    @property
    def id(self) -> str:
        return str(self.data.get("id"))

    @property
    def origin(self) -> Origin:
        return Origin(self.file, self.id)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


def make_rec(loaded: LoadedProject, file: str, record: dict[str, Any]) -> Rec:
    refs: dict[str, tuple[tuple[str, ...], str]] = {}
    kind = record.get("kind")
    if isinstance(kind, str) and kind in loaded.schemas.kind_uri:
        for site in loaded.schemas.sites(kind):
            if site.what == "ref":
                for pointer, _value in values_at(record, site.path, ""):
                    refs[pointer] = (site.kinds, site.by)
    return Rec(file, record, refs)


# --------------------------------------------------------------------------- styles


@dataclass(frozen=True, slots=True)
class Styles:
    title: ParagraphStyle
    subtitle: ParagraphStyle
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
        ),
    )


# --------------------------------------------------------------------------- flowables


class Mark(Flowable):  # type: ignore[misc]
    """Zero-size marker: sets the page title / sheet number / current field on the canvas."""

    def __init__(
        self,
        title: str | None = None,
        sheet: int | None = None,
        origin: Origin | None = None,
        bookmark: str | None = None,
        level: int = 0,
    ) -> None:
        super().__init__()
        self.title = title
        self.sheet = sheet
        self.origin = origin
        self.bookmark = bookmark
        self.level = level

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        canv = self.canv
        if self.title is not None:
            canv.pnp_title = self.title
        if self.sheet is not None:
            canv.pnp_sheet = self.sheet
        if self.origin is not None:
            canv.pnp_origin = self.origin
        if self.bookmark and self.title is not None:
            canv.bookmarkPage(self.bookmark)
            canv.addOutlineEntry(self.title, self.bookmark, self.level, closed=False)


class TokenDrawing(Flowable):  # type: ignore[misc]
    """A token drawn from its layout (the `draw_token` hook), or a plain circle with its values."""

    def __init__(self, record: dict[str, Any], size: float, style: ParagraphStyle, values: str) -> None:
        super().__init__()
        self.record = record
        self.size = size
        self.style = style
        self.values = values

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        hook = draw_token
        if hook is not None and hook(self.canv, self.record, 0.0, 0.0, self.size):
            return
        self._fallback()

    def _fallback(self) -> None:
        canv, size = self.canv, self.size
        radius = size / 2 - 1
        canv.saveState()
        canv.setStrokeColor(ACCENT)
        canv.setFillColor(colors.HexColor("#f6f1e4"))
        canv.setLineWidth(1.2)
        shape = self.record.get("shape")
        if shape in ("square", "cube"):
            canv.roundRect(1, 1, size - 2, size - 2, 4, stroke=1, fill=1)
        else:
            canv.circle(size / 2, size / 2, radius, stroke=1, fill=1)
        canv.restoreState()
        inner = size * 0.72
        name = escape(self.record.get("name", ""))
        for values in ((self.values, ""), ("",)) if self.values else (("",),):
            for font_size in (7.0, 6.5, 6.0, 5.5, 5.0, 4.5):
                small = font_size - 1.2
                words = [(w, SANS.bold, font_size) for w in str(self.record.get("name", "")).split()]
                words += [(w, SANS.regular, small) for w in values[0].split()]
                if any(stringWidth(w, font, fs) > inner for w, font, fs in words):
                    continue
                text = name
                if values[0]:
                    text += (
                        f'<br/><font name="{SANS.regular}" size="{small}" color="#5f6b76">{escape(values[0])}</font>'
                    )
                style = ParagraphStyle(
                    "pnp-token-fit", parent=self.style, fontSize=font_size, leading=font_size * 1.15, splitLongWords=0
                )
                para = Paragraph(text, style)
                _w, h = para.wrap(inner, size)
                if h <= inner:
                    para.drawOn(canv, (size - inner) / 2, (size - h) / 2)
                    return
        para = Paragraph(name, ParagraphStyle("pnp-token-min", parent=self.style, fontSize=4.5, leading=5.2))
        _w, h = para.wrap(inner, size)
        para.drawOn(canv, (size - inner) / 2, max(0.0, (size - h) / 2))


def fit_header(widths: list[float], header: Sequence[str]) -> list[float]:
    """Widen columns whose header has a word too long for them; the room comes from the others."""
    floors = [
        max((stringWidth(word, SANS.bold, 8) for word in str(h).split()), default=0) + 2 * CELL_PAD + 1 for h in header
    ] + [0.0] * (len(widths) - len(header))
    short = sum(max(0.0, f - w) for f, w in zip(floors, widths, strict=True))
    if short <= 0:
        return widths
    spare = [max(0.0, w - f) for f, w in zip(floors, widths, strict=True)]
    if sum(spare) < short:
        return widths
    return [max(w, f) - (s * short / sum(spare) if w > f else 0) for f, w, s in zip(floors, widths, spare, strict=True)]


def token_values(record: dict[str, Any]) -> str:
    """The values a fallback token drawing shows: its faces, or how many are taken."""
    if isinstance(record.get("faces"), list):
        return " / ".join(str(f) for f in record["faces"])
    if isinstance(record.get("counts_by_power"), list):
        return "\u00d7" + "/".join(str(n) for n in record["counts_by_power"])
    if isinstance(record.get("count_by_difficulty"), dict):
        return "\u00d7" + "/".join(str(n) for n in record["count_by_difficulty"].values())
    if isinstance(record.get("bonuses"), list):
        return " / ".join(str(b) for b in record["bonuses"])
    return ""


# --------------------------------------------------------------------------- story building

Cell: TypeAlias = Any  # markup (str), a Flowable, or a list of Flowables


class Story:
    """The flowables of one PDF, with a check that no single block is taller than a page."""

    def __init__(self, ctx: Context, styles: Styles, width: float, height: float) -> None:
        self.ctx = ctx
        self.s = styles
        self.width = width
        self.height = height
        self.flow: list[Flowable] = []
        self.sheets = 0
        self.overflow: list[str] = []

    # structure ---------------------------------------------------------------------------
    def sheet(self, title: str, subtitle: str = "", toc_level: int | None = None, bookmark_level: int = 0) -> None:
        """Start a new sheet: a new page, its title in the header of every page it covers."""
        if self.flow:
            self.flow.append(PageBreak())
        self.sheets += 1
        key = f"sheet-{self.sheets}"
        self.flow.append(Mark(title=title, sheet=self.sheets, bookmark=key, level=bookmark_level))
        heading = Paragraph(escape(title), self.s.title)
        if toc_level is not None:
            heading._pnp_toc = (toc_level, escape(title), key)
        self.flow.append(heading)
        if subtitle:
            self.flow.append(Paragraph(subtitle, self.s.subtitle))

    def h2(self, text: str, origin: Origin | None = None) -> None:
        # a heading never ends a page: start a new one unless the heading and a few lines fit
        self.flow.append(CondPageBreak(80))
        if origin is not None:
            self.flow.append(Mark(origin=origin))
        self.flow.append(Paragraph(escape(text), self.s.h2))

    def h3(self, markup: str, origin: Origin | None = None) -> None:
        self.flow.append(CondPageBreak(60))
        if origin is not None:
            self.flow.append(Mark(origin=origin))
        self.flow.append(Paragraph(markup, self.s.h3))

    def para(self, markup: str, style: ParagraphStyle | None = None) -> None:
        self.flow.append(Paragraph(markup, style or self.s.body))

    def label(self, markup: str) -> None:
        """A short lead-in kept on the same page as what follows."""
        self.flow.append(CondPageBreak(50))
        self.flow.append(Paragraph(markup, self.s.label))

    def small(self, markup: str) -> None:
        self.flow.append(Paragraph(markup, self.s.small))

    def check(self, markup: str, level: int = 0) -> None:
        self.flow.append(Paragraph(markup, self.s.item2 if level else self.s.item, bulletText=BOX))

    def bullet(self, markup: str, level: int = 0) -> None:
        self.flow.append(Paragraph(markup, self.s.item2 if level else self.s.item, bulletText="\u2022"))

    def gap(self, height: float = 4) -> None:
        self.flow.append(Spacer(1, height))

    # tables ------------------------------------------------------------------------------
    def cell(self, markup: str, origin: Origin | None = None, bold: bool = False) -> Paragraph:
        para = Paragraph(markup, self.s.cell_bold if bold else self.s.cell)
        para._pnp_origin = origin
        return para

    def table(
        self,
        header: Sequence[str] | None,
        rows: Sequence[Sequence[Cell]],
        widths: Sequence[float],
        origin: Origin | None = None,
        zebra: bool = True,
        boxed: bool = True,
        width: float | None = None,
        add: bool = True,
        extra: Sequence[tuple[Any, ...]] = (),
    ) -> Table:
        """A table whose column widths are fractions of `width` (default: the frame width)."""
        total = width if width is not None else self.width
        col_widths = fit_header([total * w / sum(widths) for w in widths], header or [])
        data: list[list[Any]] = []
        if header:
            data.append([Paragraph(escape(h), self.s.head) for h in header])
        for row in rows:
            cells: list[Any] = []
            for value in row:
                cells.append(self.cell(value) if isinstance(value, str) else value)
            data.append(cells)
        self._measure(data[1:] if header else data, col_widths, origin)
        commands: list[tuple[Any, ...]] = [
            ("FONTNAME", (0, 0), (-1, -1), SANS.regular),
            ("FONTSIZE", (0, 0), (-1, -1), 8),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
            ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
            ("TOPPADDING", (0, 0), (-1, -1), 2),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ]
        if boxed:
            commands += [("BOX", (0, 0), (-1, -1), 0.6, RULE), ("INNERGRID", (0, 0), (-1, -1), 0.3, RULE)]
        if header:
            commands.append(("BACKGROUND", (0, 0), (-1, 0), HEAD_BG))
        if zebra:
            first = 1 if header else 0
            for r in range(first + 1, len(data), 2):
                commands.append(("BACKGROUND", (0, r), (-1, r), ZEBRA))
        commands.extend(extra)
        table = Table(data, colWidths=col_widths, repeatRows=1 if header else 0, hAlign="LEFT")
        table.setStyle(TableStyle(commands))
        if add:
            if origin is not None:
                self.flow.append(Mark(origin=origin))
            self.flow.append(table)
        return table

    def _measure(self, rows: Sequence[Sequence[Any]], col_widths: Sequence[float], origin: Origin | None) -> None:
        """A table row cannot split across pages: one taller than a page is an overflow."""
        limit = self.height - 36
        for row in rows:
            for value, col_width in zip(row, col_widths, strict=False):
                parts = value if isinstance(value, list) else [value]
                heights: list[tuple[float, Any]] = []
                for part in parts:
                    _w, h = part.wrap(col_width - 2 * CELL_PAD, self.height)
                    heights.append((h, part))
                if sum(h for h, _ in heights) <= limit:
                    continue
                tallest = max(heights, key=lambda item: item[0])[1]
                where = getattr(tallest, "_pnp_origin", None) or origin or self.ctx_origin
                self.overflow.append(
                    f"{where}: text too long to fit on a page ({sum(h for h, _ in heights):.0f} pt tall, a page "
                    f"holds {limit:.0f} pt); shorten it"
                )

    ctx_origin: Origin | None = None

    def facts(self, rows: Sequence[tuple[str, str]], origin: Origin | None = None) -> None:
        """Label / value pairs in a two-column box."""
        if not rows:
            return
        cells = [[self.cell(escape(label), bold=True), self.cell(value)] for label, value in rows]
        self.table(None, cells, [26, 74], origin=origin, zebra=True)


# --------------------------------------------------------------------------- document


class SheetDoc(BaseDocTemplate):  # type: ignore[misc]
    """One PDF: a header with the sheet title, a footer with the game and page N of M."""

    def __init__(
        self,
        buffer: io.BytesIO,
        pagesize: tuple[float, float],
        title: str,
        game: str,
        totals: dict[int, int] | None,
        per_sheet: bool = True,
    ) -> None:
        super().__init__(
            buffer,
            pagesize=pagesize,
            leftMargin=MARGIN_X,
            rightMargin=MARGIN_X,
            topMargin=MARGIN_TOP,
            bottomMargin=MARGIN_BOTTOM,
            title=title,
            author="pnp",
            creator="pnp",
            subject=game,
            invariant=1,
        )
        self.game = game
        self.totals = totals
        self.per_sheet = per_sheet
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
        """Drawn first on each page (so text extraction reads it first): the sheet's title."""
        for flowable in self.pending[:3]:  # a sheet starting on this page: its title, not the last one
            if isinstance(flowable, Mark) and flowable.title is not None:
                canv.pnp_title = flowable.title
                canv.pnp_sheet = flowable.sheet
                break
        width, height = self.pagesize
        canv.saveState()
        title = str(getattr(canv, "pnp_title", ""))
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
        """Drawn last on each page: the game, and page N of M (of the sheet, or of a booklet)."""
        sheet = int(getattr(canv, "pnp_sheet", 1)) if self.per_sheet else 0
        self.counts[sheet] = self.counts.get(sheet, 0) + 1
        number = self.counts[sheet]
        total = (self.totals or {}).get(sheet)
        width, _height = self.pagesize
        canv.saveState()
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.6)
        bottom = MARGIN_BOTTOM - 8 * mm
        canv.line(MARGIN_X, bottom + 9, width - MARGIN_X, bottom + 9)
        canv.setFont(SANS.regular, 7.5)
        canv.setFillColor(GREY)
        canv.drawString(MARGIN_X, bottom, self.game)
        page = f"page {number} of {total}" if total else f"page {number}"
        canv.drawRightString(width - MARGIN_X, bottom, page)
        canv.restoreState()


class SheetCanvas(Canvas):  # type: ignore[misc]
    """A canvas whose initial font is DejaVu Sans (reportlab's default would pull in Helvetica)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["initialFontName"] = SANS.regular
        kwargs["initialFontSize"] = 9
        kwargs["initialLeading"] = 11
        super().__init__(*args, **kwargs)
        self.pnp_title = ""
        self.pnp_sheet = 1
        self.pnp_origin: Origin | None = None


def render_pdf(
    make: Callable[[], Story], pagesize: tuple[float, float], title: str, game: str, toc: bool = False
) -> bytes:
    """Build the PDF (twice, so every footer knows its page count). Raise SheetOverflow.

    Pages are numbered per sheet ("page 2 of 3" of one Mage Knight variant), except in a
    booklet with a table of contents, whose page numbers run through the whole document.
    """
    totals: dict[int, int] | None = None
    data = b""
    for _attempt in range(4):
        story = make()
        buffer = io.BytesIO()
        doc = SheetDoc(buffer, pagesize, title, game, totals, per_sheet=not toc)
        try:
            if toc:
                doc.multiBuild(story.flow, canvasmaker=SheetCanvas)
            else:
                doc.build(story.flow, canvasmaker=SheetCanvas)
        except LayoutError as err:
            where = getattr(doc.canv, "pnp_origin", None) if getattr(doc, "canv", None) is not None else None
            _ = err
            raise SheetOverflow(
                f"{where or title}: a block of this content is taller than a page and cannot be split; shorten it"
            ) from None
        data = buffer.getvalue()
        if doc.counts == totals:
            return data
        totals = dict(doc.counts)
    return data


# --------------------------------------------------------------------------- HoMM III scenarios

RESOURCE_NAMES = {"gold": "Gold", "building_materials": "Building Materials", "valuables": "Valuables"}
TILE_TYPES = {
    "starting": ("Starting tile", "I"),
    "far": ("Far tile", "II\u2013III"),
    "near": ("Near tile", "IV\u2013V"),
    "center": ("Center tile", "VI\u2013VII"),
    "elemental-near": ("Elemental Near tile", "IV\u2013V"),
}
MODES = {"alliance": "Alliance", "clash": "Clash", "cooperative": "Cooperative", "campaign": "Campaign (solo)"}
DECKS = {"faction": "Faction units", "neutral": "Neutral Unit deck", "summoned": "Summoned Units deck"}
SIZES = {"few": "A Few", "pack": "A Pack (Reinforced)"}
OUTCOMES = {"all-lose": "every player loses", "draw": "the game is a draw", "lose": "you lose"}
DIFFICULTIES = ("easy", "normal", "hard", "impossible")

HOMM3_SCENARIO_FIELDS = {
    "kind", "id", "name", "source", "mode", "campaign", "number", "summary", "player_counts", "alliances",
    "length_rounds", "length_by_difficulty", "story_sections", "mode_rules", "setup", "ai", "defenders", "map",
    "hero_placement", "additional_rules", "experience_cap", "neutral_decks_keep", "victory", "defeat", "time_out",
    "timed_events", "triggers",
}  # fmt: skip


def resources(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    return ", ".join(f"{n} {RESOURCE_NAMES.get(k, titled(k))}" for k, n in value.items())


def player_counts(counts: Any) -> str:
    if not isinstance(counts, list) or not counts:
        return ""
    counts = sorted(counts)
    text = " or ".join(str(c) for c in counts) if len(counts) <= 2 else f"{counts[0]}\u2013{counts[-1]}"
    return text + (" (solo)" if counts == [1] else "")


class Homm3Scenario:
    """Draw one HoMM III scenario (multiplayer or campaign) as a setup sheet."""

    def __init__(self, ctx: Context, st: Story, rec: Rec, campaign: Rec | None) -> None:
        self.ctx = ctx
        self.st = st
        self.rec = rec
        self.o = rec.origin
        self.campaign = campaign
        st.ctx_origin = rec.origin

    def rule_lines(self, rules: Any, pointer: str, bullet: bool = True, check: bool = False) -> None:
        """Rules (text + refs) as list items; each ref printed by name under its rule."""
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            origin = self.o.at(*pointer.strip("/").split("/"), i)
            markup = self.ctx.text(rule.get("text", ""))
            refs = rule.get("refs")
            if isinstance(refs, list) and refs:
                markup += f' <font size="7.5" color="#5f6b76"><i>[{self.names_any(refs, origin.at("refs"))}]</i></font>'
            if check:
                self.st.check(markup)
            elif bullet:
                self.st.bullet(markup)
            else:
                self.st.para(markup)

    def rule_cell(self, rules: Any, origin: Origin) -> list[Flowable]:
        out: list[Flowable] = []
        if not isinstance(rules, list):
            return out
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            markup = self.ctx.text(rule.get("text", ""))
            refs = rule.get("refs")
            if isinstance(refs, list) and refs:
                markup += (
                    f' <font size="7" color="#5f6b76"><i>[{self.names_any(refs, origin.at(i, "refs"))}]</i></font>'
                )
            bullet = "\u2022 " if len(rules) > 1 else ""
            out.append(self.st.cell(bullet + markup, origin.at(i, "text")))
        return out

    def names_any(self, ids: Sequence[Any], origin: Origin) -> str:
        """Names of mixed references; tiles with their codes."""
        parts = []
        for i, rid in enumerate(ids):
            record = self.ctx.record(rid)
            if record is not None and record.get("kind") == "homm3.map-tile":
                parts.append(self.ctx.tile(rid, origin.at(i)))
            else:
                parts.append(self.ctx.name(rid, origin.at(i)))
        return ", ".join(parts)

    # ------------------------------------------------------------------------------------
    def draw(self) -> None:
        rec, st, ctx = self.rec, self.st, self.ctx
        self.overview()
        if rec.get("mode_rules"):
            st.h2(f"{MODES.get(rec.get('mode'), titled(str(rec.get('mode'))))} mode rules", self.o.at("mode_rules"))
            self.rule_lines(rec.get("mode_rules"), "/mode_rules")
        if isinstance(rec.get("map"), dict):
            self.map_tiles(rec.get("map"))
        if isinstance(rec.get("setup"), dict):
            self.player_setup(rec.get("setup"))
        if rec.get("hero_placement"):
            st.h2("Hero placement", self.o.at("hero_placement"))
            self.rule_lines(rec.get("hero_placement"), "/hero_placement", check=True)
        if isinstance(rec.get("ai"), dict):
            self.ai(rec.get("ai"))
        if rec.get("defenders"):
            self.defenders(rec.get("defenders"))
        if isinstance(rec.get("neutral_decks_keep"), dict):
            self.neutral_decks(rec.get("neutral_decks_keep"))
        if rec.get("additional_rules") or rec.get("experience_cap"):
            self.additional_rules()
        if rec.get("timed_events"):
            self.timed_events(rec.get("timed_events"))
        if rec.get("triggers"):
            self.triggers(rec.get("triggers"))
        self.win_lose()
        extra_fields(ctx, st, rec, HOMM3_SCENARIO_FIELDS)

    def overview(self) -> None:
        rec, ctx, st = self.rec, self.ctx, self.st
        rows: list[tuple[str, str]] = []
        mode = MODES.get(rec.get("mode"), titled(str(rec.get("mode", ""))))
        alliances = rec.get("alliances")
        if isinstance(alliances, dict):
            mode += f", {alliances.get('teams')} teams of {alliances.get('players_per_team')} players"
        rows.append(("Mode", escape(mode)))
        if self.campaign is not None:
            total = len(self.campaign.get("scenarios", []))
            number = rec.get("number")
            place = f", scenario {number} of {total}" if number else ""
            rows.append(("Campaign", ctx.name(rec.get("campaign"), self.o.at("campaign")) + escape(place)))
        elif rec.get("campaign"):
            rows.append(("Campaign", ctx.name(rec.get("campaign"), self.o.at("campaign"))))
        if rec.get("player_counts"):
            rows.append(("Players", escape(player_counts(rec.get("player_counts")))))
        if rec.get("length_rounds"):
            rows.append(("Length", escape(plural(rec.get("length_rounds"), "round"))))
        by_difficulty = rec.get("length_by_difficulty")
        if isinstance(by_difficulty, dict):
            rows.append(
                (
                    "Length",
                    "by difficulty: " + ", ".join(f"{titled(k)} {v}" for k, v in by_difficulty.items()) + " rounds",
                )
            )
        if rec.get("experience_cap"):
            rows.append(("Experience", f"Your Hero gains no Experience past level {rec.get('experience_cap')}"))
        stories = rec.get("story_sections")
        if isinstance(stories, list) and stories:
            rows.append(("Story sections", escape(", ".join(stories)) + " <i>(read them from the rulebook)</i>"))
        st.facts(rows, self.o)
        if isinstance(by_difficulty, dict):
            st.gap(3)
            keys = list(by_difficulty)
            st.table(
                ["Difficulty", *[titled(k) for k in keys]],
                [["Rounds", *[str(by_difficulty[k]) for k in keys]]],
                [2] + [1] * len(keys),
                origin=self.o.at("length_by_difficulty"),
                width=st.width * 0.7,
            )
        if rec.get("summary"):
            st.gap(3)
            st.para(ctx.text(rec.get("summary")))

    # map ---------------------------------------------------------------------------------
    def map_tiles(self, setup: dict[str, Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("map")
        st.h2("Map tiles", o)
        if isinstance(setup.get("tiles"), list):
            self.tile_groups(setup["tiles"], o.at("tiles"))
        for i, by_count in enumerate(setup.get("by_player_count") or []):
            st.h3(f"{escape(plural(by_count.get('players', 0), 'player'))}")
            self.tile_groups(by_count.get("tiles") or [], o.at("by_player_count", i, "tiles"))
        extra = setup.get("per_extra_player")
        if isinstance(extra, dict):
            st.h3("For each extra player, add")
            self.tile_groups(extra.get("tiles") or [], o.at("per_extra_player", "tiles"))
            if extra.get("monolith_tokens"):
                st.check(f"{extra['monolith_tokens']} more Monolith tokens")
        monoliths = setup.get("monoliths")
        if isinstance(monoliths, dict):
            token = ctx.name(monoliths["token"], o.at("monoliths", "token")) if monoliths.get("token") else "Monolith"
            side = "One-way" if monoliths.get("type") == "one-way" else "Two-way"
            count = f"{monoliths['count']} \u00d7 " if monoliths.get("count") else ""
            st.check(f"{count}{token}, {side} Monolith side up, where the map layout shows")
        if setup.get("sectors"):
            st.bullet(f"The map has {setup['sectors']} sectors.")
        if setup.get("notes"):
            self.rule_lines(setup.get("notes"), "/map/notes")
        if setup.get("layout_pages"):
            pages = ", ".join(str(p) for p in setup["layout_pages"])
            st.small(f"Lay the tiles out as the map diagram on rulebook page {pages} shows (diagram not reproduced).")

    def tile_groups(self, groups: list[Any], o: Origin) -> None:
        st, ctx = self.st, self.ctx
        for g, group in enumerate(groups):
            if not isinstance(group, dict):
                continue
            label, levels = TILE_TYPES.get(str(group.get("type")), (titled(str(group.get("type"))), ""))
            count = int(group.get("count", 0))
            text = f"<b>{count} \u00d7 {escape(label if count == 1 else label + 's')}</b>"
            if levels:
                text += f" ({levels})"
            if group.get("note"):
                text += f" \u2014 {ctx.text(group['note'])}"
            picks = group.get("picks")
            st.check(text)
            for p, pick in enumerate(picks or []):
                st.check(self.pick(pick, o.at(g, "picks", p)), level=1)

    def pick(self, pick: dict[str, Any], o: Origin) -> str:
        ctx = self.ctx
        count = int(pick.get("count", 1))
        parts: list[str] = []
        head = f"{count} \u00d7"
        if pick.get("random"):
            head += " at random from"
        qualifiers = []
        if pick.get("faction"):
            qualifiers.append(ctx.name(pick["faction"], o.at("faction")))
        if pick.get("element"):
            qualifiers.append(escape(titled(pick["element"])))
        if pick.get("tiles"):
            tiles = ctx.tiles(pick["tiles"], o.at("tiles"))
            if pick.get("name") and escape(pick["name"]) not in tiles:
                tiles = f"{escape(pick['name'])}: {tiles}"
            parts.append(tiles)
        elif pick.get("name"):
            parts.append(escape(pick["name"]))
        for q, pool in enumerate(pick.get("pools") or []):
            pool_o = o.at("pools", q)
            label = ctx.name(pool["faction"], pool_o.at("faction")) + ": " if pool.get("faction") else ""
            parts.append(label + ctx.tiles(pool.get("tiles") or [], pool_o.at("tiles")))
        text = head + " " + ("; ".join(parts) if parts else "")
        if qualifiers and not pick.get("tiles"):
            text += " (" + ", ".join(qualifiers) + ")"
        if pick.get("note"):
            text += f" \u2014 {ctx.text(pick['note'])}"
        return text

    # player ------------------------------------------------------------------------------
    def player_setup(self, setup: dict[str, Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("setup")
        solo = self.rec.get("player_counts") == [1]
        st.h2("Player setup" + (" (you)" if solo else " (each player)"), o)
        if setup.get("faction"):
            st.check(f"<b>Faction:</b> {ctx.name(setup['faction'], o.at('faction'))}")
        if setup.get("faction_options"):
            st.check(f"<b>Faction:</b> choose one of {ctx.names(setup['faction_options'], o.at('faction_options'))}")
        if setup.get("each_player_chooses_faction"):
            st.check("<b>Faction:</b> each player chooses a faction")
        heroes = setup.get("heroes")
        if heroes or setup.get("any_hero_of_faction"):
            text = ctx.names(heroes, o.at("heroes")) if heroes else ""
            if setup.get("any_hero_of_faction"):
                other = f"any Hero of {ctx.name(setup['any_hero_of_faction'], o.at('any_hero_of_faction'))}"
                text = f"{text}, or {other}" if text else other
            st.check(f"<b>Hero:</b> {text}")
        if setup.get("starting_resources"):
            st.check(f"<b>Starting resources:</b> {escape(resources(setup['starting_resources']))}")
        if setup.get("income"):
            st.check(f"<b>Income tracker:</b> {escape(resources(setup['income']))}")
        elif self.campaign is not None and self.campaign.get("income"):
            income = escape(resources(self.campaign.get("income")))
            st.check(f"<b>Income tracker:</b> {income} <i>(campaign rule)</i>")
        if setup.get("buildings"):
            st.label("<b>Town Buildings built at the start:</b>")
            for i, building in enumerate(setup["buildings"]):
                st.check(self.building(building, o.at("buildings", i)), level=1)
        for key, label in (("units", "Starting units"), ("faction_army", "Faction army")):
            if setup.get(key):
                st.label(f"<b>{label}:</b>")
                for i, entry in enumerate(setup[key]):
                    st.check(self.army_line(entry, o.at(key, i)), level=1)
        if setup.get("bonus_options"):
            st.label("<b>Starting bonus</b> (choose one):")
            for i, bonus in enumerate(setup["bonus_options"]):
                st.check(self.bonus(bonus, o.at("bonus_options", i)), level=1)
        elif setup.get("starting_bonus") is False:
            st.bullet("No starting bonus.")
        if setup.get("special"):
            self.rule_lines(setup.get("special"), "/setup/special", check=True)

    def building(self, building: dict[str, Any], o: Origin) -> str:
        text = self.ctx.name(building.get("building"), o.at("building"))
        if building.get("tier"):
            text = f"{escape(titled(building['tier']))} {text}"
        return text

    def bonus(self, bonus: dict[str, Any], o: Origin) -> str:
        ctx = self.ctx
        text = ctx.text(bonus.get("text", ""))
        named: list[str] = []
        for i, entry in enumerate(bonus.get("add_cards") or []):
            named.append(self.card_entry(entry, o.at("add_cards", i)))
        for i, building in enumerate(bonus.get("build") or []):
            named.append(self.building(building, o.at("build", i)))
        if named:
            text += f' <font size="7.5" color="#5f6b76"><i>[{"; ".join(named)}]</i></font>'
        return text

    def card_entry(self, entry: dict[str, Any], o: Origin) -> str:
        ctx = self.ctx
        count = f"{entry['count']} \u00d7 " if entry.get("count") else ""
        if entry.get("card"):
            text = count + ctx.name(entry["card"], o.at("card"))
        elif entry.get("any_of"):
            text = count + "any of " + ctx.names(entry["any_of"], o.at("any_of"), " / ")
        else:
            text = count.strip(" \u00d7")
        if entry.get("note"):
            text += f" ({ctx.text(entry['note'])})"
        return text

    def army_line(self, entry: dict[str, Any], o: Origin) -> str:
        unit, tier, size, deck, note = self.army_parts(entry, o)
        text = f"{entry['count']} \u00d7 " if entry.get("count") else ""
        text += f"random {tier} unit" if unit == "Random unit" else " ".join(x for x in (tier, unit) if x)
        extra = ", ".join(x for x in (size, deck) if x)
        if extra:
            text += f" \u2014 {extra}"
        if note:
            text += f" ({note})"
        return text

    def army_parts(self, entry: dict[str, Any], o: Origin) -> tuple[str, str, str, str, str]:
        ctx = self.ctx
        if entry.get("unit"):
            unit = ctx.name(entry["unit"], o.at("unit"))
        elif entry.get("neutral_army_level"):
            unit = f"Level {escape(entry['neutral_army_level'])} Neutral Army (random)"
        elif entry.get("siege_card"):
            unit = f"{escape(entry['siege_card'])} siege card"
        else:
            unit = "Random unit" if entry.get("tier") else ""
        tier = escape(titled(entry["tier"])) if entry.get("tier") else ""
        size = SIZES.get(str(entry.get("size")), "") if entry.get("size") else ""
        deck = DECKS.get(str(entry.get("deck")), "") if entry.get("deck") else ""
        note = ctx.text(entry["note"]) if entry.get("note") else ""
        return unit, tier, size, deck, note

    def army_table(self, army: list[Any], o: Origin, width: float | None = None) -> Table:
        st = self.st
        parts = [self.army_parts(entry, o.at(i)) for i, entry in enumerate(army)]
        header = ["", "Qty", "Unit", "Tier", "Size", "Found in", "Note"]
        widths = [4, 5, 25, 9, 17, 19, 21]
        keep = [0, 1, 2] + [c for c in (3, 4, 5, 6) if any(p[c - 2] for p in parts)]
        rows: list[list[Cell]] = []
        for i, (entry, (unit, tier, size, deck, note)) in enumerate(zip(army, parts, strict=True)):
            full: list[Cell] = [BOX, str(entry.get("count", 1)), st.cell(unit, o.at(i), bold=True), tier, size, deck,
                                st.cell(note, o.at(i, "note"))]  # fmt: skip
            rows.append([full[c] for c in keep])
        return st.table(
            [header[c] for c in keep], rows, [widths[c] for c in keep], origin=o, width=width, add=width is None
        )

    def deck_table(self, deck: dict[str, Any], o: Origin, width: float) -> Table:
        keys = [k for k in ("might", "magic", "skill") if k in deck] + [
            k for k in deck if k not in ("might", "magic", "skill")
        ]
        rows: list[list[Cell]] = [[BOX, titled(k), str(deck[k])] for k in keys]
        total = sum(v for v in deck.values() if isinstance(v, int))
        rows.append(["", "<b>Total</b>", f"<b>{total}</b>"])
        return self.st.table(["", "AI card type", "Cards"], rows, [3, 12, 6], origin=o, width=width, add=False)

    def spell_table(self, spells: list[Any], o: Origin, width: float) -> Table:
        st = self.st
        rows: list[list[Cell]] = []
        for i, entry in enumerate(spells):
            e = o.at(i)
            if entry.get("card"):
                card = self.ctx.name(entry["card"], e.at("card"))
            else:
                card = "any of " + self.ctx.names(entry.get("any_of") or [], e.at("any_of"), " / ")
            note = self.ctx.text(entry["note"]) if entry.get("note") else ""
            rows.append([BOX, str(entry.get("count", 1)), st.cell(card, e, bold=True), st.cell(note, e.at("note"))])
        return st.table(["", "Qty", "Spell card", "Note"], rows, [3, 4, 14, 16], origin=o, width=width, add=False)

    def side_by_side(self, tables: list[Table], widths: list[float]) -> None:
        if not tables:
            return
        tall = any(t.wrap(w, self.st.height)[1] > self.st.height / 2 for t, w in zip(tables, widths, strict=True))
        if len(tables) == 1 or tall:  # a long list must be free to flow onto the next page
            for table in tables:
                self.st.flow.append(table)
                self.st.gap(3)
            return
        outer = Table([tables], colWidths=widths, hAlign="LEFT")
        outer.setStyle(
            TableStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                    ("TOPPADDING", (0, 0), (-1, -1), 0),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
                ]
            )
        )
        self.st.flow.append(outer)

    def decks(
        self, deck: Any, spells: Any, o_deck: Origin, o_spells: Origin, deck_label: str, spell_label: str
    ) -> None:
        st = self.st
        tables: list[Table] = []
        widths: list[float] = []
        if isinstance(deck, dict) and deck:
            w = st.width * 0.34
            st.flow.append(Mark(origin=o_deck))
            tables.append(self.deck_table(deck, o_deck, w - 8))
            widths.append(w)
        if isinstance(spells, list) and spells:
            w = st.width - sum(widths)
            st.flow.append(Mark(origin=o_spells))
            tables.append(self.spell_table(spells, o_spells, w - (8 if widths else 0)))
            widths.append(w)
        if tables:
            labels = " and ".join(x for x, t in ((deck_label, deck), (spell_label, spells)) if t)
            st.label(f"<b>{labels}</b>")
            self.side_by_side(tables, widths)

    def ai(self, ai: dict[str, Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("ai")
        st.h2("AI heroes", o)
        for i, hero in enumerate(ai.get("heroes") or []):
            h = o.at("heroes", i)
            st.h3(f"{escape(hero.get('name', ''))}", h)
            meta = []
            if hero.get("hero"):
                meta.append(f"Hero card: {ctx.name(hero['hero'], h.at('hero'))}")
            if hero.get("model_faction"):
                meta.append(f"Hero model: {ctx.name(hero['model_faction'], h.at('model_faction'))}")
            if meta:
                st.para("; ".join(meta))
            if hero.get("note"):
                st.para(ctx.text(hero["note"]))
            if hero.get("army"):
                st.label("<b>Army</b>")
                self.army_table(hero["army"], h.at("army"))
            self.decks(hero.get("deck"), hero.get("spell_deck"), h.at("deck"), h.at("spell_deck"),
                       "AI deck", "Spell deck")  # fmt: skip
        shared = ai.get("shared_deck") or ai.get("shared_spell_deck")
        if shared:
            st.h3("Shared by every AI Hero")
            self.decks(ai.get("shared_deck"), ai.get("shared_spell_deck"), o.at("shared_deck"),
                       o.at("shared_spell_deck"), "Shared AI deck", "Shared Spell deck")  # fmt: skip
        if ai.get("skills"):
            st.h3("AI Skills", o.at("skills"))
            rows: list[list[Cell]] = []
            for i, skill in enumerate(ai["skills"]):
                s = o.at("skills", i)
                rows.append(
                    [st.cell(ctx.name(skill.get("card"), s.at("card")), s, bold=True),
                     st.cell(ctx.text(skill.get("rule", "")), s.at("rule"))]
                )  # fmt: skip
            st.table(["Skill card", "How the AI uses it"], rows, [22, 78], origin=o.at("skills"))
        if ai.get("units_found_at_combat"):
            st.h3("Found in their decks when Combat starts (do not set aside)", o.at("units_found_at_combat"))
            self.army_table(ai["units_found_at_combat"], o.at("units_found_at_combat"))
        if ai.get("notes"):
            st.gap(2)
            self.rule_lines(ai.get("notes"), "/ai/notes")

    def defenders(self, defenders: list[Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("defenders")
        st.h2("Defenders", o)
        for i, d in enumerate(defenders):
            do = o.at(i)
            head = f"<b>{ctx.text(d.get('where', ''))}</b>"
            if d.get("field_difficulty"):
                head += f" \u2014 field difficulty {escape(d['field_difficulty'])}"
            st.label(head)
            if d.get("note"):
                st.para(ctx.text(d["note"]))
            if d.get("army"):
                self.army_table(d["army"], do.at("army"))

    def neutral_decks(self, keep: dict[str, Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("neutral_decks_keep")
        st.h2("Neutral Unit decks", o)
        st.para("Keep only these cards in each Neutral Unit deck; set the others aside.")
        rows: list[list[Cell]] = []
        for tier, ids in keep.items():
            rows.append([BOX, f"<b>{escape(titled(tier))}</b>", st.cell(ctx.names(ids, o.at(tier)), o.at(tier))])
        st.table(["", "Tier", "Keep"], rows, [3, 10, 87], origin=o)

    def additional_rules(self) -> None:
        st, rec = self.st, self.rec
        st.h2("Additional rules", self.o.at("additional_rules"))
        rules = rec.get("additional_rules") or []
        groups = [("before-start", "Before the start"), ("during", "During play"), (None, "")]
        whens = {r.get("when") for r in rules if isinstance(r, dict)}
        for when, label in groups:
            picked = [(i, r) for i, r in enumerate(rules) if isinstance(r, dict) and r.get("when") == when]
            if not picked:
                continue
            if label and len(whens) > 1 or label and when == "before-start":
                st.h3(label)
            for i, rule in picked:
                origin = self.o.at("additional_rules", i)
                markup = self.ctx.text(rule.get("text", ""))
                if rule.get("refs"):
                    names = self.names_any(rule["refs"], origin.at("refs"))
                    markup += f' <font size="7.5" color="#5f6b76"><i>[{names}]</i></font>'
                (st.check if when == "before-start" else st.bullet)(markup)

    def timed_events(self, events: list[Any]) -> None:
        st = self.st
        o = self.o.at("timed_events")
        st.h2("Timed events", o)
        stories = any(event.get("story") for event in events)
        rows: list[list[Cell]] = []
        for i, event in enumerate(events):
            e = o.at(i)
            rounds = ", ".join(str(r) for r in event.get("rounds") or [])
            story = escape(event.get("story", "")) if event.get("story") else ""
            effects = self.rule_cell(event.get("effects"), e.at("effects")) or [st.cell("<i>Story only.</i>")]
            row: list[Cell] = [BOX, f"<b>{rounds}</b>", st.cell(story, e.at("story")), effects]
            rows.append(row if stories else [row[0], row[1], row[3]])
        if stories:
            st.table(["", "Round", "Story section", "What happens"], rows, [3, 7, 18, 72], origin=o)
        else:
            st.table(["", "Round", "What happens"], rows, [3, 7, 90], origin=o)

    def triggers(self, triggers: list[Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("triggers")
        st.h2("Triggers", o)
        rows: list[list[Cell]] = []
        for i, trigger in enumerate(triggers):
            t = o.at(i)
            story = escape(trigger.get("story", "")) if trigger.get("story") else ""
            effects = self.rule_cell(trigger.get("effects"), t.at("effects")) or [st.cell("<i>Story only.</i>")]
            rows.append(
                [st.cell(ctx.text(trigger.get("when", "")), t.at("when"), bold=True), st.cell(story, t.at("story")),
                 effects]
            )  # fmt: skip
        st.table(["When", "Story section", "What happens"], rows, [30, 16, 54], origin=o)

    def win_lose(self) -> None:
        st, rec, ctx = self.st, self.rec, self.ctx
        st.h2("Win and lose conditions", self.o.at("victory"))
        if rec.get("victory"):
            st.h3("Victory")
            self.rule_lines(rec.get("victory"), "/victory")
        if rec.get("defeat"):
            st.h3("Defeat")
            self.rule_lines(rec.get("defeat"), "/defeat")
        time_out = rec.get("time_out")
        if isinstance(time_out, dict):
            st.h3("Time limit")
            when = f"End of round {time_out['round']}: " if time_out.get("round") else "When time runs out: "
            outcome = OUTCOMES.get(str(time_out.get("outcome")), titled(str(time_out.get("outcome", ""))))
            text = f"<b>{when}{escape(outcome)}.</b>"
            if time_out.get("text"):
                text += " " + ctx.text(time_out["text"])
            st.bullet(text)


def extra_fields(ctx: Context, st: Story, rec: Rec, known: set[str]) -> None:
    """Fields this module does not know yet (a schema grew): printed plainly, names resolved."""
    extra = [k for k in rec.data if k not in known]
    if not extra:
        return
    st.h2("More", rec.origin)
    for key in extra:
        for line, depth in generic_lines(ctx, rec, rec.data[key], f"/{key}", titled(key)):
            st.bullet(line, level=min(depth, 1))


def generic_lines(
    ctx: Context, rec: Rec, value: Any, pointer: str, label: str, depth: int = 0
) -> list[tuple[str, int]]:
    prefix = f"<b>{escape(label)}:</b> " if label else ""
    origin = Origin(rec.file, rec.id, pointer)
    if pointer in rec.refs:
        return [(prefix + ctx.name(value, origin), depth)]
    if isinstance(value, dict):
        out = [(prefix.rstrip(": </b>") + "</b>", depth)] if label else []
        for key, item in value.items():
            out += generic_lines(ctx, rec, item, f"{pointer}/{key}", titled(key), depth + 1)
        return out
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            parts = [
                ctx.name(v, origin.at(i)) if f"{pointer}/{i}" in rec.refs else ctx.text(v) for i, v in enumerate(value)
            ]
            return [(prefix + ", ".join(parts), depth)]
        out = [(prefix.rstrip(": </b>") + "</b>", depth)] if label else []
        for i, item in enumerate(value):
            out += generic_lines(ctx, rec, item, f"{pointer}/{i}", "", depth + 1)
        return out
    if isinstance(value, bool):
        return [(prefix + ("yes" if value else "no"), depth)]
    return [(prefix + ctx.text(value), depth)]


def missing_refs(ctx: Context, st: Story, rec: Rec) -> None:
    """Any reference the layout above did not print (a new field): listed by name at the end."""
    left = [p for p in rec.refs if (rec.id, p) not in ctx.used]
    if not left:
        return
    st.h2("Also named", rec.origin)
    for pointer in left:
        value = _at_pointer(rec.data, pointer)
        st.bullet(f"{escape(pointer.strip('/'))}: {ctx.name(value, Origin(rec.file, rec.id, pointer))}")


def _at_pointer(data: Any, pointer: str) -> Any:
    node = data
    for part in pointer.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node.get(part)
    return node


# --------------------------------------------------------------------------- campaign booklet


def campaign_front(ctx: Context, st: Story, rec: Rec, scenarios: list[Rec]) -> None:
    """The booklet's first page: campaign facts and the table of contents."""
    o = rec.origin
    st.ctx_origin = o
    st.sheet(str(rec.get("name")), "Campaign booklet", bookmark_level=0)
    rows: list[tuple[str, str]] = [("Scenarios", str(len(rec.get("scenarios") or [])))]
    if rec.get("player_counts"):
        rows.append(("Players", escape(player_counts(rec.get("player_counts")))))
    if rec.get("recommended_hero"):
        rows.append(("Recommended Hero", ctx.name(rec.get("recommended_hero"), o.at("recommended_hero"))))
    if rec.get("income"):
        rows.append(("Income at the start of each scenario", escape(resources(rec.get("income")))))
    st.facts(rows, o)
    if rec.get("summary"):
        st.gap(3)
        st.para(ctx.text(rec.get("summary")))
    st.h2("Contents")
    toc = TableOfContents(levelStyles=list(st.s.toc), dotsMinLevel=0)
    toc.tableStyle = TableStyle([("FONTNAME", (0, 0), (-1, -1), SANS.regular), ("LEFTPADDING", (0, 0), (-1, -1), 0)])
    st.flow.append(toc)
    st.gap(6)
    st.small(
        "Each scenario sheet lists its setup first, then what happens during play. The campaign rules "
        "apply to every scenario."
    )
    _ = scenarios


def campaign_rules(ctx: Context, st: Story, rec: Rec) -> None:
    o = rec.origin.at("rules")
    st.sheet(f"{rec.get('name')} \u2014 campaign rules", toc_level=0, bookmark_level=0)
    for i, section in enumerate(rec.get("rules") or []):
        so = o.at(i)
        st.h2(str(section.get("title", "")), so)
        for j, step in enumerate(section.get("steps") or []):
            st.flow.append(Paragraph(ctx.text(step), st.s.item, bulletText=f"{j + 1}."))
        for point in section.get("points") or []:
            st.bullet(ctx.text(point))
        if section.get("refs"):
            st.small("Cards named: " + ctx.names(section["refs"], so.at("refs")))
    known = {"kind", "id", "name", "source", "summary", "player_counts", "recommended_hero", "scenarios", "income",
             "rules"}  # fmt: skip
    extra_fields(ctx, st, rec, known)


# --------------------------------------------------------------------------- Mage Knight scenarios

MK_SHAPES = {
    "wedge": "Wedge",
    "wedge-no-limitations": "Wedge, no limitations",
    "open": "Open",
    "fully-open": "Fully open",
    "special": "Special (see the map layout)",
}
MK_TILE_TYPES = {"countryside": "Countryside", "core-city": "Core city", "core-non-city": "Core non-city"}
MK_TACTIC_ORDER = {
    "dummy-random-first": "the Dummy player takes a random Tactic first, then the players choose",
    "player-first-then-dummy-random": "you choose first, then the Dummy player takes a random Tactic",
}
MK_TACTIC_REMOVE = {
    "end-of-first-day": "at the end of the first Day",
    "end-of-first-day-and-night": "at the end of the first Day and of the first Night",
    "end-of-each-day-and-night": "at the end of each Day and each Night",
}
MK_TACTIC_REMOVED = {"one-player-tactic": "one player's used Tactic card", "both-used": "both used Tactic cards"}
MK_FINAL_TURN = {
    "all-players": "every player takes one final turn",
    "all-players-except-dummy": "every player except the Dummy takes one final turn",
    "you-only": "you take one final turn",
}
MK_BASE = {"fame": "your Fame", "lowest-fame": "the lowest Fame", "quest-points": "Quest points"}
MK_TEAM = {
    "lowest-fame-base": "one team score, based on the lowest Fame",
    "lowest-final-score": "the team score is the lowest final player score",
}
MK_ACHIEVEMENTS = {
    "standard": "standard achievements",
    "standard-no-titles": "standard achievements, no titles",
    "standard-best-player-only-no-titles": "standard achievements, best player only, no titles",
    "titles-only": "titles only",
}
MK_RULES = {
    "quests": "Quests", "greatest-quester": "Greatest Quester", "possessed-enemies": "Possessed Enemies",
    "faction-tokens": "Faction Tokens", "destroyed-sites": "Destroyed Sites", "apocalypse-dragon": "Apocalypse Dragon",
    "four-horsemen": "Four Horsemen",
}  # fmt: skip
MK_UNITS = {"points": "points", "fame": "Fame", "quest-points": "Quest points"}
MK_SHIELDS = {
    "each-player": "each player puts a Shield on it",
    "player-and-dummy": "you and the Dummy put a Shield on it",
}
MK_REF_GROUPS = (
    ("sites", "Sites"), ("map_tiles", "Map tiles"), ("dragon_heads", "Apocalypse Dragon heads"),
    ("horsemen", "Horsemen"), ("factions", "Factions"), ("enemies", "Enemies"), ("heroes", "Heroes"),
    ("quests", "Quests"), ("tokens", "Tokens"),
)  # fmt: skip
MK_SCENARIO_FIELDS = {
    "kind", "id", "name", "source", "page", "based_on", "overview", "purpose", "rules_used", "setup_notes",
    "map_layout", "horseman_reveal", "special_rules", "blitz_rules", "hero_options", "optional_variants",
    "references", "variants",
}  # fmt: skip


class MkScenario:
    """One sheet per variant; each repeats the shared setup and rules so it stands alone."""

    def __init__(self, ctx: Context, st: Story, rec: Rec) -> None:
        self.ctx = ctx
        self.st = st
        self.rec = rec
        self.o = rec.origin
        st.ctx_origin = rec.origin

    def draw(self) -> None:
        variants = self.rec.get("variants") or []
        for v, variant in enumerate(variants):
            self.variant(variant, self.o.at("variants", v))
        if not variants:
            self.st.sheet(str(self.rec.get("name")))
            self.shared_overview()

    def shared_overview(self) -> None:
        rec, st, ctx = self.rec, self.st, self.ctx
        if rec.get("overview"):
            st.para(ctx.text(rec.get("overview")))
        if rec.get("purpose"):
            st.para(f"<b>Goal:</b> {ctx.text(rec.get('purpose'))}")

    def variant(self, variant: dict[str, Any], vo: Origin) -> None:
        rec, st, ctx = self.rec, self.st, self.ctx
        name = str(variant.get("name") or rec.get("name"))
        sub = [f"Scenario: {escape(rec.get('name'))}"]
        if variant.get("page") or rec.get("page"):
            sub.append(f"scenario book page {variant.get('page') or rec.get('page')}")
        if rec.get("based_on"):
            sub.append(f"based on {escape(rec.get('based_on'))}")
        st.sheet(name, " \u00b7 ".join(sub))
        self.shared_overview()
        # facts ---------------------------------------------------------------------------
        rows: list[tuple[str, str]] = [("Type", escape(titled(str(variant.get("type", "")))))]
        players = variant.get("players")
        if isinstance(players, dict):
            lo, hi = players.get("min"), players.get("max")
            rows.append(("Players", f"{lo}" if lo == hi else f"{lo}\u2013{hi}"))
        length = variant.get("length")
        if isinstance(length, dict):
            text = plural(int(length.get("rounds", 0)), "Round")
            parts = [plural(int(length[k]), k[:-1].title()) for k in ("days", "nights") if k in length]
            rows.append(("Length", escape(text + (f" ({', '.join(parts)})" if parts else ""))))
        if variant.get("dummy_players"):
            rows.append(("Dummy players", str(variant["dummy_players"])))
        if variant.get("team_rules"):
            rows.append(("Team rules", "Team Rules apply, with all players as one team"))
        if variant.get("remove_competitive_cards"):
            rows.append(
                ("Competitive cards", "Remove the four competitive Spells and each player's competitive "
                 "interactive Skill; use cooperative interactive Skills if you own them")
            )  # fmt: skip
        tactics = variant.get("tactics")
        if isinstance(tactics, dict):
            text = MK_TACTIC_ORDER.get(str(tactics.get("order")), titled(str(tactics.get("order", ""))))
            if tactics.get("remove_at"):
                removed = MK_TACTIC_REMOVED.get(str(tactics.get("removed")), "the used Tactic cards")
                text += f"; remove {removed} {MK_TACTIC_REMOVE.get(tactics['remove_at'], tactics['remove_at'])}"
            rows.append(("Tactics", escape(text[:1].upper() + text[1:])))
        if rec.get("rules_used"):
            used = ", ".join(MK_RULES.get(r, titled(r)) for r in rec.get("rules_used"))
            rows.append(("Rules used", escape(used) + " <i>(rulebook sections)</i>"))
        st.facts(rows, vo)
        # setup ---------------------------------------------------------------------------
        st.h2("Setup", vo.at("setup"))
        for i, note in enumerate(rec.get("setup_notes") or []):
            st.check(ctx.text(note))
            _ = i
        if variant.get("setup"):
            self.setup_table(variant["setup"], vo.at("setup"))
        if rec.get("map_layout"):
            self.map_layout(rec.get("map_layout"))
        if variant.get("sides"):
            self.sides(variant["sides"], vo.at("sides"))
        if rec.get("horseman_reveal"):
            self.horseman_reveal(rec.get("horseman_reveal"), variant.get("players"))
        if rec.get("hero_options"):
            self.hero_options(rec.get("hero_options"))
        if isinstance(rec.get("blitz_rules"), dict):
            self.blitz(rec.get("blitz_rules"))
        # rules ---------------------------------------------------------------------------
        shared = rec.get("special_rules") or []
        own = variant.get("special_rules") or []
        if shared or own:
            st.h2("Special rules", self.o.at("special_rules"))
            for rules in (shared, own):
                for rule in rules:
                    title = f"<b>{escape(rule['title'])}.</b> " if rule.get("title") else ""
                    st.bullet(title + ctx.text(rule.get("text", "")))
        if isinstance(variant.get("scenario_end"), dict):
            self.scenario_end(variant["scenario_end"])
        if isinstance(variant.get("scoring"), dict):
            self.scoring(variant["scoring"], vo.at("scoring"))
        if rec.get("optional_variants"):
            st.h2("Optional variants", self.o.at("optional_variants"))
            for item in rec.get("optional_variants"):
                st.bullet(f"<b>{escape(item.get('name', ''))}.</b> {ctx.text(item.get('text', ''))}")
        self.references()
        extra_fields(ctx, st, self.rec, MK_SCENARIO_FIELDS)
        variant_known = {"type", "name", "page", "players", "length", "setup", "dummy_players",
                         "remove_competitive_cards", "tactics", "team_rules", "sides", "special_rules",
                         "scenario_end", "scoring"}  # fmt: skip
        extra = {k: v for k, v in variant.items() if k not in variant_known}
        if extra:
            st.h2("More", vo)
            for key, value in extra.items():
                for line, depth in generic_lines(ctx, self.rec, value, f"{vo.pointer}/{key}", titled(key)):
                    st.bullet(line, level=min(depth, 1))

    def setup_table(self, setups: list[Any], o: Origin) -> None:
        st, ctx = self.st, self.ctx
        columns = [
            ("map_shape", "Map shape", 14), ("countryside_tiles", "Countryside tiles", 11),
            ("core_city_tiles", "Core city tiles", 9), ("core_non_city_tiles", "Core non-city tiles", 10),
            ("cities", "Cities", 30), ("dragon_head_level", "Dragon head level", 10),
            ("horseman_level", "Horseman level", 10),
        ]  # fmt: skip
        used = [c for c in columns if any(c[0] in s for s in setups)]
        rows: list[list[Cell]] = []
        for i, setup in enumerate(setups):
            so = o.at(i)
            row: list[Cell] = [BOX, f"<b>{setup.get('players')}</b>"]
            for key, _label, _w in used:
                value = setup.get(key)
                if value is None:
                    row.append("\u2014")
                elif key == "map_shape":
                    text = escape(MK_SHAPES.get(value, titled(str(value))))
                    if setup.get("map_columns_limit"):
                        text += f", at most {setup['map_columns_limit']} columns"
                    row.append(st.cell(text, so.at(key)))
                elif key == "countryside_tiles":
                    sorted_note = ", sorted by number" if setup.get("tiles_sorted_by_number") else ""
                    row.append(f"{value}{sorted_note}")
                elif key == "cities":
                    row.append(
                        [st.cell(self.city(c, so.at("cities", j)), so.at("cities", j)) for j, c in enumerate(value)]
                    )
                else:
                    row.append(str(value))
            rows.append(row)
        st.table(["", "Players", *[c[1] for c in used]], rows, [3, 9, *[c[2] for c in used]], origin=o)
        for i, setup in enumerate(setups):
            for j, req in enumerate(setup.get("tile_requirements") or []):
                st.check(
                    f"<b>{setup.get('players')} players:</b> " + self.requirement(req, o.at(i, "tile_requirements", j))
                )
        _ = ctx

    def city(self, city: dict[str, Any], o: Origin) -> str:
        ctx = self.ctx
        if city.get("revealed"):
            head = {1: "First city revealed", 2: "Second city revealed"}.get(
                city["revealed"], f"City {city['revealed']}"
            )
        elif city.get("color"):
            head = f"{titled(city['color'])} city"
        else:
            head = "Every city"
        bits: list[str] = []
        if city.get("color") and city.get("revealed"):
            bits.append(escape(city["color"]))
        if city.get("level"):
            bits.append(f"level {city['level']}")
        if city.get("friendly"):
            bits.append("friendly")
        if city.get("shields_by"):
            bits.append(MK_SHIELDS.get(city["shields_by"], city["shields_by"]))
        if city.get("destroyed"):
            bits.append("destroyed (a Plains space with no site)")
        if city.get("closed"):
            bits.append("closed (may not be conquered or entered)")
        if city.get("faction"):
            bits.append(f"held by {ctx.name(city['faction'], o.at('faction'))}")
        return f"<b>{escape(head)}:</b> " + ", ".join(bits) if bits else f"<b>{escape(head)}</b>"

    def requirement(self, req: dict[str, Any], o: Origin) -> str:
        ctx = self.ctx
        parts = []
        if req.get("count") is not None:
            parts.append(("exactly " if req.get("exactly") else "") + str(req["count"]))
        if req.get("map_tile_type"):
            parts.append(MK_TILE_TYPES.get(req["map_tile_type"], titled(req["map_tile_type"])) + " tiles")
        if req.get("map_tiles"):
            parts.append(ctx.tiles(req["map_tiles"], o.at("map_tiles")))
        if req.get("with_any_site"):
            parts.append("with " + ctx.names(req["with_any_site"], o.at("with_any_site"), " or "))
        if req.get("without_sites"):
            parts.append("without " + ctx.names(req["without_sites"], o.at("without_sites"), " or "))
        text = " ".join(parts)
        if req.get("note"):
            text += f" \u2014 {ctx.text(req['note'])}"
        return text

    def map_layout(self, rings: list[Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("map_layout")
        st.h3("Map layout, from the centre outwards", o)
        rows: list[list[Cell]] = []
        for i, ring in enumerate(rings):
            ro = o.at(i)
            counts = []
            for key, label in (("countryside_tiles", "Countryside"), ("core_non_city_tiles", "Core non-city"),
                               ("core_city_tiles", "Core city")):  # fmt: skip
                if ring.get(key):
                    counts.append(plural(int(ring[key]), f"{label} tile"))
            named = ring.get("map_tiles") or []
            bits = [ctx.tiles(named, ro.at("map_tiles"))] if named else []
            total = sum(int(ring.get(k) or 0) for k in ("countryside_tiles", "core_non_city_tiles", "core_city_tiles"))
            if counts and total != len(named):
                bits.append(", ".join(counts) + (" in all" if named else ""))
            face = "face up" if ring.get("face_up") else "face down" if "face_up" in ring else ""
            label = "Centre" if ring.get("ring") == 0 else f"Ring {ring.get('ring')}"
            rows.append([BOX, f"<b>{label}</b>", st.cell("; ".join(bits), ro), face])
        st.table(["", "Ring", "Tiles", "Side"], rows, [3, 10, 70, 14], origin=o)

    def sides(self, sides: list[Any], o: Origin) -> None:
        st, ctx = self.st, self.ctx
        st.h3("Sides (choose in secret with a mana token)", o)
        rows: list[list[Cell]] = []
        for i, side in enumerate(sides):
            if side.get("faction"):
                who = ctx.name(side["faction"], o.at(i, "faction"))
            else:
                who = "Independent" if side.get("independent") else ""
            rows.append([escape(titled(str(side.get("mana_token", "")))) + " mana token", st.cell(who, o.at(i))])
        st.table(["Token", "Side"], rows, [30, 70], origin=o, width=st.width * 0.6)

    def horseman_reveal(self, reveals: list[Any], players: Any) -> None:
        """Only the player counts this variant is played with."""
        st = self.st
        o = self.o.at("horseman_reveal")
        counts = [str(n) for n in range(1, 5)]
        if isinstance(players, dict) and isinstance(players.get("min"), int) and isinstance(players.get("max"), int):
            counts = [str(n) for n in range(players["min"], players["max"] + 1)] or counts
        st.h3("When each Horseman is revealed: after this many Map tiles are revealed, or at the latest", o)
        rows: list[list[Cell]] = []
        for reveal in reveals:
            tiles = reveal.get("tiles_revealed") or {}
            rows.append(
                [f"<b>Horseman {reveal.get('horseman')}</b>", *[str(tiles.get(k, "\u2014")) for k in counts],
                 str(reveal.get("start_of_round", "\u2014"))]
            )  # fmt: skip
        labels = ["Solo: tiles" if k == "1" else f"{k} players: tiles" for k in counts]
        st.table(
            ["", *labels, "At the start of Round"], rows, [16, *[12] * len(counts), 20], origin=o,
            width=min(st.width, st.width * (0.3 + 0.14 * len(counts))),
        )  # fmt: skip

    def hero_options(self, options: list[Any]) -> None:
        st, ctx = self.st, self.ctx
        o = self.o.at("hero_options")
        st.h3("Hero options", o)
        rows: list[list[Cell]] = []
        for i, option in enumerate(options):
            ho = o.at(i)
            setup: list[Flowable] = []
            if option.get("set_aside_skill"):
                setup.append(st.cell(f"{BOX} Set aside the Skill token <b>{escape(option['set_aside_skill'])}</b>"))
            for j, choice in enumerate(option.get("required_map_tiles") or []):
                tiles = " or ".join(ctx.tile(t, ho.at("required_map_tiles", j, "one_of", k))
                                    for k, t in enumerate(choice.get("one_of") or []))  # fmt: skip
                setup.append(st.cell(f"{BOX} {tiles}"))
            if option.get("required_tiles_note"):
                setup.append(st.cell(f"<i>{ctx.text(option['required_tiles_note'])}</i>", ho.at("required_tiles_note")))
            goal: list[Flowable] = []
            if option.get("objective"):
                goal.append(st.cell(ctx.text(option["objective"]), ho.at("objective")))
            for j, change in enumerate(option.get("scoring_changes") or []):
                title = f"<b>{escape(change['title'])}:</b> " if change.get("title") else ""
                goal.append(st.cell("\u2022 " + title + ctx.text(change.get("text", "")), ho.at("scoring_changes", j)))
            rows.append([st.cell(ctx.name(option.get("hero"), ho.at("hero")), ho, bold=True), setup, goal])
        st.table(["Hero", "Setup", "Extra objective and scoring"], rows, [13, 40, 47], origin=o)

    def blitz(self, blitz: dict[str, Any]) -> None:
        st = self.st
        o = self.o.at("blitz_rules")
        st.h3("Blitz variant (shorter game)", o)
        labels = {
            "start_fame": "Start with Fame", "fame_per_level": "Fame per level gained",
            "extra_source_dice": "Extra dice in the Source", "extra_units_in_offer": "Extra Units in the offer",
        }  # fmt: skip
        rows: list[tuple[str, str]] = []
        for key, value in blitz.items():
            if key == "start_reputation":
                mod = blitz.get("start_reputation_modifier")
                text = f"{value} spaces up" + (f" ({'+' if mod >= 0 else ''}{mod})" if mod is not None else "")
                rows.append(("Start on Reputation", text))
            elif key != "start_reputation_modifier":
                rows.append((labels.get(key, titled(key)), str(value)))
        st.facts(rows, o)

    def scenario_end(self, end: dict[str, Any]) -> None:
        st, ctx = self.st, self.ctx
        st.h2("Scenario end", self.o)
        if end.get("trigger"):
            st.bullet(f"<b>The end is triggered when:</b> {ctx.text(end['trigger'])}")
        for condition in end.get("conditions") or []:
            text = ctx.text(condition.get("text", ""))
            if condition.get("at_least") is not None:
                text += f" (at least {condition['at_least']})"
            if condition.get("at_least_players_plus") is not None:
                text += f" (at least the number of players + {condition['at_least_players_plus']})"
            st.bullet(text, level=1)
        if end.get("end_of_day"):
            st.bullet(f"The game ends at the end of Day {end['end_of_day']}.")
        if end.get("final_turn"):
            st.bullet("After that, " + escape(MK_FINAL_TURN.get(end["final_turn"], titled(end["final_turn"]))) + ".")
        if end.get("round_end_ends_game"):
            st.bullet("If the Round ends during the final turns, the game ends at once.")

    def scoring(self, scoring: dict[str, Any], o: Origin) -> None:
        st, ctx = self.st, self.ctx
        st.h2("Scoring", o)
        if scoring.get("victory"):
            st.bullet(f"<b>Victory:</b> {ctx.text(scoring['victory'])}")
        base = []
        if scoring.get("base"):
            base.append("base score: " + MK_BASE.get(scoring["base"], titled(scoring["base"])))
        if scoring.get("team_score"):
            base.append(MK_TEAM.get(scoring["team_score"], titled(scoring["team_score"])))
        if scoring.get("achievements"):
            base.append(MK_ACHIEVEMENTS.get(scoring["achievements"], titled(scoring["achievements"])))
        if scoring.get("greatest_quester"):
            base.append("Greatest Quester title")
        if scoring.get("city_scoring"):
            base.append("city scoring")
        if base:
            st.bullet(escape("; ".join(base)[:1].upper() + "; ".join(base)[1:]) + ".")
        for note in scoring.get("notes") or []:
            st.bullet(ctx.text(note))
        items = scoring.get("items") or []
        if items:
            rows: list[list[Cell]] = []
            for i, item in enumerate(items):
                io_ = o.at("items", i)
                unit = MK_UNITS.get(item.get("unit"), "points")
                if item.get("points") is not None:
                    points = f"<b>{item['points']:+d}</b> {unit}"
                    if item.get("tied_points") is not None:
                        points += f" ({item['tied_points']:+d} if tied)"
                else:
                    points = escape(unit)
                what = []
                if item.get("title"):
                    what.append(f"<b>{escape(item['title'])}</b>")
                if item.get("per"):
                    what.append("per " + ctx.text(item["per"]))
                if item.get("when"):
                    what.append("if " + ctx.text(item["when"]))
                if item.get("text"):
                    what.append(ctx.text(item["text"]))
                rows.append([st.cell(points, io_), st.cell(" \u2014 ".join(what), io_)])
            st.table(["Score", "For"], rows, [20, 80], origin=o.at("items"))

    def references(self) -> None:
        st, ctx = self.st, self.ctx
        refs = self.rec.get("references")
        if not isinstance(refs, dict) or not refs:
            return
        o = self.o.at("references")
        st.h2("Components named in this scenario", o)
        known = dict(MK_REF_GROUPS)
        for key, ids in refs.items():
            label = known.get(key, titled(key))
            text = ctx.tiles(ids, o.at(key)) if key == "map_tiles" else ctx.names(ids, o.at(key))
            st.para(f"<b>{escape(label)}:</b> {text}", st.s.item)


# --------------------------------------------------------------------------- reference aids


def aid_combat_tokens(ctx: Context, st: Story, recs: list[Rec]) -> None:
    groups = {"basic": "Basic tokens", "spell": "Spell tokens", "unit": "Unit tokens",
              "battlefield-board": "Battlefield Board tokens"}  # fmt: skip
    st.sheet("Combat tokens", "What each token does, when it goes on and when it comes off")
    order = [*groups, None]
    size = 22 * mm
    for group in order:
        members = [r for r in recs if r.get("group") == group or (group is None and r.get("group") not in groups)]
        if not members:
            continue
        st.h2(groups.get(group or "", "Other tokens"))
        rows: list[list[Cell]] = []
        for rec in members:
            st.ctx_origin = rec.origin
            drawing = TokenDrawing(rec.data, size, st.s.token, token_values(rec.data))
            rows.append([drawing, token_summary(ctx, st, rec)])
        st.table(None, rows, [size + 14, st.width - size - 14], extra=TOKEN_COLUMN)


TOKEN_COLUMN = (("ALIGN", (0, 0), (0, -1), "CENTER"), ("VALIGN", (0, 0), (0, -1), "MIDDLE"))
LABELS = {
    "placed_when": "Placed", "effect": "Effect", "removed_when": "Removed", "spells": "Spells",
    "units": "Units", "abilities": "Abilities", "removed_by_spells": "Removed by", "ignored_by": "Ignored by",
    "exempt_units": "Never on", "stands_for": "Stands for", "locations": "Marks", "note": "Note",
    "bonuses": "Bonus choices", "variant": "Variant",
}  # fmt: skip


def token_summary(ctx: Context, st: Story, rec: Rec) -> list[Flowable]:
    o = rec.origin
    data = rec.data
    head = f"<b>{escape(data.get('name', ''))}</b>"
    meta = []
    if data.get("copies"):
        meta.append(f"\u00d7{data['copies']}")
    if data.get("expansion"):
        meta.append(f"{titled(data['expansion'])} box")
    if data.get("shape"):
        meta.append(titled(data["shape"]))
    if data.get("faces"):
        meta.append("faces: " + " / ".join(str(f) for f in data["faces"]))
    if data.get("paired"):
        meta.append("in linked pairs")
    if data.get("one_per_unit"):
        meta.append("one per unit")
    if meta:
        dot = " \u00b7 "
        head += f' <font size="7" color="#5f6b76">{escape(dot.join(meta))}</font>'
    out: list[Flowable] = [st.cell(head, o)]
    counts = []
    if data.get("counts_by_power"):
        counts.append("by Power used: " + " / ".join(str(n) for n in data["counts_by_power"]) + " tokens")
    if isinstance(data.get("count_by_board"), dict):
        counts.append(", ".join(f"{titled(k)}: {v}" for k, v in data["count_by_board"].items()))
    if isinstance(data.get("count_by_difficulty"), dict):
        counts.append("by difficulty: " + ", ".join(f"{titled(k)} {v}" for k, v in data["count_by_difficulty"].items()))
    if counts:
        out.append(st.cell("<b>How many:</b> " + escape("; ".join(counts)), o))
    for key, label in LABELS.items():
        value = data.get(key)
        if value is None or value == []:
            continue
        po = o.at(key)
        if isinstance(value, list):
            refs = f"/{key}/0" in rec.refs
            text = ctx.names(value, po) if refs else escape(" / ".join(str(v) for v in value))
        else:
            text = ctx.text(value)
        out.append(st.cell(f"<b>{label}:</b> {text}", po))
    known = {"kind", "id", "name", "source", "copies", "expansion", "shape", "faces", "paired", "one_per_unit",
             "counts_by_power", "count_by_board", "count_by_difficulty", "group", *LABELS}  # fmt: skip
    for key, value in data.items():
        if key not in known:
            for line, _depth in generic_lines(ctx, rec, value, f"/{key}", titled(key)):
                out.append(st.cell(line, o.at(key)))
    return out


def aid_map_locations(ctx: Context, st: Story, locations: list[Rec], tokens: list[Rec], tiles: list[Rec]) -> None:
    st.sheet("Map locations and tokens", "Conflux locations by category, and the Conflux tokens")
    on_tiles: dict[str, list[tuple[Rec, int]]] = {}
    for tile in tiles:
        for i, loc in enumerate(tile.get("locations") or []):
            on_tiles.setdefault(loc, []).append((tile, i))
    categories = {"flaggable": "Flaggable locations", "visitable": "Visitable locations",
                  "revisitable": "Revisitable locations"}  # fmt: skip
    for category in [*categories, None]:
        members = [r for r in locations if r.get("category") == category
                   or (category is None and r.get("category") not in categories)]  # fmt: skip
        if not members:
            continue
        st.h2(categories.get(category or "", "Other locations"))
        rows: list[list[Cell]] = []
        for rec in members:
            st.ctx_origin = rec.origin
            rule: list[Flowable] = [st.cell(ctx.text(rec.get("rule", "")), rec.origin.at("rule"))]
            if rec.get("note"):
                rule.append(st.cell(f"<i>{ctx.text(rec.get('note'))}</i>", rec.origin.at("note")))
            where = on_tiles.get(rec.id, [])
            if where:
                names = ", ".join(ctx.tile(t.id, t.origin) for t, _i in where)
                rule.append(st.cell(f'<font color="#5f6b76">On: {names}</font>', rec.origin))
            rows.append([BOX if False else st.cell(escape(rec.get("name")), rec.origin, bold=True), rule])
        st.table(["Location", "Rule"], rows, [22, 78])
    if tokens:
        st.h2("Tokens")
        rows = []
        size = 15 * mm
        for rec in tokens:
            st.ctx_origin = rec.origin
            rows.append([TokenDrawing(rec.data, size, st.s.token, token_values(rec.data)), token_summary(ctx, st, rec)])
        st.table(None, rows, [size + 14, st.width - size - 14], extra=TOKEN_COLUMN)


def auto_widths(columns: Sequence[str], rows: Sequence[Sequence[Any]], total: float) -> list[float]:
    """Column widths: every column fits its longest word, the rest of the room goes by text length."""
    floors: list[float] = []
    weights: list[float] = []
    for c, column in enumerate(columns):
        cells = [str(r[c]) for r in rows if c < len(r) and r[c] is not None]
        words = [(w, SANS.bold) for w in str(column).split()]
        words += [(w, SANS.bold if c == 0 else SANS.regular) for cell in cells for w in cell.split()]
        floors.append(max((stringWidth(w, font, 8) for w, font in words), default=10) + 2 * CELL_PAD + 2)
        lengths = [len(str(column))] + [len(cell) for cell in cells]
        weights.append(sum(lengths) / len(lengths) * 0.6 + max(lengths) * 0.4)
    spare = total - sum(floors)
    if spare <= 0:
        return [total * f / sum(floors) for f in floors]
    return [f + spare * w / sum(weights) for f, w in zip(floors, weights, strict=True)]


def aid_homm4_tables(ctx: Context, st: Story, recs: list[Rec]) -> None:
    st.sheet("HoMM IV reference", "Turn summary, hero level, terrains and the other reference tables")
    for rec in recs:
        st.ctx_origin = rec.origin
        table = rec.get("table") or {}
        columns = [str(c) for c in table.get("columns") or []]
        st.h2(str(rec.get("name")), rec.origin)
        if rec.get("caption"):
            st.para(ctx.text(rec.get("caption")))
        rows: list[list[Cell]] = []
        for r, row in enumerate(table.get("rows") or []):
            cells: list[Cell] = []
            for c in range(len(columns)):
                value = row[c] if c < len(row) else None
                text = "" if value is None else ctx.text(value)
                cells.append(st.cell(text, rec.origin.at("table", "rows", r, c), bold=c == 0))
            rows.append(cells)
        if columns:
            widths = auto_widths(columns, table.get("rows") or [], st.width)
            st.table(columns, rows, widths, origin=rec.origin.at("table"))
        for note in rec.get("notes") or []:
            st.bullet(ctx.text(note))


def aid_possessed(ctx: Context, st: Story, recs: list[Rec]) -> None:
    st.sheet("Possessed enemies", "The square possessed tokens, in Quick Reference order")
    st.para(
        "A possessed token goes under a normal circular enemy token and changes that enemy by the values "
        "below. A dash means the rulebook text does not give the value."
    )
    recs = sorted(recs, key=lambda r: (r.get("reference_order") is None, r.get("reference_order") or 0))
    rows: list[list[Cell]] = []

    def signed(value: Any) -> str:
        return "\u2014" if value is None else f"{value:+d}" if isinstance(value, int) else escape(value)

    for rec in recs:
        st.ctx_origin = rec.origin
        reward = rec.get("reward")
        rows.append(
            [str(rec.get("reference_order", "\u2014")), st.cell(escape(rec.get("name")), rec.origin, bold=True),
             str(rec.get("copies", 1)), signed(rec.get("armor_modifier")), signed(rec.get("attack_modifier")),
             "\u2014" if rec.get("psychic_attack") is None else str(rec.get("psychic_attack")),
             signed(rec.get("fame_modifier")), "Faction token" if reward == "faction-token" else escape(reward or "")]
        )  # fmt: skip
    st.table(
        ["#", "Token", "Copies", "Armor", "Attack", "Psychic Attack", "Fame", "Reward when defeated"],
        rows, [5, 26, 8, 8, 8, 10, 8, 17],
    )  # fmt: skip
    total = sum(int(r.get("copies", 1)) for r in recs)
    st.small(f"{total} tokens in all.")


def aid_faction_tokens(ctx: Context, st: Story, factions: list[Rec], tokens: list[Rec]) -> None:
    st.sheet("Faction tokens", "How Faction tokens are gained and used")
    shared_rules: list[str] = []
    for rec in factions:
        st.ctx_origin = rec.origin
        head = escape(rec.get("name"))
        if rec.get("token_count") is not None:
            head += f" \u2014 {rec.get('token_count')} tokens"
        st.h2(head, rec.origin)
        if rec.get("description"):
            st.para(ctx.text(rec.get("description")))
        if rec.get("gained_from"):
            st.para("<b>Gain a token for:</b>")
            for item in rec.get("gained_from"):
                st.bullet(ctx.text(item))
        rules = rec.get("token_rules")
        if rules and rules not in shared_rules:
            shared_rules.append(rules)
    if shared_rules:
        st.h2("Using Faction tokens")
        for rules in shared_rules:
            st.para(ctx.text(rules))
    if tokens:
        st.h2("Tokens")
        rows: list[list[Cell]] = []
        for rec in tokens:
            st.ctx_origin = rec.origin
            faction = ctx.name(rec.get("faction"), rec.origin.at("faction")) if rec.get("faction") else "\u2014"
            text: list[Flowable] = []
            if rec.get("effect"):
                text.append(st.cell(ctx.text(rec.get("effect")), rec.origin.at("effect")))
            if rec.get("faq"):
                text.append(st.cell("<b>FAQ:</b> " + ctx.text(rec.get("faq")), rec.origin.at("faq")))
            copies = f" \u00d7{rec.get('copies')}" if rec.get("copies") else ""
            rows.append([st.cell(escape(rec.get("name")) + copies, rec.origin, bold=True), faction, text])
        st.table(["Token", "Faction", "Effect"], rows, [22, 18, 60])


QUEST_TYPES = {"simple": "Simple", "personal": "Personal", "independent": "Independent", "collective": "Collective"}


def aid_quests(
    ctx: Context,
    st: Story,
    quests: list[Rec],
    markers: list[Rec],
    sites: Sequence[Rec] = (),
    tokens: Sequence[Rec] = (),
) -> None:
    st.sheet("Quests", "Quest cards: steps, rewards and rulings; Quest markers")
    quests = sorted(quests, key=lambda r: (r.get("number") is None, r.get("number") or 0))
    for rec in quests:
        st.ctx_origin = rec.origin
        o = rec.origin
        number = f"{rec.get('number')}. " if rec.get("number") else ""
        meta = [QUEST_TYPES.get(rec.get("type"), titled(str(rec.get("type")))) if rec.get("type") else ""]
        if rec.get("starting"):
            meta.append("starting Quest (*)")
        meta_text = " \u00b7 ".join(m for m in meta if m)
        st.h3(
            f"{escape(number)}{escape(rec.get('name'))}"
            + (f' <font color="#5f6b76" size="8">{escape(meta_text)}</font>' if meta_text else ""),
            o,
        )  # noqa: E501
        if rec.get("flavor"):
            st.para(f"<i>{ctx.text(rec.get('flavor'))}</i>")
        if rec.get("instructions"):
            st.para(f"<b>When revealed:</b> {ctx.text(rec.get('instructions'))}")
        rows: list[list[Cell]] = []
        for i, step in enumerate(rec.get("steps") or []):
            so = o.at("steps", i)
            parts: list[Flowable] = []
            described = quest_step(ctx, step, so)
            if described:
                parts.append(st.cell(described, so))
            for j, option in enumerate(step.get("options") or []):
                text = f"<b>{step.get('number')}{escape(option.get('letter', ''))}</b> " + quest_step(
                    ctx, option, so.at("options", j)
                )
                parts.append(st.cell(text, so.at("options", j)))
            if parts:
                rows.append([BOX, f"<b>{step.get('number')}</b>", parts])
            else:
                rows.append([BOX, f"<b>{step.get('number')}</b>", st.cell("<i>as printed on the card</i>", so)])
        if any(isinstance(r[2], list) for r in rows):
            st.table(["", "Step", "What to do"], rows, [3, 6, 91], origin=o.at("steps"))
        elif rows:
            numbers = ", ".join(str(step.get("number")) for step in rec.get("steps"))
            st.para(f"<b>Steps:</b> {numbers} <i>(as printed on the card)</i>")
        for reward in rec.get("rewards") or []:
            st.bullet("<b>Reward:</b> " + ctx.text(reward))
        if rec.get("faq"):
            st.para("<b>FAQ:</b> " + ctx.text(rec.get("faq")))
    if markers:
        st.h2("Quest markers")
        by_number = ctx.loaded.index.by_field(("mk.quest",), "number")
        rows = []
        for rec in markers:
            st.ctx_origin = rec.origin
            if rec.get("quest") is not None and rec.get("quest") in by_number:
                quest = ctx.name(by_number[rec.get("quest")], rec.origin.at("quest"))
            elif rec.get("quest_card"):
                quest = ctx.name(rec.get("quest_card"), rec.origin.at("quest_card"))
            else:
                quest = escape(rec.get("quest", "\u2014"))
            use: list[Flowable] = [st.cell(ctx.text(rec.get("use", "")), rec.origin.at("use"))]
            if rec.get("back"):
                use.append(st.cell("<b>Back:</b> " + ctx.text(rec.get("back")), rec.origin.at("back")))
            rows.append(
                [st.cell(escape(rec.get("name")), rec.origin, bold=True), escape(rec.get("label", "")), quest, use]
            )
        st.table(["Marker", "Label", "Quest", "Use"], rows, [24, 8, 20, 48])
    quest_sites = [rec for rec in sites if rec.get("quest_icon")]
    if quest_sites:
        st.h2("Site icons on Quest cards")
        st.para(", ".join(escape(rec.get("name")) for rec in quest_sites))
    quest_tokens = [rec for rec in tokens if "quest" in str(rec.get("purpose", "")).lower()
                    or any("quest" in str(r).lower() for r in rec.get("rules") or [])]  # fmt: skip
    if quest_tokens:
        st.h2("Tokens used with quests")
        for rec in quest_tokens:
            st.ctx_origin = rec.origin
            lines = [ctx.text(rec.get("purpose", ""))] if rec.get("purpose") else []
            lines += [ctx.text(r) for r in rec.get("rules") or [] if "quest" in str(r).lower()]
            copies = f" \u00d7{rec.get('copies')}" if rec.get("copies") else ""
            st.bullet(f"<b>{escape(rec.get('name'))}{copies}:</b> " + " ".join(lines))


def quest_step(ctx: Context, step: dict[str, Any], o: Origin) -> str:
    bits = []
    if step.get("text"):
        bits.append(ctx.text(step["text"]))
    if step.get("sites"):
        bits.append("At: " + ctx.names(step["sites"], o.at("sites"), " or "))
    if step.get("terrains"):
        bits.append("On: " + " or ".join(titled(t) for t in step["terrains"]))
    if step.get("quest_point"):
        bits.append("\u2713 1 Quest point")
    if step.get("places_marker"):
        bits.append("places this Quest's marker")
    return " \u00b7 ".join(bits)


# --------------------------------------------------------------------------- the build


@dataclass(slots=True)
class Output:
    path: Path
    title: str
    game: str
    records: list[dict[str, Any]]
    draw: Callable[[Context, Story], None]
    toc: bool = False
    main: list[Rec] = field(default_factory=list)


def game_folder(loaded: LoadedProject, prefix: str) -> str:
    """The game's output folder: pnp.toml [games.PREFIX] folder, else the built-in default."""
    games = getattr(loaded.project, "games", None)
    if isinstance(games, dict) and games.get(prefix) is not None:
        return str(games[prefix].folder)
    return GAME_FOLDERS.get(prefix, prefix)


def game_title(loaded: LoadedProject, prefix: str) -> str:
    """The game's name for footers: pnp.toml [games.PREFIX] title, else the built-in default."""
    games = getattr(loaded.project, "games", None)
    if isinstance(games, dict) and games.get(prefix) is not None:
        return str(games[prefix].title)
    return GAME_NAMES.get(prefix, prefix)


def paper_size(paper: str) -> tuple[float, float]:
    """'a4' or 'letter' (and whatever else `pnp build` accepts: a3, legal, 210x297mm)."""
    key = paper.lower().strip()
    if key in PAPERS:
        return PAPERS[key]
    try:
        from pnp.impose import parse_paper
    except ImportError:
        raise ValueError(f"unknown paper {paper!r}; use {', '.join(PAPERS)}") from None
    try:
        width, height = parse_paper(paper)
    except Exception as err:  # ImpositionError: its message says what is accepted
        raise ValueError(str(err)) from None
    return float(width), float(height)


def _recs(loaded: LoadedProject, kind: str) -> list[Rec]:
    return [make_rec(loaded, f.display, r) for f, _i, r in loaded.records(kind)]


def _dependencies(loaded: LoadedProject, recs: Iterable[Rec]) -> list[dict[str, Any]]:
    """The records themselves and every record they reference (names, tile codes)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rec in recs:
        if rec.id not in seen:
            seen.add(rec.id)
            out.append(rec.data)
        for pointer, (kinds, by) in sorted(rec.refs.items()):
            value = _at_pointer(rec.data, pointer)
            if by != "id":
                rid: Any = loaded.index.by_field(kinds, by).get(value)
            else:
                rid = value
            key = str(rid)
            if key in seen:
                continue
            seen.add(key)
            entry = loaded.index.first.get(rid) if isinstance(rid, str) else None
            out.append(entry[1].records[entry[2]] if entry else {"missing": value})
    return out


def plan_outputs(loaded: LoadedProject, out_dir: Path) -> list[Output]:
    """Every file to build, with the records it reads."""
    outputs: list[Output] = []
    campaigns = {rec.id: rec for rec in _recs(loaded, "homm3.campaign")}
    for rec in _recs(loaded, "homm3.scenario"):
        campaign = campaigns.get(str(rec.get("campaign"))) if rec.get("campaign") else None

        def draw(ctx: Context, st: Story, rec: Rec = rec, campaign: Rec | None = campaign) -> None:
            sub = "Scenario setup sheet"
            if campaign is not None:
                sub = f"{escape(campaign.get('name'))} \u2014 scenario {rec.get('number', '')}"
            st.sheet(str(rec.get("name")), sub)
            Homm3Scenario(ctx, st, rec, campaign).draw()
            missing_refs(ctx, st, rec)

        # the campaign itself (name, scenario count, income), not the other scenarios it lists
        deps = _dependencies(loaded, [rec]) + ([campaign.data] if campaign else [])
        outputs.append(
            Output(out_dir / game_folder(loaded, "homm3") / "setup" / f"{rec.id}.pdf", str(rec.get("name")), "homm3",
                   deps, draw, main=[rec])
        )  # fmt: skip
    scenarios_by_id = {rec.id: rec for rec in _recs(loaded, "homm3.scenario")}
    for campaign in campaigns.values():
        members = [scenarios_by_id[s] for s in campaign.get("scenarios") or [] if s in scenarios_by_id]

        def draw_booklet(ctx: Context, st: Story, campaign: Rec = campaign, members: list[Rec] = members) -> None:
            campaign_front(ctx, st, campaign, members)
            campaign_rules(ctx, st, campaign)
            missing_refs(ctx, st, campaign)
            total = len(campaign.get("scenarios") or [])
            for rec in members:
                number = rec.get("number")
                title = f"{number}. {rec.get('name')}" if number else str(rec.get("name"))
                st.sheet(title, f"{escape(campaign.get('name'))} \u2014 scenario {number} of {total}", toc_level=0)
                Homm3Scenario(ctx, st, rec, campaign).draw()
                missing_refs(ctx, st, rec)

        outputs.append(
            Output(out_dir / game_folder(loaded, "homm3") / f"campaign-{campaign.id}.pdf", str(campaign.get("name")),
                   "homm3", _dependencies(loaded, [campaign, *members]), draw_booklet, toc=True,
                   main=[campaign, *members])
        )  # fmt: skip
    for rec in _recs(loaded, "mk.scenario"):

        def draw_mk(ctx: Context, st: Story, rec: Rec = rec) -> None:
            MkScenario(ctx, st, rec).draw()
            missing_refs(ctx, st, rec)

        outputs.append(
            Output(out_dir / game_folder(loaded, "mk") / "setup" / f"{rec.id}.pdf", str(rec.get("name")), "mk",
                   _dependencies(loaded, [rec]), draw_mk, main=[rec])
        )  # fmt: skip
    outputs.extend(_plan_aids(loaded, out_dir))
    return outputs


def _plan_aids(loaded: LoadedProject, out_dir: Path) -> list[Output]:
    outputs: list[Output] = []

    def aid(game: str, name: str, title: str, kinds: Sequence[str], draw: Callable[..., None]) -> None:
        groups = [_recs(loaded, kind) for kind in kinds]
        if not groups[0]:
            return
        flat = [rec for group in groups for rec in group]

        def run(ctx: Context, st: Story) -> None:
            draw(ctx, st, *groups)
            for rec in groups[0]:
                missing_refs(ctx, st, rec)

        outputs.append(
            Output(out_dir / game_folder(loaded, game) / "aids" / f"{name}.pdf", title, game,
                   _dependencies(loaded, flat), run, main=flat)
        )  # fmt: skip

    aid("homm3", "combat-tokens", "Combat tokens", ["homm3.combat-token"], aid_combat_tokens)
    aid("homm3", "map-locations-and-tokens", "Map locations and tokens",
        ["homm3.map-location", "homm3.token", "homm3.map-tile"], aid_map_locations)  # fmt: skip
    aid("homm4", "reference-tables", "HoMM IV reference", ["homm4.table"], aid_homm4_tables)
    aid("mk", "possessed-enemies", "Possessed enemies", ["mk.possessed-enemy"], aid_possessed)
    aid("mk", "faction-tokens", "Faction tokens", ["mk.faction", "mk.faction-token"], aid_faction_tokens)
    aid("mk", "quests", "Quests", ["mk.quest", "mk.quest-marker", "mk.site", "mk.token"], aid_quests)
    return outputs


def _sources() -> list[Path]:
    here = Path(__file__).resolve()
    return [here, Path(fonts.__file__).resolve()]


def _load_icons(loaded: LoadedProject) -> tuple[dict[str, Any], list[Path]]:
    path = loaded.project.layouts / "icons.json"
    if not path.is_file():
        return {}, []
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, [path]
    icons = data.get("icons") if isinstance(data, dict) else None
    return (icons if isinstance(icons, dict) else {}), [path]


def build_one(
    loaded: LoadedProject, output: Output, paper: str, icons: dict[str, Any]
) -> tuple[bytes | None, list[str]]:
    """Render one output to bytes; (None, problems) when its text does not fit."""
    fonts.register_bundled()
    rl_config.invariant = 1
    pagesize = paper_size(paper)
    styles = make_styles()
    width = pagesize[0] - 2 * MARGIN_X
    height = pagesize[1] - MARGIN_TOP - MARGIN_BOTTOM
    game = game_title(loaded, output.game)
    first: list[Story] = []

    def make() -> Story:
        ctx = Context(loaded, icons)
        st = Story(ctx, styles, width, height)
        output.draw(ctx, st)
        if not first:
            first.append(st)
        return st

    story = make()
    problems = list(dict.fromkeys(story.ctx.problems))
    if story.overflow:
        return None, list(dict.fromkeys(story.overflow)) + problems
    try:
        data = render_pdf(make, pagesize, output.title, game, toc=output.toc)
    except SheetOverflow as err:
        return None, [str(err), *problems]
    return data, problems


def build_sheets(
    loaded: LoadedProject, out_dir: Path, paper: str, manifest: Manifest, force: bool = False
) -> list[SheetResult]:
    """Build every setup sheet, campaign booklet and reference aid into `out_dir`.

    Skips a file whose inputs (records read, this module, paper) are unchanged since the last
    build, unless `force`. A file with problems is rebuilt next time (its digest is not kept);
    one whose text does not fit is not written at all.
    """
    paper_size(paper)  # an unknown paper is refused before anything is written
    icons, icon_files = _load_icons(loaded)
    results: list[SheetResult] = []
    for output in plan_outputs(loaded, out_dir):
        key = digest(
            "sheets", paper, output.path.name, output.records, files=[*_sources(), *icon_files, *draw_token_inputs]
        )
        if not force and manifest.fresh(output.path, key):
            results.append(SheetResult(output.path, False, ()))
            continue
        data, problems = build_one(loaded, output, paper, icons)
        if data is None:
            results.append(SheetResult(output.path, False, tuple(problems)))
            continue
        atomic_write(output.path, lambda handle, data=data: handle.write(data))  # type: ignore[misc]
        if not problems:
            manifest.record(output.path, key)
        results.append(SheetResult(output.path, True, tuple(problems)))
    manifest.save()
    return results
