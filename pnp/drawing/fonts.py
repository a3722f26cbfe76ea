"""Fonts: every PDF pnp writes embeds TrueType fonts (never an unembedded base-14 font).

Bundled: DejaVu Sans (regular, bold, oblique, bold-oblique, condensed), a free superset of
Bitstream Vera with wide glyph coverage (card text uses ♦, →, —). A layout may name its own
TrueType files (paths relative to the project, checked to stay inside it). reportlab is imported
only to register fonts, so `pnp check` can ask which files a family uses without loading it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

FONT_DIR = Path(__file__).resolve().parents[1] / "fonts"

BUNDLED = {
    "DejaVuSans": "DejaVuSans.ttf",
    "DejaVuSans-Bold": "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique": "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansCondensed": "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold": "DejaVuSansCondensed-Bold.ttf",
}


@dataclass(frozen=True, slots=True)
class Family:
    """Font names for the four styles of one family."""

    regular: str
    bold: str
    italic: str
    bold_italic: str

    def pick(self, bold: bool, italic: bool) -> str:
        if bold and italic:
            return self.bold_italic
        if bold:
            return self.bold
        if italic:
            return self.italic
        return self.regular


SANS = Family("DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSans-BoldOblique")
CONDENSED = Family("DejaVuSansCondensed", "DejaVuSansCondensed-Bold", "DejaVuSans-Oblique", "DejaVuSans-BoldOblique")
FAMILIES = {"sans": SANS, "condensed": CONDENSED}

_registered: set[str] = set()
_by_content: dict[str, str] = {}  # sha256 of a project font file -> the name it is registered under
FONT_MAX_BYTES = 64 * 1024 * 1024  # a TrueType file: far below this


class FontError(ValueError):  # a ValueError: drawing reports it as a layout problem
    """A font file that cannot be used (message names the file and why)."""


def pdf_settings() -> None:
    """reportlab's process-wide settings for every PDF pnp writes: invariant (no date, no random
    id: the same input gives the same bytes) and each compressed stream stored as Flate alone:
    reportlab's default puts ASCII85 on top (for 7-bit mail), a quarter more bytes for every
    page, image and font."""
    from reportlab import rl_config

    rl_config.invariant = 1
    rl_config.useA85 = 0


def register_bundled() -> None:
    """Make the bundled fonts known to reportlab, with bold/italic mappings for Paragraphs. Each is
    read (its TrueType tables parsed, ~10 ms) when it is first asked for by name, so a layout
    drawing with two of the six fonts reads two."""
    if "" in _registered:
        return
    from reportlab.pdfbase import pdfmetrics

    find = pdfmetrics.findFontAndRegister

    def find_bundled(name: str) -> Any:
        if name in BUNDLED and name not in _registered:
            _register_bundled_font(name)
            return pdfmetrics.getFont(name)
        return find(name)

    pdfmetrics.findFontAndRegister = find_bundled  # pdfmetrics.getFont's fallback for an unknown name
    _registered.add("")  # the hook is in place
    _map_family()


def _map_family() -> None:
    """<b> and <i> in a Paragraph of DejaVuSans pick its bold and oblique faces."""
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics

    pdfmetrics.registerFontFamily(
        "DejaVuSans", normal=SANS.regular, bold=SANS.bold, italic=SANS.italic, boldItalic=SANS.bold_italic
    )
    for bold, italic, name in ((0, 0, SANS.regular), (1, 0, SANS.bold), (0, 1, SANS.italic), (1, 1, SANS.bold_italic)):
        addMapping("DejaVuSans", bold, italic, name)


def _register_bundled_font(name: str) -> None:
    from reportlab.pdfbase import pdfmetrics

    from pnp.drawing.fontmetrics import face_from_snapshot
    from pnp.drawing.stablefont import StableFont, font_tag

    path = FONT_DIR / BUNDLED[name]
    pdfmetrics.registerFont(StableFont(name, str(path), font_tag(name, list(BUNDLED)), face_from_snapshot(path)))
    _registered.add(name)
    if name == SANS.regular:
        _map_family()  # registering a TrueType font maps its own bold and italic to itself


def register_file(path: Path) -> str:
    """Register a project TrueType font; its name is derived from the file so it is stable:
    `pnp-STEM`, and `pnp-STEM-DIGEST` for another content under a stem already registered (a font
    file edited while `pnp watch` runs, the earlier version `pnp diff` draws), so that each content
    is drawn with its own glyphs."""
    import hashlib

    from pnp.core.paths import RefusedFile, read_regular

    try:
        content = hashlib.sha256(read_regular(path, FONT_MAX_BYTES, None)).hexdigest()
    except RefusedFile as refused:
        raise FontError(f"{path}: {refused.message}") from None
    known = _by_content.get(content)
    if known is not None:
        return known
    name = "pnp-" + path.stem
    if name in _registered:
        name = f"{name}-{content[:12]}"
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError

    from pnp.drawing.stablefont import StableFont, font_tag

    try:
        pdfmetrics.registerFont(StableFont(name, str(path), font_tag(name, list(BUNDLED))))
    except (TTFError, OSError) as err:
        raise FontError(f"{path}: not a usable TrueType font ({err})") from None
    except Exception:  # noqa: BLE001 - reportlab's parser on a truncated or odd file: struct.error, IndexError...
        raise FontError(f"{path}: not a usable TrueType font (cut short or damaged)") from None
    _registered.add(name)
    _by_content[content] = name
    return name


@cache
def _coverage(font: str) -> frozenset[int]:
    """Code points a registered font has glyphs for (its cmap table, as reportlab read it)."""
    from reportlab.pdfbase import pdfmetrics

    face = getattr(pdfmetrics.getFont(font), "face", None)
    return frozenset(getattr(face, "charToGlyph", {}) or ())


@lru_cache(maxsize=65536)
def missing_characters(text: str, font: str) -> tuple[str, ...]:
    """Characters of `text` the registered `font` cannot draw (whitespace aside), in order, once."""
    covered = _coverage(font)
    return tuple(c for c in dict.fromkeys(text) if not c.isspace() and ord(c) not in covered)


def write_snapshots() -> list[Path]:
    """Snapshot every bundled font's parse (pnp.drawing.fontmetrics); run after changing a font or
    reportlab: `python -m pnp.drawing.fonts` (tests/test_fontmetrics.py says when one is stale)."""
    from pnp.drawing.fontmetrics import write_snapshot

    return [write_snapshot(FONT_DIR / file) for file in BUNDLED.values()]


if __name__ == "__main__":
    for written in write_snapshots():
        print(written)
