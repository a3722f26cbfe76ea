"""A page's content stream formatted once, when the page is shown, rather than when the document
is saved: pnp.drawing.facestore keeps these bytes and puts them back in a later build in place
of drawing the page again (the same bytes either way: reportlab's own PDFStream formats them)."""

from __future__ import annotations

from typing import Any

from reportlab import rl_config
from reportlab.pdfbase.pdfdoc import PDFBase85Encode, PDFObject, PDFPage, PDFStream, PDFZCompress


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
