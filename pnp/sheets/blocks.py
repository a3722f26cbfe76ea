"""Blocks -> platypus flowables: one handler per block type (docs/sheets.md).

Templates (pnp.sheets.templates) run in the layouts' sandbox with the `ref` filter of the
card renderer and a `label` filter whose labels come from the sheet file or the kind's schema.
Their output uses the cards' markup (*bold*, _italic_, {icon}), parsed by pnp.drawing.render.parse_markup.
Every problem is located at the sheet block that met it and names the record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, Image, PageBreak, Paragraph, Table, TableStyle
from reportlab.platypus.tableofcontents import TableOfContents

from pnp.core.paths import image_problem, project_file
from pnp.core.problems import Finding
from pnp.drawing.images import load_icon_art
from pnp.drawing.render import Icon, parse_markup
from pnp.project.sheetfiles import SheetFile
from pnp.sheets.inline import Para, icon_tag, inline_icons, plain_words
from pnp.sheets.page import CELL_PAD, HEAD_BG, RULE, SANS, ZEBRA, Mark, Styles, Where
from pnp.sheets.templates import Block, CardHook, Scope, Templates, humanize, record_id, record_scope, word_key

BOX = "\u2610"
MAX_ITEMS = 10_000  # rows, items or repeats one block may make
MAX_DEPTH = 8  # includes and repeats nested


def escape(text: Any) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(slots=True, kw_only=True)
class Drawer(Templates):
    """Everything the handlers share while one PDF is laid out (its templates: Templates)."""

    styles: Styles
    width: float
    height: float
    icons: dict[str, Icon]
    root: Path
    icon_art: dict[str, Any] = field(default_factory=dict)  # icons.json images, read once (pnp.drawing.images)
    draw_card: CardHook | None = None
    refs: Callable[[dict[str, Any]], set[str]] = lambda _record: set()
    sections: int = 0
    fresh: bool = False  # nothing drawn yet: the next section starts on this page
    toc: bool = False
    parsed: dict[tuple[str, int, str | None], tuple[Any, str, list[Any]]] = field(default_factory=dict)  # see `rich`

    def markup(self, text: str, images: bool = True) -> str:
        """Card markup -> paragraph markup; a newline is a line break. An icon with an image becomes
        an icon tag (drawn as its image by `rich`, pnp.sheets.inline); one without, or with
        `images=False` (a table of contents, which makes its own paragraphs), its label on its colour."""
        out: list[str] = []
        for line_no, line in enumerate(text.split("\n")):
            if line_no:
                out.append("<br/>")
            for run in parse_markup(line, self.icons):
                if run.icon is not None:
                    if images and self.icon_art_of(run.text[1:-1]) is not None:
                        out.append(icon_tag(run.text[1:-1]))
                        continue
                    color = run.icon.color.hexval().replace("0x", "#")
                    out.append(
                        f'<font backColor="{color}" color="#ffffff"><b>\u00a0{escape(run.icon.label)}\u00a0</b></font>'
                    )
                    continue
                piece = escape(run.text)
                if run.bold:
                    piece = f"<b>{piece}</b>"
                if run.italic:
                    piece = f"<i>{piece}</i>"
                out.append(piece)
        return "".join(out)

    def icon_art_of(self, name: str) -> Any:
        """The icon's image as pnp.drawing.images reads it for cards (None: no image, or not readable)."""
        icon = self.icons.get(name)
        if icon is None or not icon.image:
            return None
        return load_icon_art(self.root, self.icon_art, icon.image)

    def rich(self, text: str, style: Any, bullet: str | None = None) -> Paragraph:
        """A paragraph of card markup, its icons drawn as their images. A markup met before in
        this style is not parsed again (a table repeats its cells' words: costs, types, "-"): the
        paragraph gets copies of the fragments the first parse made."""
        markup = self.markup(text)
        key = (markup, id(style), bullet)  # the entry keeps its style alive: no other style gets its id
        known = self.parsed.get(key)
        if known is not None and known[0] is style:
            _, cleaned, frags = known
            para = Para(cleaned, style, bulletText=bullet, frags=[frag.clone() for frag in frags])
        else:
            para = Para(markup, style, bulletText=bullet)
            if para.style is style and para.bulletText == bullet:  # no <para> or <bullet> of its own
                self.parsed[key] = (style, para.text, [frag.clone() for frag in para.frags])
        return inline_icons(para, self.icon_art_of)

    def paragraph(self, text: str, style: Any, where: Where, bullet: str | None = None) -> Paragraph:
        para = self.rich(text, style, bullet)
        para._pnp_where = where
        return para

    # blocks ------------------------------------------------------------------------------
    def blocks(
        self, sheet: SheetFile, blocks: list[Block], pointer: str, scope: Scope, depth: int = 0
    ) -> list[Flowable]:
        out: list[Flowable] = []
        if depth > MAX_DEPTH:
            self.fail(sheet, pointer, scope, f"blocks nest deeper than {MAX_DEPTH} (includes or repeats); flatten them")
            return out
        for i, block in enumerate(blocks):
            here = f"{pointer}/{i}"
            if not self.when(sheet, here, block, scope):
                continue
            handler = HANDLERS[str(block["type"])]
            made = handler(self, sheet, block, here, scope, depth)
            if made:
                self.fresh = False
                out.append(Mark(where=Where(here, record_id(scope))))
                out.extend(made)
        return out

    def section(self, title: str, subtitle: str, toc: bool, where: Where, first: bool) -> list[Flowable]:
        """A new section: a new page (unless first), its title in every page header, numbered on its own."""
        self.sections += 1
        out: list[Flowable] = [] if first or self.fresh else [PageBreak()]
        self.fresh = False
        out.append(Mark(header=plain_words(title, self.icons), section=self.sections, where=where))
        heading = self.rich(title, self.styles.title)
        if toc:
            heading._pnp_toc = (0, self.markup(title, images=False), f"section-{self.sections}")
        out.append(heading)
        if subtitle:
            out.append(self.rich(subtitle, self.styles.subtitle))
        return out

    def items(self, sheet: SheetFile, pointer: str, source: Any, scope: Scope) -> list[Any]:
        """A block's list: an expression giving a list, or a list of templates."""
        if isinstance(source, list):
            return [self.text(sheet, f"{pointer}/{i}", s, scope) for i, s in enumerate(source)]
        value = self.expr(sheet, pointer, source, scope)
        if value is None or value == "":
            return []
        if isinstance(value, dict):
            value = [{"key": k, "value": v} for k, v in value.items()]
        if not isinstance(value, (list, tuple)):
            value = [value]
        if len(value) > MAX_ITEMS:  # an error: nothing is drawn (laying 10,000 rows out took a minute)
            self.fail(
                sheet,
                pointer,
                scope,
                f"{len(value)} items; a block shows at most {MAX_ITEMS}: "
                "narrow the list (the document's `where`, or a slice)",
            )
            return []
        return list(value)

    def measure(self, sheet: SheetFile, cell: Flowable, width: float, pointer: str, scope: Scope, name: str) -> None:
        """A table row cannot split across pages: a cell taller than a page is an error naming record and field."""
        limit = self.height - 36
        _w, h = cell.wrap(width, self.height)
        if h > limit:
            rid = record_id(scope)
            self.problems.append(
                (
                    sheet,
                    Finding(
                        "text-overflow",
                        f"record {rid!r} field {name!r}: text too long to fit on a page ({h:.0f} pt tall, a page "
                        f"holds {limit:.0f} pt); shorten it",
                        pointer,
                    ),
                )
            )


