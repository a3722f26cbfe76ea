"""A page's content stream formatted once, when the page is shown, rather than when the document
is saved: pnp.drawing.facestore keeps these bytes and puts them back in a later build in place
of drawing the page again (the same bytes either way: reportlab's own PDFStream formats them).

A kept page goes into the document without the canvas (`add_kept_page`: the page dictionary
showPage makes on an empty page, copied), and a document of such pages is written by
`format_quickly`: reportlab's own loop over the objects, in which a page and its stream, whose
bytes are known, are written as they are rather than through reportlab's formatting of each."""

from __future__ import annotations

import weakref
from typing import Any

from reportlab import rl_config
from reportlab.pdfbase.pdfdoc import (
    PDFBase85Encode,
    PDFCrossReferenceTable,
    PDFDictionary,
    PDFDocument,
    PDFFile,
    PDFIndirectObject,
    PDFObject,
    PDFObjectReference,
    PDFPage,
    PDFPages,
    PDFStream,
    PDFTrailer,
    PDFZCompress,
)

_BLANK: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...] | None]] = (
    weakref.WeakKeyDictionary()
)  # a document's first kept page: the canvas's state, its dictionary, what it is alike in (`_alike`)


class FixedStream(PDFObject):  # type: ignore[misc]  # reportlab has no type hints
    """A content stream already formatted (its dictionary, its compressed operators): the
    document writes these bytes as they are, as an indirect object like reportlab's own."""

    __RefOnly__ = 1
    __Comment__ = "page stream"

    def __init__(self, data: bytes) -> None:
        self.data = data

    def format(self, document: Any) -> bytes:
        return self.data


def fixed_stream(doc: Any, page: Any) -> bytes:
    """Format `page`'s stream as reportlab does on saving (PDFPage.check_format: the same
    filters), put it in as a FixedStream, and return its bytes."""
    stream = PDFStream()
    if page.compression:
        stream.filters = rl_config.useA85 and [PDFBase85Encode, PDFZCompress] or [PDFZCompress]
    stream.content = page.stream
    data: bytes = stream.format(doc)
    page.stream = None
    page.Contents = FixedStream(data)
    page.__class__ = QuickPage
    return data


class QuickPage(PDFPage):  # type: ignore[misc]  # reportlab has no type hints
    """A page dictionary formatted once per document for every page alike (same size, forms,
    resources: all but its content stream's object number), the rest of its pages by putting
    their own stream's number in: the bytes reportlab's PDFPage gives, without formatting 2,000
    alike dictionaries one key at a time."""

    def format(self, document: Any) -> bytes:
        alike = _alike(self)
        memo: dict[tuple[Any, ...], tuple[bytes, bytes]] = document.__dict__.setdefault("_pnp_pages", {})
        known = memo.get(alike) if alike is not None else None
        if known is None:
            data: bytes = PDFPage.format(self, document)
            if alike is not None:
                marker = _contents(self, document)
                if data.count(marker) == 1:
                    memo[alike] = (data, marker)
            return data
        # PDFPage.format's check_format is not needed here: it registers no object (its Parent, the
        # page tree, was registered by the first page alike), and only sets what `data` holds
        document.Reference(self.Contents)  # the page's stream gets its number now, as in PDFPage.format
        data, marker = known
        return data.replace(marker, _contents(self, document))


def _contents(page: Any, document: Any) -> bytes:
    number, version = document.idToObjectNumberAndVersion[page.Contents.__InternalName__]
    return b"/Contents %d %d R" % (number, version)


def _alike(page: Any) -> tuple[Any, ...] | None:
    """What a page dictionary holds besides its stream; None for a page with anything of its own."""
    if page.Annots or page.Dur is not None or page.Resources is not None or page._colorsUsed or page._shadingUsed:
        return None
    if any(getattr(page, box, None) is not None for box in ("CropBox", "ArtBox", "BleedBox", "TrimBox", "Thumb")):
        return None
    if page.Trans is not None and page.Trans.dict:
        return None
    if not isinstance(page.Contents, FixedStream):
        return None
    xobjects = tuple(page.XObjects.dict) if page.XObjects is not None else None
    states = tuple(page.ExtGState.dict) if page.ExtGState is not None else None
    return (page.pagewidth, page.pageheight, page.Rotate, page.hasImages, page.compression, xobjects, states)


