"""A PNG put into the PDF as it is: its compressed rows are what a PDF image with the PNG
predictor reads (FlateDecode, /Predictor 15), so nothing is decoded or compressed again.

reportlab decodes every PNG and compresses its pixels again (25 ms for a card's art of 744 x 1039
pixels: a deck with art of its own took longer to build than to draw everything else). Taken as
it is: an 8-bit grey or RGB PNG, not interlaced, without a transparent colour; the same pixels
(the PDF reads the rows the PNG holds). Any other PNG (an alpha channel, a palette, 16 bits) and
every JPEG go through reportlab as before (it takes a JPEG as it is already).

The image is put into the document under the name reportlab gives a file image, before
reportlab's drawImage is called with it: drawImage then finds it and draws it as its own, so a
face kept by the face store and copied into a later PDF gets the same object (pnp.drawing.facestore).
The file was checked before (pnp.core.paths.image_problem: it decodes, its pixels are bounded);
pnp.core.pngfile says which PNGs are taken as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reportlab.lib.utils import _digester
from reportlab.pdfbase.pdfdoc import PDFDictionary, PDFImageXObject, PDFName, PDFStream
from reportlab.pdfgen.canvas import Canvas

from pnp.core.paths import RefusedFile, read_regular
from pnp.core.pngfile import plain_png

MAX_PNG_BYTES = 256 * 1024 * 1024  # beyond it, reportlab reads the file as before


class PredictedImage(PDFImageXObject):  # type: ignore[misc]  # reportlab has no type hints
    """An image XObject of a PNG's compressed rows, read with the PNG predictor."""

    def __init__(self, name: str, width: int, height: int, colours: int, rows: bytes) -> None:
        self.name = name
        self.width, self.height = width, height
        self.bitsPerComponent = 8
        self.colorSpace = "DeviceGray" if colours == 1 else "DeviceRGB"
        self._filters = ("FlateDecode",)
        self.streamContent = rows
        self.mask = None
        self.colours = colours

    def format(self, document: Any) -> bytes:
        stream = PDFStream(content=self.streamContent)
        entries = stream.dictionary
        entries["Type"] = PDFName("XObject")
        entries["Subtype"] = PDFName("Image")
        entries["Width"] = self.width
        entries["Height"] = self.height
        entries["BitsPerComponent"] = self.bitsPerComponent
        entries["ColorSpace"] = PDFName(self.colorSpace)
        entries["Filter"] = PDFName("FlateDecode")  # one filter, so its parameters are one dictionary
        entries["DecodeParms"] = PDFDictionary(
            {"Predictor": 15, "Colors": self.colours, "BitsPerComponent": 8, "Columns": self.width}
        )
        entries["Length"] = len(self.streamContent)
        return stream.format(document)  # type: ignore[no-any-return]


def put_png(canvas: Canvas, image: Any, real: Path, root: Path, mask: Any) -> None:
    """Put the PNG at `real` (drawn as `image`, a pnp.drawing.images.ImagePath, with `mask`) into
    the canvas's document as it is, under reportlab's name for it, unless it is there already or
    cannot be taken as it is (then reportlab's drawImage reads it)."""
    if real.suffix.lower() != ".png":
        return
    name = _digester(f"{image}{mask}".encode())  # reportlab's name for a file image (canvas.drawImage)
    doc = canvas._doc
    registered = doc.getXObjectName(name)
    if registered in doc.idToObject:
        return
    try:
        found = plain_png(read_regular(real, MAX_PNG_BYTES, root))
    except RefusedFile:
        return
    if found is None:
        return
    picture = PredictedImage(name, found.width, found.height, found.colours, found.rows)
    canvas._setXObjects(picture)  # as canvas.drawImage registers a new image, in its order
    doc.Reference(picture, registered)
    doc.addForm(name, picture)
