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
from array import array
from functools import cache
from pathlib import Path
from typing import Any

METRICS_DIR = Path(__file__).resolve().parents[1] / "fonts" / "metrics"
FORMAT = 2
_NAME_BYTES = "\0pnp:TTFNameBytes"  # a reportlab TTFNameBytes (bytes with their text)
_NUMBERS = "\0pnp:numbers"  # a long list of numbers, as runs of machine integers and doubles
_NUMBER_DICT = "\0pnp:number-dict"  # a dict of numbers to numbers (charToGlyph, charWidths)
_NUMBER_PAIRS = "\0pnp:number-pairs"  # a list of pairs of numbers (hmetrics)
_LATER = "\0pnp:later"  # what only shaping reads (glyphToChar): unpacked when first asked for
_LAZY = ("glyphToChar",)
_NOT_KEPT = ("_ttf_data", "_pdfScale")  # the file's bytes (read again) and a closure (made again)
_PACKED_FROM = 64  # shorter lists of numbers stay as they are


def snapshot_path(font_file: Path, directory: Path = METRICS_DIR) -> Path:
    return directory / (font_file.stem + ".marshal")


def _key(data: bytes) -> tuple[int, str, str]:
    from reportlab import Version

    return FORMAT, str(Version), hashlib.sha256(data).hexdigest()


def _runs(values: list[Any]) -> list[tuple[str, bytes]] | None:
    """`values` as runs of one type each (ints as 'i' or 'q', floats as 'd': all exact); None when one
    is neither (or an int beyond 64 bits)."""
    runs: list[tuple[str, list[Any]]] = []
    for value in values:
        kind = type(value)
        if kind is int:
            if not -(2**63) <= value < 2**63:
                return None
            code = "i" if -(2**31) <= value < 2**31 else "q"
        elif kind is float:
            code = "d"
        else:
            return None
        if runs and runs[-1][0] == code:
            runs[-1][1].append(value)
        else:
            runs.append((code, [value]))
    return [(code, array(code, run).tobytes()) for code, run in runs]


def _numbers(runs: list[tuple[str, bytes]]) -> list[Any]:
    values: list[Any] = []
    for code, raw in runs:
        run = array(code)
        run.frombytes(raw)
        values.extend(run.tolist())
    return values


def _plain(name: str, value: Any) -> Any:
    from reportlab.pdfbase.ttfonts import TTFNameBytes

    if isinstance(value, TTFNameBytes):
        return (_NAME_BYTES, bytes(value))
    if name in _LAZY:
        return (_LATER, marshal.dumps(value, 4))
    if isinstance(value, dict) and len(value) >= _PACKED_FROM:
        keys, values = _runs(list(value)), _runs(list(value.values()))
        if keys is not None and values is not None:
            return (_NUMBER_DICT, keys, values)
    if isinstance(value, list) and len(value) >= _PACKED_FROM:
        if all(type(v) is tuple and len(v) == 2 for v in value):
            firsts, seconds = _runs([v[0] for v in value]), _runs([v[1] for v in value])
            if firsts is not None and seconds is not None:
                return (_NUMBER_PAIRS, firsts, seconds)
        runs = _runs(value)
        if runs is not None:
            return (_NUMBERS, runs)
    return value


def _restored(value: Any) -> Any:
    if not (isinstance(value, tuple) and value and isinstance(value[0], str) and value[0].startswith("\0pnp:")):
        return value
    tag = value[0]
    if tag == _NAME_BYTES:
        from reportlab.pdfbase.ttfonts import TTFNameBytes

        return TTFNameBytes(value[1])
    if tag == _NUMBERS:
        return _numbers(value[1])
    if tag == _NUMBER_DICT:
        return dict(zip(_numbers(value[1]), _numbers(value[2]), strict=True))
    if tag == _NUMBER_PAIRS:
        return list(zip(_numbers(value[1]), _numbers(value[2]), strict=True))
    raise ValueError(f"unknown snapshot value {tag!r}")


def write_snapshot(font_file: Path, directory: Path = METRICS_DIR) -> Path:
    """Parse `font_file` as reportlab does and write what the parse leaves on the face."""
    from reportlab.pdfbase.ttfonts import TTFontFace

    data = font_file.read_bytes()
    face = TTFontFace(str(font_file))
    state = {name: _plain(name, value) for name, value in vars(face).items() if name not in _NOT_KEPT}
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
    cls = _snapshot_face_class()
    face = cls.__new__(cls)
    try:
        face.__dict__.update({name: _restored(value) for name, value in state.items() if name not in _LAZY})
    except (ValueError, TypeError):
        return None
    face._later = {name: state[name][1] for name in _LAZY if name in state}
    face.filename = str(font_file)
    face._ttf_data = data
    units = face.unitsPerEm
    face._pdfScale = (lambda x: x) if units == 1000 else _scale(1000 / units)
    return face


def _scale(factor: float) -> Any:
    return lambda x: x * factor


@cache
def _snapshot_face_class() -> Any:
    """reportlab's TTFontFace, with what only shaping reads (`_LAZY`) unpacked when first read."""
    from reportlab.pdfbase.ttfonts import TTFontFace

    class SnapshotFace(TTFontFace):  # type: ignore[misc]  # reportlab has no type hints
        def __getattr__(self, name: str) -> Any:
            later = self.__dict__.get("_later", {})
            if name not in later:
                raise AttributeError(name)
            value = marshal.loads(later.pop(name))
            setattr(self, name, value)
            return value

    return SnapshotFace
