"""A page's content stream formatted once, when the page is shown, rather than when the document
is saved: pnp.drawing.facestore keeps these bytes and puts them back in a later build in place
of drawing the page again (the same bytes either way: reportlab's own PDFStream formats them)."""

from __future__ import annotations

from typing import Any

from reportlab import rl_config
from reportlab.pdfbase.pdfdoc import PDFBase85Encode, PDFObject, PDFStream, PDFZCompress


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
    return data