def add_kept_page(canvas: Any, data: bytes, xobjects: tuple[str, ...]) -> None:
    """Put a page whose content stream is `data` (a FixedStream's bytes), showing the forms and
    images `xobjects`, into `canvas`'s document: the page reportlab's showPage makes when nothing
    was drawn on it, with that stream and those forms. The first such page of a document is shown
    by the canvas; the next ones are `CopiedPage`s of its dictionary, added to the document as
    showPage adds a page (showPage's work on an empty page, 2,000 times, is the same each time)."""
    doc = canvas._doc
    state = _blank_state(canvas)
    known = _BLANK.get(doc)
    if state is not None and known is not None and known[0] == state:
        forms = tuple(dict.fromkeys(xobjects))
        alike = None if known[2] is None else (*known[2][:5], forms or None, *known[2][6:])
        doc.addPage(CopiedPage(FixedStream(data), forms, alike, known[1]))
        canvas._pageNumber += 1  # as showPage's _startPage: the canvas is otherwise as it was
        return
    canvas.showPage()
    page = doc.Pages.pages[-1]
    blank = {k: v for k, v in page.__dict__.items() if k != "__InternalName__"}  # not the name it was given
    _show_as_kept(page, FixedStream(data), xobjects)
    if state is not None:
        _BLANK[doc] = (state, blank, _alike(page))


def _show_as_kept(page: Any, contents: FixedStream, xobjects: tuple[str, ...]) -> None:
    """`page` (showPage's, of nothing drawn) made the kept page: its stream, its forms."""
    page.stream = None
    page.Contents = contents
    forms = {name: PDFObjectReference(name) for name in xobjects}
    page.XObjects = PDFDictionary(forms) if forms else None  # as reportlab's showPage sets it
    page.__class__ = QuickPage


class CopiedPage(PDFObject):  # type: ignore[misc]  # reportlab has no type hints
    """A kept page after the first of its document (`add_kept_page`): its stream, its forms and the
    first page's dictionary. Formatted as the QuickPage it stands for: from the memo of a page
    alike, else made that page and formatted."""

    __RefOnly__ = 1
    __Comment__ = "Page dictionary"

    def __init__(
        self, contents: FixedStream, xobjects: tuple[str, ...], alike: tuple[Any, ...] | None, blank: dict[str, Any]
    ) -> None:
        self.Contents = contents
        self.xobjects = xobjects
        self.alike = alike
        self.blank = blank

    def format(self, document: Any) -> bytes:
        memo: dict[tuple[Any, ...], tuple[bytes, bytes]] = document.__dict__.setdefault("_pnp_pages", {})
        known = memo.get(self.alike) if self.alike is not None else None
        if known is None:
            page = QuickPage.__new__(QuickPage)
            page.__dict__.update(self.blank)
            _show_as_kept(page, self.Contents, self.xobjects)
            return QuickPage.format(page, document)
        document.Reference(self.Contents)  # the page's stream gets its number now, as in PDFPage.format
        data, marker = known
        return data.replace(marker, _contents(self, document))


def _blank_state(canvas: Any) -> tuple[Any, ...] | None:
    """What showPage reads of `canvas` to make a page on which nothing was drawn; None when
    something was (or the page has crop marks, a callback, a size waiting: shown by the canvas)."""
    if canvas._code or canvas._formsinuse or canvas._annotationrefs or canvas._colorsUsed or canvas._shadingUsed:
        return None
    if canvas._extgstate._c or canvas._psCommandsBeforePage or canvas._psCommandsAfterPage or canvas._codeStack:
        return None
    if canvas._cropMarks or canvas._onPage or canvas._hanging_pagesize or canvas._pageDuration is not None:
        return None
    boxes = tuple(getattr(canvas, f"_{box}Box", None) for box in ("crop", "art", "bleed", "trim"))
    if any(boxes) or canvas._pageTransition:
        return None
    return (tuple(canvas._pagesize), canvas._pageRotation, canvas._pageCompression, canvas._preamble)


def format_quickly(doc: Any) -> None:
    """Have `doc` (a reportlab PDFDocument) written by `_format` rather than its own `format`,
    its page tree by `QuickPages` (classes swapped: a bound method kept on the document would
    make it a cycle, freed only by the garbage collector)."""
    if type(doc) is PDFDocument:
        doc.__class__ = QuickDocument
    if type(doc.Pages) is PDFPages:
        doc.Pages.__class__ = QuickPages


class QuickDocument(PDFDocument):  # type: ignore[misc]  # reportlab has no type hints
    """A PDFDocument written by `_format`."""

    def format(self) -> bytes:
        return _format(self)


