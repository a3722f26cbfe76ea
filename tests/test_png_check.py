"""A PNG the PDF takes as it is is checked without decoding it (pnp/core/pngfile.py): its rows
inflated, their filter types read. What it finds wrong must be what PIL's decoding finds wrong:
compared with PIL on sound files, crafted ones, and hundreds of random corruptions."""

from __future__ import annotations

import io
import random
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from pnp.core.paths import image_problem


def png_bytes(mode: str, size: tuple[int, int], seed: int = 0, **options: object) -> bytes:
    rng = random.Random(seed)
    image = Image.frombytes("RGB", size, bytes(rng.randrange(256) for _ in range(size[0] * size[1] * 3)))
    out = io.BytesIO()
    image.convert(mode).save(out, "PNG", **options)
    return out.getvalue()


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    found, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        found.append((data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
    return found


def assemble(parts: list[tuple[bytes, bytes]]) -> bytes:
    """A PNG of these chunks, each with a right checksum."""
    out = b"\x89PNG\r\n\x1a\n"
    for kind, body in parts:
        out += struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return out


def with_rows(data: bytes, rows: bytes) -> bytes:
    """`data` with its pixels replaced by `rows` (filter bytes included), compressed in one IDAT."""
    kept = [(k, b) for k, b in chunks(data) if k != b"IDAT"]
    at = next(i for i, (k, _) in enumerate(kept) if k == b"IEND")
    return assemble([*kept[:at], (b"IDAT", zlib.compress(rows)), *kept[at:]])


def raw_rows(data: bytes) -> bytes:
    return zlib.decompress(b"".join(b for k, b in chunks(data) if k == b"IDAT"))


def pil_decodes(path: Path) -> bool:
    try:
        with Image.open(path) as image:
            image.load()
    except Exception:  # noqa: BLE001 - any failure is "does not decode"
        return False
    return True


def verdict(tmp_path: Path, data: bytes, name: str = "art.png") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return image_problem(path)


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_sound_plain_pngs_pass(tmp_path: Path, mode: str) -> None:
    assert verdict(tmp_path, png_bytes(mode, (37, 23))) == ""
    assert verdict(tmp_path, png_bytes(mode, (37, 23), optimize=True), "b.png") == ""


def test_broken_rows_are_found(tmp_path: Path) -> None:
    good = png_bytes("RGB", (20, 10))
    rows = bytearray(raw_rows(good))
    stride = 1 + 20 * 3
    rows[3 * stride] = 9  # a filter type PNG does not define
    assert "unknown filter type" in verdict(tmp_path, with_rows(good, bytes(rows)))
    assert not pil_decodes(tmp_path / "art.png")
    short = with_rows(good, raw_rows(good)[: 7 * stride])  # three rows missing
    assert "fewer pixels" in verdict(tmp_path, short, "short.png")  # PIL leaves them blank: a broken file
    longer = with_rows(good, raw_rows(good) + bytes(stride))  # a row too many: PIL ignores it, so do we
    assert verdict(tmp_path, longer, "long.png") == "" and pil_decodes(tmp_path / "long.png")


def test_a_bad_header_checksum_is_found(tmp_path: Path) -> None:
    data = bytearray(png_bytes("RGB", (9, 9)))
    data[8 + 8 + 13] ^= 0xFF  # the IHDR chunk's checksum
    assert "checksum" in verdict(tmp_path, bytes(data))
    assert not pil_decodes(tmp_path / "art.png")


def test_a_bomb_is_refused_before_inflating(tmp_path: Path) -> None:
    parts = chunks(png_bytes("RGB", (4, 4)))
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = assemble([(b"IHDR", header), (b"IDAT", zlib.compress(bytes(1_000_000))), parts[-1]])
    assert "100000 x 100000 pixels" in verdict(tmp_path, bomb)


def test_other_pngs_are_decoded_by_pil(tmp_path: Path) -> None:
    assert verdict(tmp_path, png_bytes("RGBA", (12, 7))) == ""
    broken = bytearray(png_bytes("RGBA", (40, 30)))
    idat = broken.index(b"IDAT")
    broken[idat + 20 : idat + 40] = bytes(20)
    assert verdict(tmp_path, bytes(broken), "alpha.png").startswith("cannot be decoded")


def test_random_corruptions_agree_with_pil(tmp_path: Path) -> None:
    """Bytes flipped in the compressed rows: pnp calls the file broken exactly when PIL does."""
    rng = random.Random(39)
    good = png_bytes("RGB", (48, 32), seed=5)
    start = good.index(b"IDAT") + 4
    (length,) = struct.unpack(">I", good[start - 8 : start - 4])
    disagreements = []
    for n in range(300):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            data[start + rng.randrange(length)] ^= 1 << rng.randrange(8)
        path = tmp_path / f"c{n}.png"
        path.write_bytes(bytes(data))
        if (image_problem(path) == "") != pil_decodes(path):
            disagreements.append(n)
    assert not disagreements
