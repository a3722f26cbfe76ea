"""The PNGs a PDF can take as they are, read without decoding their pixels.

An 8-bit grey or RGB PNG, not interlaced, without a transparent colour: its compressed rows are
what a PDF image with the PNG predictor reads (pnp.drawing.pngpass puts them in as they are).
Such a file is checked here without PIL (pnp.core.paths.image_problem): the pixel count from its
header, the header's checksum, and the rows inflated (never more than the header says) to
exactly the bytes the header promises, each row with a filter type PNG defines, then the
stream's closing checksum. That is what decoding it would find wrong, at half the cost (PIL also
undoes each row's filter, which cannot fail once the filter types are known); what PIL cannot
decode never passes, and rows cut short or a wrong checksum, which PIL may draw, are called
broken (tests/test_png_check.py). Any other PNG is decoded by PIL, as before.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

SIGNATURE = b"\x89PNG\r\n\x1a\n"
GREY, RGB = 0, 2  # the PNG colour types taken as they are
LAST_FILTER = 4  # Paeth: the filter types are 0 to 4
INFLATE_CHUNK = 4 * 1024 * 1024  # the rows are inflated this many bytes at a time


class PlainPng(NamedTuple):
    """A PNG the PDF can take as it is: its size, its colours (1 or 3) and compressed rows."""

    width: int
    height: int
    colours: int
    rows: bytes
    header_sound: bool  # whether the header chunk's checksum is right


def plain_png(data: bytes) -> PlainPng | None:
    """The PNG in `data` if a PDF can take it as it is (its chunks whole); else None."""
    if not data.startswith(SIGNATURE):
        return None
    pos, header, rows, sound = len(SIGNATURE), None, [], False
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, start = data[pos + 4 : pos + 8], pos + 8
        end = start + length
        if end + 4 > len(data):
            return None  # cut short
        if kind == b"IHDR":
            if length != 13 or header is not None:
                return None
            header = struct.unpack(">IIBBBBB", data[start:end])
            sound = zlib.crc32(data[pos + 4 : end]) == struct.unpack(">I", data[end : end + 4])[0]
        elif kind == b"IDAT":
            rows.append(data[start:end])
        elif kind == b"tRNS":
            return None  # a transparent colour: reportlab makes it a mask
        elif kind == b"IEND":
            break
        pos = end + 4  # past the chunk's checksum
    if header is None or not rows:
        return None
    width, height, depth, colour, compression, filtering, interlace = header
    if depth != 8 or colour not in (GREY, RGB) or compression or filtering or interlace or not width or not height:
        return None
    return PlainPng(width, height, 1 if colour == GREY else 3, b"".join(rows), sound)


def plain_png_problem(png: PlainPng) -> str:
    """Why the rows of `png` do not decode ("" when they do): what PIL's decoding would find,
    without undoing the filters. The caller bounds the pixel count first."""
    if not png.header_sound:
        return "cannot be decoded (its header's checksum is wrong); export it again as PNG or JPEG"
    stride = 1 + png.width * png.colours  # a filter type, then the row's bytes
    expected = stride * png.height
    inflater = zlib.decompressobj()
    seen, pending = 0, png.rows
    try:
        while seen < expected:  # never more than the header promises: a bomb stops here
            part = inflater.decompress(pending, min(INFLATE_CHUNK, expected - seen))
            pending = inflater.unconsumed_tail
            if not part:
                break
            if max(part[(-seen) % stride :: stride], default=0) > LAST_FILTER:  # the row starts in it
                return "cannot be decoded (a row has an unknown filter type); export it again as PNG or JPEG"
            seen += len(part)
        if seen == expected and not inflater.eof:  # the stream's end and checksum, where no more rows follow
            inflater.decompress(inflater.unconsumed_tail, 1)
    except zlib.error as err:
        return f"cannot be decoded (its compressed pixels are broken: {err}); export it again as PNG or JPEG"
    if seen < expected:
        return "cannot be decoded (it holds fewer pixels than its header says: cut short?); export it again"
    return ""