class QuickPages(PDFPages):  # type: ignore[misc]  # reportlab has no type hints
    """The page tree, its pages' references formatted from their numbers (`Kids`): the bytes of
    reportlab's PDFArray of references, without making and encoding 2,000 reference objects."""

    def check_format(self, document: Any) -> None:
        if rl_config.pdfMultiLine:
            PDFPages.check_format(self, document)
            return
        self.Kids = _Kids(self.pages)
        self.Count = len(self.pages)


class _Kids(PDFObject):  # type: ignore[misc]  # reportlab has no type hints
    """The pages as a PDFArray of references to them (not multiline), formatted as reportlab
    formats it."""

    def __init__(self, pages: list[Any]) -> None:
        self.pages = pages

    def format(self, document: Any) -> bytes:
        number_of, objects = document.idToObjectNumberAndVersion, document.idToObject
        items = []
        for page in self.pages:
            name = page.__dict__.get("__InternalName__")
            if name is None or objects.get(name) is not page:
                name = document.Reference(page).name  # as PDFArray.References would
            items.append(b"%d %d R" % number_of[name])
        for at in reversed(range(10, len(items), 10)):  # a line break every 10 items, as PDFArray
            items.insert(at, b"\n ")
        return b"[ " + b" ".join(items) + b" ]"


def _format(doc: Any) -> bytes:
    """reportlab's PDFDocument.format (the same objects, in the same order, to the same bytes),
    with the formatting of a FixedStream and a QuickPage in its loop reduced to their bytes: 15 us
    an object, 4,000 objects for 2,000 pages. Anything it does not know (encryption, comments)
    goes through reportlab's own."""
    doc.encrypt.prepare(doc)
    if doc.encrypt.info() or (not rl_config.invariant and rl_config.pdfComments):
        return bytes(PDFDocument.format(doc))
    cat = doc.Catalog
    info = doc.info
    doc.Reference(cat)
    doc.Reference(info)
    counter = 0
    ids = []
    numbertoid = doc.numberToId
    number_of = doc.idToObjectNumberAndVersion
    objects = doc.idToObject
    offsets = doc.idToOffset
    out = doc.__accum__ = PDFFile(doc._pdfVersion)
    strings = out.strings
    offset = out.offset
    while True:  # new objects may be registered while others are formatted (a page's stream)
        counter += 1
        oid = numbertoid.get(counter)
        if oid is None:
            break
        obj = objects[oid]
        kind = obj.__class__
        offsets[oid] = offset
        ids.append(oid)
        if kind is FixedStream or kind is CopiedPage or kind is QuickPage:  # PDFIndirectObject.format's bytes
            body = obj.data if kind is FixedStream else obj.format(doc)
            head = b"%d %d obj\n" % number_of[oid]
            tail = b"endobj\n" if body.endswith(b"\n") else b"\nendobj\n"
            strings.extend((head, body, tail))
            offset += len(head) + len(body) + len(tail)
            continue
        out.offset = offset
        made = PDFIndirectObject(oid, obj).format(doc)
        if isinstance(made, str):
            made = made.encode("extpdfdoc")
        strings.append(made)
        offset += len(made)
    out.offset = offset
    del doc.__accum__
    count = len(numbertoid)
    if counter - 1 != count:
        raise ValueError(f"counter {counter} doesn't match number to id dictionary {count}")
    xref_at = out.add(_xref(doc, ids))
    trailer = PDFTrailer(
        startxref=xref_at, Size=count + 1, Root=doc.Reference(cat), Info=doc.Reference(info), ID=doc.ID()
    )
    out.add(trailer.format(doc))
    for signature in getattr(doc, "_digiSigs", []):
        signature.sign(out)
    return bytes(out.format(doc))


def _xref(doc: Any, ids: list[str]) -> bytes:
    """reportlab's PDFCrossReferenceTable of one section from object 0 (its bytes), for objects
    numbered 1, 2... in the order of `ids`, as `_format` writes them."""
    number_of = doc.idToObjectNumberAndVersion
    offsets = doc.idToOffset
    if [number_of[oid][0] for oid in ids] != list(range(1, len(ids) + 1)):
        xref = PDFCrossReferenceTable()
        xref.addsection(0, ids)
        return bytes(xref.format(doc))
    lines = [b"%010d %05d n \n" % (offsets[oid], number_of[oid][1]) for oid in ids]
    return b"xref\n0 %d\n0000000000 65535 f \n" % (len(ids) + 1) + b"".join(lines)
