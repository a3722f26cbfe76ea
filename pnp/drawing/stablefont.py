"""TrueType fonts whose PDF encoding does not depend on the order in which a document meets them.

reportlab names a font's PDF resource after the order of its first use (/F1, /F2...) and gives
each character outside ASCII the next free code in the order characters are first drawn. A face
drawn on its own then encodes its text differently than inside a whole deck, and the drawing of
one card could not be kept and reused in another build (pnp.drawing.facestore). Here:

- a font's resource name is a function of its registered name (`/Fa`...; `/Fp...` for a
  project font), and the fonts are written in the order of their names;
- a document may be preset with the characters outside ASCII it will draw (`preset_document`):
  each font meeting the document for the first time assigns them first, in code-point order, so
  a character's code is a function of the preset alone. `stable(doc)` tells whether every
  character drawn was preset (else its code depends on the order, and the faces drawn in that
  document are not kept).
"""

from __future__ import annotations

import hashlib
import weakref
from fnmatch import fnmatch
from typing import Any

from reportlab import rl_config
from reportlab.pdfbase.ttfonts import TTEncoding, TTFont, unShapedFontGlob

_PRESETS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_PRESET_COUNTS: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()  # doc -> font -> codes
_USED: weakref.WeakKeyDictionary[Any, set[tuple[str, int]]] = weakref.WeakKeyDictionary()  # doc -> fonts named


class StableFont(TTFont):  # type: ignore[misc]  # reportlab has no type hints
    """A TTFont whose resource name and preset character codes do not depend on history."""

    def __init__(self, name: str, filename: str, tag: str, face: Any = None) -> None:
        """`face`: the file's TTFontFace when it is known already (pnp.drawing.fontmetrics), else
        the file is parsed."""
        if face is None:
            super().__init__(name, filename)
        else:  # what TTFont.__init__ does with the face it parses (tests/test_fontmetrics.py compares)
            self.fontName = name
            self.face = face
            self.encoding = TTEncoding()
            self.state: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
            self._asciiReadable = rl_config.ttfAsciiReadable
            self.shapable = not any(fnmatch(name, glob) for glob in unShapedFontGlob)
        self.tag = tag  # the PDF resource name, without its subset number

    def _state(self, doc: Any) -> Any:
        state = self.state.get(doc)
        if state is None:
            state = self._assignState(doc)
            preset = _PRESETS.get(doc)
            if preset is not None:
                if preset:
                    TTFont.splitString(self, preset, doc)
                _PRESET_COUNTS.setdefault(doc, {})[self.fontName] = len(state.assignments)
        return state

    def splitString(self, text: Any, doc: Any, encoding: str = "utf-8") -> Any:  # noqa: N802 - reportlab's name
        self._state(doc)
        return TTFont.splitString(self, text, doc, encoding)

    def getSubsetInternalName(self, subset: int, doc: Any) -> str:  # noqa: N802 - reportlab's name
        state = self._state(doc)
        used = _USED.get(doc)
        if used is not None:
            used.add((self.fontName, subset))
        if state.internalName is None:
            state.internalName = self.tag
            doc.fontMapping[self.fontName] = "/" + self.tag
            doc.delayedFonts.append(self)
        return str(TTFont.getSubsetInternalName(self, subset, doc))


def font_tag(name: str, bundled: list[str]) -> str:
    """`Fa`, `Fb`... for the bundled fonts (in their fixed order), `Fp` + 8 hex digits for another."""
    if name in bundled:
        return "F" + "abcdefghijklmnopqrstuvwxyz"[bundled.index(name)]
    return "Fp" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def preset_chars(text: str) -> str:
    """The characters of `text` outside printable ASCII, with their other cases, sorted: what a
    document is preset with (they decide the codes: part of a kept face's key)."""
    if text.isascii() and text.isprintable():
        return ""
    chars = {c for c in set(text) if not " " <= c <= "~"}
    for c in list(chars):
        for variant in (c.upper(), c.lower(), c.title(), c.casefold()):
            chars.update(v for v in variant if not " " <= v <= "~")
    chars.discard("\xa0")  # drawn as a space
    return "".join(sorted(chars))


def preset_chars_of(parts: list[bytes]) -> str:
    """`preset_chars` of the UTF-8 text of `parts` (lone surrogates passed): their printable ASCII
    bytes dropped first, which leaves the rest whole, so that megabytes of records are not decoded."""
    from pnp.drawing.faces import PRINTABLE_ASCII

    rest = b"".join(part.translate(None, PRINTABLE_ASCII) for part in parts)
    return preset_chars(rest.decode("utf-8", "surrogatepass")) if rest else ""


def preset_document(doc: Any, preset: str) -> None:
    """Fonts meeting `doc` assign the characters of `preset` (from `preset_chars`) before any other."""
    _PRESETS[doc] = preset


def track_fonts(doc: Any, used: set[tuple[str, int]] | None) -> None:
    """Collect (font, subset) of every font resource named in `doc` into `used` (None: stop)."""
    if used is None:
        _USED.pop(doc, None)
    else:
        _USED[doc] = used


def stable(doc: Any) -> bool:
    """Whether every character the document's fonts encoded was preset (codes independent of order)."""
    from reportlab.pdfbase import pdfmetrics

    if doc not in _PRESETS:
        return False
    preset = _PRESET_COUNTS.get(doc, {})
    for name in pdfmetrics.getRegisteredFontNames():
        font = pdfmetrics.getFont(name)
        if getattr(font, "fontName", name) != name:  # reportlab's alias for a face registered before
            continue  # (a project font that is a copy of another): checked under its own name
        state = getattr(font, "state", {}).get(doc) if isinstance(font, TTFont) else None
        if state is None:
            continue
        if not isinstance(font, StableFont) or len(state.assignments) != preset.get(name, -1):
            return False
    return True


def finish_document(doc: Any) -> None:
    """Fonts written in the order of their names, not of their first use."""
    doc.delayedFonts.sort(key=lambda font: font.fontName)
