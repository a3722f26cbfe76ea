"""The bundled fonts' parsed TrueType tables, shipped beside them so a build does not parse them.

reportlab reads a TrueType file by walking its cmap, hmtx and loca tables in Python: about 13 ms
for each DejaVu face, paid by every build and check that draws text (two faces for most
layouts, a tenth of a cold 100-card build). The result depends only on the font file and on
reportlab's parser, so for the fonts pnp ships it is computed once and shipped with them in
`pnp/fonts/metrics/` (as reportlab ships the metrics of its standard fonts), the way
`python -m pnp.drawing.fonts` writes it. A snapshot is used only under the key it was made with: the
SHA-256 of the font file, reportlab's version and this format's number. Otherwise (another
reportlab, an edited font) the file is parsed as before, so a stale snapshot is slow, never wrong.

Snapshots are package data (`marshal`, never read from a project): a project's own fonts are
always parsed.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import Any

METRICS_DIR = Path(__file__).resolve().parents[1] / "fonts" / "metrics"
FORMAT = 1
_NAME_BYTES = "TTFNameBytes"  # marks a reportlab TTFNameBytes (bytes with its text) in a snapshot
_NOT_KEPT = ("_ttf_data", "_pdfScale")  # the file's bytes (read again) and a closure (made again)


def snapshot_path(font_file: Path, directory: Path = METRICS_DIR) -> Path:
    return directory / (font_file.stem + ".marshal")


def _key(data: bytes) -> tuple[int, str, str]:
    from reportlab import Version

    return FORMAT, str(Version), hashlib.sha256(data).hexdigest()


def _plain(value: Any) -> Any:
    from reportlab.pdfbase.ttfonts import TTFNameBytes

    if isinstance(value, TTFNameBytes):
        return (_NAME_BYTES, bytes(value))
    return value


def _restored(value: Any) -> Any:
    if isinstance(value, tuple) and len(value) == 2 and value[0] == _NAME_BYTES:
        from reportlab.pdfbase.ttfonts import TTFNameBytes

        return TTFNameBytes(value[1])
    return value


def write_snapshot(font_file: Path, directory: Path = METRICS_DIR) -> Path:
    """Parse `font_file` as reportlab does and write what the parse leaves on the face."""
    from reportlab.pdfbase.ttfonts import TTFontFace

    data = font_file.read_bytes()
    face = TTFontFace(str(font_file))
    state = {name: _plain(value) for name, value in vars(face).items() if name not in _NOT_KEPT}
    state["filename"] = font_file.name  # made absolute again on loading: the snapshot is relocatable
    out = snapshot_path(font_file, directory)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(marshal.dumps((_key(data), state), 4))
    return out


def face_from_snapshot(font_file: Path, directory: Path = METRICS_DIR) -> Any:
    """The reportlab TTFontFace of a bundled font, from its snapshot; None when there is none that
    was made from this file by this reportlab (the caller parses the file)."""
    snapshot = snapshot_path(font_file, directory)
    try:
        data = font_file.read_bytes()
        key, state = marshal.loads(snapshot.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if key != _key(data):
        return None
    from reportlab.pdfbase.ttfonts import TTFontFace

    face = TTFontFace.__new__(TTFontFace)
    face.__dict__.update({name: _restored(value) for name, value in state.items()})
    face.filename = str(font_file)
    face._ttf_data = data
    units = face.unitsPerEm
    face._pdfScale = (lambda x: x) if units == 1000 else _scale(1000 / units)
    return face


def _scale(factor: float) -> Any:
    return lambda x: x * factor
