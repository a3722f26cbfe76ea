"""The bundled fonts' shipped parse (pnp.drawing.fontmetrics): current, the same as reportlab's own
parse down to the PDF bytes, and never used for a file it was not made from."""

from __future__ import annotations

import io
import marshal
import shutil
from pathlib import Path
from typing import Any

import pytest
from reportlab import Version
from reportlab.pdfbase.ttfonts import TTFontFace
from reportlab.pdfgen.canvas import Canvas

from pnp.drawing.fontmetrics import METRICS_DIR, face_from_snapshot, snapshot_path, write_snapshot
from pnp.drawing.fonts import BUNDLED, FONT_DIR
from pnp.drawing.stablefont import StableFont

FILES = [FONT_DIR / name for name in BUNDLED.values()]


def comparable(face: Any) -> dict[str, Any]:
    assert face.glyphToChar  # unpacked when first read (shaping reads it)
    state = dict(vars(face))
    assert not state.pop("_later", {})
    scale = state.pop("_pdfScale")
    state["_pdfScale"] = [scale(v) for v in (0, 1, 1229, 2048, -240)]
    state.update({k: (type(v).__name__, v, getattr(v, "ustr", None)) for k, v in state.items() if isinstance(v, bytes)})
    return state


def test_every_bundled_font_has_a_snapshot_of_this_reportlab() -> None:
    recorded = {marshal.loads(snapshot_path(path).read_bytes())[0][1] for path in FILES}
    if recorded != {str(Version)}:
        pytest.skip(
            f"reportlab {Version} installed, snapshots of {recorded}: parsed instead (python -m pnp.drawing.fonts)"
        )
    assert sorted(p.name for p in METRICS_DIR.iterdir()) == sorted(f"{path.stem}.marshal" for path in FILES)
    for path in FILES:
        assert face_from_snapshot(path) is not None, path.name


@pytest.mark.parametrize("path", FILES[:3], ids=lambda p: p.stem)
def test_a_snapshot_is_what_reportlab_parses(path: Path, tmp_path: Path) -> None:
    write_snapshot(path, tmp_path)  # as shipped, from this reportlab
    loaded = face_from_snapshot(path, tmp_path)
    assert loaded is not None
    parsed_face = TTFontFace(str(path))
    assert comparable(loaded) == comparable(parsed_face)
    assert {
        k: [type(v) for v in vs] for k, vs in (("hmetrics", loaded.hmetrics[-3:]), ("glyphPos", loaded.glyphPos[:3]))
    } == {
        k: [type(v) for v in vs]
        for k, vs in (("hmetrics", parsed_face.hmetrics[-3:]), ("glyphPos", parsed_face.glyphPos[:3]))
    }
    assert [type(v) for pair in loaded.hmetrics[:2] + loaded.hmetrics[-2:] for v in pair] == [
        type(v) for pair in parsed_face.hmetrics[:2] + parsed_face.hmetrics[-2:] for v in pair
    ]  # reportlab keeps the first advances as read, the rest scaled: the same types come back
    shipped, parsed = StableFont("A", str(path), "Fa", loaded), StableFont("A", str(path), "Fa")
    assert {k: v for k, v in vars(shipped).items() if k not in ("face", "state", "encoding")} == {
        k: v for k, v in vars(parsed).items() if k not in ("face", "state", "encoding")
    }
    assert vars(shipped.encoding) == vars(parsed.encoding)


def draw(font: StableFont) -> bytes:
    from reportlab.pdfbase import pdfmetrics

    name = font.fontName
    pdfmetrics.registerFont(font)
    out = io.BytesIO()
    canvas = Canvas(out, invariant=1)
    canvas.setFont(name, 11)
    canvas.drawString(20, 700, "Ship ♦ → — Überfall, 3 × ½ ÆØÅ")
    canvas.drawString(20, 680, f"{pdfmetrics.stringWidth('Wide text', name, 11):.4f}")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_a_pdf_drawn_with_a_snapshot_is_the_same_bytes(tmp_path: Path) -> None:
    path = FONT_DIR / BUNDLED["DejaVuSans-Bold"]
    write_snapshot(path, tmp_path)
    with_snapshot = draw(StableFont("pnpTestFontA", str(path), "Fa", face_from_snapshot(path, tmp_path)))
    parsed = draw(StableFont("pnpTestFontA", str(path), "Fa"))
    assert with_snapshot == parsed
    assert b"/FontFile2" in parsed  # the font is embedded (subset made from the file's bytes)


def test_a_snapshot_of_another_file_or_reportlab_is_not_used(tmp_path: Path) -> None:
    font = tmp_path / "DejaVuSans.ttf"
    shutil.copyfile(FONT_DIR / "DejaVuSans.ttf", font)
    write_snapshot(font, tmp_path / "metrics")
    assert face_from_snapshot(font, tmp_path / "metrics") is not None
    data = bytearray(font.read_bytes())
    data[-1] ^= 1  # the font edited: its snapshot no longer describes it
    font.write_bytes(bytes(data))
    assert face_from_snapshot(font, tmp_path / "metrics") is None
    snapshot = snapshot_path(font, tmp_path / "metrics")
    (_, version, digest), state = marshal.loads(snapshot.read_bytes())
    snapshot.write_bytes(marshal.dumps(((1, "0.0", digest), state)))  # made by another reportlab
    assert face_from_snapshot(font, tmp_path / "metrics") is None
    snapshot.write_bytes(b"not marshal")
    assert face_from_snapshot(font, tmp_path / "metrics") is None
    assert face_from_snapshot(tmp_path / "missing.ttf", tmp_path / "metrics") is None