def with_item(scope: Scope, name: str, value: Any, index: int) -> Scope:
    inner = {**scope, name: value, "index": index}
    if isinstance(value, dict) and "id" in value:
        inner["__item__"] = value
    return inner


# --------------------------------------------------------------------------- handlers


def heading(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    text = d.text(sheet, pointer + "/text", block["text"], scope)
    if not text:
        return []
    level = int(block.get("level", 2))
    style = {1: d.styles.h1, 2: d.styles.h2, 3: d.styles.h3}[level]
    para = d.paragraph(text, style, Where(pointer, record_id(scope)))
    if block.get("toc"):
        d.toc = True
        para._pnp_toc = (max(0, level - 2), d.markup(text, images=False), None)
    para.keepWithNext = 1  # a heading never ends a page
    return [CondPageBreak({1: 100, 2: 80, 3: 60}[level]), para]


def text(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    body = d.text(sheet, pointer + "/text", block["text"], scope)
    if not body:
        return []
    style = getattr(d.styles, str(block.get("style", "body")))
    where = Where(pointer + "/text", record_id(scope))
    return [d.paragraph(part, style, where) for part in body.split("\n\n") if part.strip()]


def facts(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    rows: list[list[Any]] = []
    for i, row in enumerate(block["rows"]):
        here = f"{pointer}/rows/{i}"
        if not d.when(sheet, here, row, scope):
            continue
        value = d.text(sheet, here + "/value", row["value"], scope)
        if not value:
            continue
        label = d.text(sheet, here + "/label", row["label"], scope)
        cell = d.paragraph(value, d.styles.cell, Where(here, record_id(scope)))
        d.measure(sheet, cell, d.width * 0.74 - 2 * CELL_PAD, here + "/value", scope, row["value"])
        rows.append([d.paragraph(label, d.styles.cell_bold, Where(here)), cell])
    if not rows:
        return []
    return [grid(rows, [d.width * 0.26, d.width * 0.74], header=False)]


def table(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    name = str(block.get("as", "row"))
    items = d.items(sheet, pointer + "/rows", block["rows"], scope)
    if not items:
        return []
    box_width = 14.0 if block.get("checkbox") else 0.0
    if "columns_from" in block:  # headers from the data; each row is a list of cells
        headers = [str(h) for h in d.items(sheet, pointer + "/columns_from", block["columns_from"], scope)]
        rows = [[("" if v is None else str(v)) for v in (r if isinstance(r, list) else [r])] for r in items]
        texts = [[*row, *[""] * (len(headers) - len(row))][: len(headers)] for row in rows]
        widths = auto_widths(headers, texts, d.width - box_width)
        here = pointer + "/columns_from"
        return [_grid_of(d, sheet, headers, texts, widths, box_width, here, scope, bold_first=True)]
    columns = [
        c for i, c in enumerate(block["columns"]) if d.when(sheet, f"{pointer}/columns/{i}", c, scope)
    ]  # a column's `when` is read once, for the whole table
    if not columns:
        return []
    fractions = [float(c.get("width", 1)) for c in columns]
    widths = [(d.width - box_width) * f / sum(fractions) for f in fractions]
    show_header = block.get("header", any("header" in c for c in columns))
    if show_header:
        widths = fit_header(widths, [str(c.get("header", "")) for c in columns])
    data: list[list[Any]] = []
    if show_header:
        head = [
            d.rich(d.text(sheet, f"{pointer}/columns/{c}/header", col.get("header", ""), scope), d.styles.head)
            for c, col in enumerate(block["columns"])
            if col in columns
        ]
        data.append(([Para("", d.styles.head)] if box_width else []) + head)
    for index, item in enumerate(items, 1):
        inner = with_item(scope, name, item, index)
        cells: list[Any] = [Para(BOX, d.styles.cell)] if box_width else []
        for c, column in enumerate(columns):
            here = f"{pointer}/columns/{block['columns'].index(column)}/value"
            value = d.text(sheet, here, column["value"], inner)
            style = d.styles.cell_bold if column.get("bold") else d.styles.cell
            cell = d.paragraph(value, style, Where(here, record_id(inner)))
            d.measure(sheet, cell, widths[c] - 2 * CELL_PAD, here, inner, column["value"])
            cells.append(cell)
        data.append(cells)
    return [grid(data, ([box_width] if box_width else []) + widths, header=bool(show_header))]


def _grid_of(
    d: Drawer, sheet: SheetFile, headers: list[str], rows: list[list[str]], widths: list[float], box_width: float,
    pointer: str, scope: Scope, bold_first: bool,
) -> Table:  # fmt: skip
    """A table of plain cells (card markup) under a header row."""
    data: list[list[Any]] = [
        ([Para("", d.styles.head)] if box_width else []) + [d.rich(h, d.styles.head) for h in headers]
    ]
    for row in rows:
        cells: list[Any] = [Para(BOX, d.styles.cell)] if box_width else []
        for c, value in enumerate(row):
            style = d.styles.cell_bold if bold_first and c == 0 else d.styles.cell
            cell = d.paragraph(value, style, Where(pointer, record_id(scope)))
            d.measure(sheet, cell, widths[c] - 2 * CELL_PAD, pointer, scope, headers[c])
            cells.append(cell)
        data.append(cells)
    return grid(data, ([box_width] if box_width else []) + widths, header=True)


def fit_header(widths: list[float], headers: list[str]) -> list[float]:
    """Widen columns whose header has a word too long for them; the room comes from the others."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    floors = [max((stringWidth(w, SANS.bold, 8) for w in h.split()), default=0) + 2 * CELL_PAD + 1 for h in headers]
    short = sum(max(0.0, f - w) for f, w in zip(floors, widths, strict=True))
    spare = [max(0.0, w - f) for f, w in zip(floors, widths, strict=True)]
    if short <= 0 or sum(spare) < short:
        return widths
    return [max(w, f) - (s * short / sum(spare) if w > f else 0) for f, w, s in zip(floors, widths, spare, strict=True)]


def auto_widths(headers: list[str], rows: list[list[str]], total: float) -> list[float]:
    """Column widths: every column fits its longest word, the rest of the room goes by text length."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    floors: list[float] = []
    weights: list[float] = []
    for c, header in enumerate(headers):
        cells = [row[c] for row in rows if row[c]]
        words = [(w, SANS.bold) for w in header.split()]
        words += [(w, SANS.bold if c == 0 else SANS.regular) for cell in cells for w in cell.split()]
        floors.append(max((stringWidth(w, font, 8) for w, font in words), default=10) + 2 * CELL_PAD + 2)
        lengths = [len(header)] + [len(cell) for cell in cells]
        weights.append(sum(lengths) / len(lengths) * 0.6 + max(lengths) * 0.4)
    spare = total - sum(floors)
    if spare <= 0:
        return [total * f / sum(floors) for f in floors]
    return [f + spare * w / sum(weights) for f, w in zip(floors, weights, strict=True)]


def grid(data: list[list[Any]], widths: list[float], header: bool) -> Table:
    """A boxed table with zebra rows; the header row repeats on every page the table covers."""
    commands: list[tuple[Any, ...]] = [
        ("FONTNAME", (0, 0), (-1, -1), SANS.regular),
        ("FONTSIZE", (0, 0), (-1, -1), 8),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ("BOX", (0, 0), (-1, -1), 0.6, RULE),
        ("INNERGRID", (0, 0), (-1, -1), 0.3, RULE),
    ]
    first = 1 if header else 0
    if header:
        commands.append(("BACKGROUND", (0, 0), (-1, 0), HEAD_BG))
    for r in range(first + 1, len(data), 2):
        commands.append(("BACKGROUND", (0, r), (-1, r), ZEBRA))
    made = Table(data, colWidths=widths, repeatRows=first, hAlign="LEFT")
    made.setStyle(TableStyle(commands))
    return made


def _listing(bullet: str) -> Callable[..., list[Flowable]]:
    def handler(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
        name = str(block.get("as", "item"))
        style = d.styles.item2 if block.get("level") == 2 else d.styles.item
        out: list[Flowable] = []
        for index, item in enumerate(d.items(sheet, pointer + "/items", block["items"], scope), 1):
            inner = with_item(scope, name, item, index)
            line = d.text(sheet, pointer + "/text", block["text"], inner) if "text" in block else str(item)
            if line:
                mark = f"{index}." if block.get("numbered") else bullet
                out.append(d.paragraph(line, style, Where(pointer, record_id(inner)), mark))
        return out

    return handler


def repeat(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    name = str(block.get("as", "item"))
    items = d.items(sheet, pointer + "/over", block["over"], scope)
    groups: dict[str, list[tuple[int, Any]]] = {}
    for index, item in enumerate(items, 1):
        key = ""
        if "group" in block:
            key = str(d.expr(sheet, pointer + "/group", block["group"], with_item(scope, name, item, index)) or "")
        groups.setdefault(key, []).append((index, item))
    out: list[Flowable] = []
    for key, members in groups.items():
        if "group_heading" in block:
            title = d.text(sheet, pointer + "/group_heading", block["group_heading"], {**scope, "group": key})
            if title:
                para = d.paragraph(title, d.styles.h3, Where(pointer))
                para.keepWithNext = 1
                out += [CondPageBreak(60), para]
        for index, item in members:
            inner = with_item(scope, name, item, index)
            out.extend(d.blocks(sheet, block["blocks"], pointer + "/blocks", inner, depth + 1))
    return out


def card(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    record = d.expr(sheet, pointer + "/record", block["record"], scope) if "record" in block else scope.get("record")
    if not isinstance(record, dict):
        return []
    d.note_card(record)
    size = float(block.get("size", 25)) * mm
    drawing = CardDrawing(record, size, d.draw_card)
    if "beside" not in block:
        return [drawing]
    inner = {**scope, "record": record, **{k: v for k, v in record.items() if k not in scope or k in record}}
    inner["__item__"] = record
    full = d.width
    d.width = full - size - 8  # the blocks beside the card get the rest of the line
    try:
        beside = d.blocks(sheet, block["beside"], pointer + "/beside", inner, depth + 1)
    finally:
        d.width = full
    made = Table([[drawing, beside]], colWidths=[size + 8, full - size - 8], hAlign="LEFT")
    made.setStyle(
        TableStyle([("FONTNAME", (0, 0), (-1, -1), SANS.regular), ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 6)])
    )  # fmt: skip
    return [made]


class CardDrawing(Flowable):  # type: ignore[misc]
    """A record drawn through its own card layout into a square of `size` points (or its outline)."""

    def __init__(self, record: dict[str, Any], size: float, hook: CardHook | None) -> None:
        super().__init__()
        self.record = record
        self.size = size
        self.hook = hook

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        if self.hook is not None and self.hook(self.canv, self.record, 0.0, 0.0, self.size):
            return
        self.canv.saveState()
        self.canv.setStrokeColor(RULE)
        self.canv.rect(0, 0, self.size, self.size)
        self.canv.restoreState()


def image(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    src = d.text(sheet, pointer + "/src", block["src"], scope)
    if not src:
        return []
    if "{" in str(block["src"]):  # a file a template names: an input of this output (pnp.sheets.lookups)
        d.note_file(src)
    path, problem = project_file(d.root, src)
    if problem or path is None:
        d.fail(sheet, pointer + "/src", scope, f"image {src!r} {problem}; name an image file inside the project")
        return []
    broken = image_problem(path)  # a decompression bomb or a corrupt file: never handed to the decoder
    if broken:
        d.fail(sheet, pointer + "/src", scope, f"image {src!r} {broken}")
        return []
    width = float(block.get("width", 60)) * mm
    try:
        from reportlab.lib.utils import ImageReader

        pixels_w, pixels_h = ImageReader(str(path)).getSize()
    except OSError as err:
        d.fail(sheet, pointer + "/src", scope, f"image {src!r} cannot be read: {err}")
        return []
    width = min(width, d.width)
    return [Image(str(path), width=width, height=width * pixels_h / pixels_w, hAlign="LEFT")]


def page_break(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    return [PageBreak()]


def toc(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    d.toc = True
    contents = TableOfContents(dotsMinLevel=0)
    contents.levelStyles = list(d.styles.toc)
    contents.tableStyle = TableStyle(
        [
            ("FONTNAME", (0, 0), (-1, -1), SANS.regular),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
        ]
    )
    out: list[Flowable] = []
    title = d.text(sheet, pointer + "/title", block.get("title", "Contents"), scope)
    if title:
        out.append(d.rich(title, d.styles.h2))
    return [*out, contents]


def section(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    title = d.text(sheet, pointer + "/title", block["title"], scope)
    subtitle = d.text(sheet, pointer + "/subtitle", block.get("subtitle", ""), scope)
    if block.get("toc"):
        d.toc = True
    head = d.section(title, subtitle, bool(block.get("toc")), Where(pointer, record_id(scope)), False)
    return [*head, *d.blocks(sheet, block["blocks"], pointer + "/blocks", scope, depth + 1)]


def include(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    target = d.sheets.sheets.get(str(block["sheet"]))
    if target is None:
        d.fail(sheet, pointer + "/sheet", scope, f"includes sheet {block['sheet']!r}, which is no sheet file")
        return []
    record = d.expr(sheet, pointer + "/record", block["record"], scope) if "record" in block else scope.get("record")
    inner = record_scope(record, scope.get("game", ""), target) if isinstance(record, dict) else dict(scope)
    if "index" in scope:
        inner["index"] = scope["index"]
    head: list[Flowable] = []
    if "title" in block:
        title = d.text(sheet, pointer + "/title", block["title"], scope)
        subtitle = d.text(sheet, pointer + "/subtitle", block.get("subtitle", ""), scope)
        if block.get("toc"):
            d.toc = True
        head = d.section(title, subtitle, bool(block.get("toc")), Where(pointer, record_id(scope)), False)
    return [*head, *d.blocks(target, target.data["blocks"], "/blocks", inner, depth + 1)]


def fields(d: Drawer, sheet: SheetFile, block: Block, pointer: str, scope: Scope, depth: int) -> list[Flowable]:
    """Every field of a record, label / value, references printed by the referenced record's name."""
    record = d.expr(sheet, pointer + "/record", block["record"], scope) if "record" in block else scope.get("record")
    if not isinstance(record, dict):
        return []
    skip = set(block.get("skip", ["kind"]))
    only = block.get("only")
    refs = d.refs(record)
    kind = str(record.get("kind", ""))
    base = d.text(sheet, pointer + "/at", block["at"], scope) if "at" in block else ""
    node: Any = record
    for part in (p for p in base.split("/") if p):
        node = node[int(part)] if isinstance(node, list) and part.isdigit() and int(part) < len(node) else (
            node.get(part) if isinstance(node, dict) else None
        )  # fmt: skip
    if not isinstance(node, dict):
        return []
    rows: list[list[Any]] = []
    for key, value in node.items():
        if key in skip or (only is not None and key not in only):
            continue
        shown = _plain(d, value, f"{base}/{key}", refs, kind, key)
        if shown:
            where = Where(pointer, str(record.get("id", "")))
            cell = d.paragraph(shown, d.styles.cell, where)
            heading = d.word(f"pnp:{kind}/fields/{word_key(key)}", humanize(key))  # pnp.translation.sheetwords
            label = Para(escape(heading), d.styles.cell_bold)
            for piece in split_cell(cell, d.width * 0.74 - 2 * CELL_PAD, d.height - 72):
                rows.append([label, piece])
                label = Para("", d.styles.cell_bold)  # continuation rows: the value goes on
    return [grid(rows, [d.width * 0.26, d.width * 0.74], header=False)] if rows else []


def split_cell(cell: Paragraph, width: float, limit: float) -> list[Paragraph]:
    """A value too tall for one table row (rows never split) as several rows, each under `limit`."""
    pieces: list[Paragraph] = []
    rest = cell
    while len(pieces) < MAX_ITEMS:
        _w, height = rest.wrap(width, limit)
        if height <= limit:
            break
        parts = rest.split(width, limit)
        if len(parts) < 2:
            break  # cannot be split (one enormous line): rendering reports it, located
        for part in parts:
            part._pnp_where = getattr(cell, "_pnp_where", None)
        pieces.append(parts[0])
        rest = parts[1]
    return [*pieces, rest]


def _plain(d: Drawer, value: Any, pointer: str, refs: set[str], kind: str, name: str) -> str:
    if pointer in refs and isinstance(value, str):
        target = d.lookup(value)
        return str(target.get("name", value)) if target else value
    if isinstance(value, dict):
        pairs = [(k, _plain(d, v, f"{pointer}/{k}", refs, kind, k)) for k, v in value.items()]
        return "; ".join(f"{humanize(k)}: {v}" for k, v in pairs if v)
    if isinstance(value, list):
        parts = [_plain(d, v, f"{pointer}/{i}", refs, kind, name) for i, v in enumerate(value)]
        joiner = "\n" if any(isinstance(v, (dict, list)) for v in value) else ", "
        return joiner.join(p for p in parts if p)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    label = d.labels(f"\n{kind}", name).get(str(value))
    return label if label is not None else str(value)


HANDLERS: dict[str, Callable[..., list[Flowable]]] = {
    "heading": heading,
    "text": text,
    "facts": facts,
    "table": table,
    "checklist": _listing(BOX),
    "bullets": _listing("\u2022"),
    "repeat": repeat,
    "card": card,
    "image": image,
    "page-break": page_break,
    "toc": toc,
    "section": section,
    "include": include,
    "fields": fields,
}
