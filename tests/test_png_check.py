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


def test_a_wrong_stream_checksum_is_found(tmp_path: Path) -> None:
    """PIL draws such rows when it stops reading before the stream's end (and refuses them when
    it does not): pnp always reads the end, and calls the file broken."""
    good = png_bytes("RGB", (16, 8))
    idat = [b for k, b in chunks(good) if k == b"IDAT"][0]
    kept = [(k, b) for k, b in chunks(good) if k != b"IDAT"]
    broken = assemble([*kept[:-1], (b"IDAT", idat[:-4] + bytes(4)), kept[-1]])
    assert "incorrect data check" in verdict(tmp_path, broken)


def test_random_corruptions_never_pass_what_pil_refuses(tmp_path: Path) -> None:
    """Bytes flipped in the compressed rows: what PIL cannot decode, pnp calls broken; where pnp
    is stricter, it is for a reason PIL skips (the stream's checksum, rows missing)."""
    rng = random.Random(39)
    good = png_bytes("RGB", (48, 32), seed=5)
    start = good.index(b"IDAT") + 4
    (length,) = struct.unpack(">I", good[start - 8 : start - 4])
    corrupted = []
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            data[start + rng.randrange(length)] ^= 1 << rng.randrange(8)
        corrupted.append(bytes(data))
    assert_never_passes_what_pil_refuses(tmp_path, corrupted)


def test_made_up_pngs_never_pass_what_pil_refuses(tmp_path: Path) -> None:
    """PNGs as encoders other than PIL's write them (every filter type, every compression level,
    the rows split over IDAT chunks, some empty, ancillary chunks), some damaged: a row with an
    unknown filter, rows cut short or added, a bad checksum, a flipped byte."""
    rng = random.Random(3000)
    made = []
    for _ in range(300):
        width, height, colours = rng.randrange(1, 30), rng.randrange(1, 20), rng.choice([1, 3])
        stride = 1 + width * colours
        rows = b"".join(
            bytes([rng.randrange(5)]) + bytes(rng.randrange(256) for _ in range(stride - 1)) for _ in range(height)
        )
        fate = rng.randrange(8)
        if fate == 0:
            at = rng.randrange(height) * stride
            rows = rows[:at] + bytes([rng.randrange(5, 256)]) + rows[at + 1 :]
        elif fate == 1:
            rows = rows[: rng.randrange(len(rows))]
        elif fate == 2:
            rows += bytes(rng.randrange(1, 50))
        packed = zlib.compress(rows, rng.randrange(10))
        if fate == 3:
            packed = packed[:-4] + bytes(4)
        elif fate == 4:
            at = rng.randrange(2, len(packed))
            packed = packed[:at] + bytes([packed[at] ^ 0xFF]) + packed[at + 1 :]
        parts = [(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0 if colours == 1 else 2, 0, 0, 0))]
        if rng.random() < 0.3:
            parts.append((b"gAMA", struct.pack(">I", 45455)))
        cuts = sorted(rng.sample(range(len(packed) + 1), min(len(packed) + 1, rng.randrange(4))))
        for begin, end in zip([0, *cuts], [*cuts, len(packed)], strict=True):
            parts.append((b"IDAT", packed[begin:end]))
        made.append(assemble([*parts, (b"IEND", b"")]))
    assert_never_passes_what_pil_refuses(tmp_path, made)


def assert_never_passes_what_pil_refuses(tmp_path: Path, files: list[bytes]) -> None:
    """Each file's verdict against PIL's: none passes that PIL cannot decode; where pnp refuses
    what PIL decodes, it is for the stream's checksum or rows missing (PIL does not look)."""
    passed_refused, stricter = [], []
    for n, data in enumerate(files):
        path = tmp_path / f"f{n}.png"
        path.write_bytes(data)
        problem = image_problem(path)
        if not problem and not pil_decodes(path):
            passed_refused.append(n)
        if problem and pil_decodes(path):
            stricter.append(problem)
    assert not passed_refused
    assert all("incorrect data check" in p or "fewer pixels" in p for p in stricter), stricter
