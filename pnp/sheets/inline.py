"""Inline icons in sheet text: an `{icon}` token drawn as its icons.json image, at the text's size.

Cards and sheets read the same markup (pnp.drawing.words.parse_markup) and the same icon art
(pnp.drawing.images.load_icon_art). A card places icons itself; a sheet's text is a platypus
Paragraph, which breaks lines and draws words on its own. reportlab's paragraphs know one inline
thing that takes room on a line and moves the words after it: an image. So the markup marks each
icon with an `<onDraw>` tag (parsed, never drawn as such), `inline_icons` turns it into an image
fragment as wide as a card gives an icon, and the sheet's canvas (pnp.sheets.page.SheetCanvas)
draws that "image" with `place_icon_art`: an SVG as vectors, a PNG or JPEG as an image. Text
wrapping, table cells, bullets and page splits then treat an icon as one word. (`Para`: the
sheets' Paragraph, which breaks its lines once a width.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reportlab.platypus import Paragraph

from pnp.drawing.images import place_icon_art

ICON_TAG = "pnp-icon"
# As on cards (pnp.drawing.textbox): an icon takes 1.25 em of the line and is drawn in a 1.2 em
# square centred 0.32 em above the baseline.
ADVANCE = 1.25
SIDE = 1.2
CENTRE = 0.32


def icon_tag(name: str) -> str:
    """Paragraph markup standing for the icon `name` until `inline_icons` gives it its art."""
    return f'<onDraw name="{ICON_TAG}" label="{name}"/>'


class InlineArt:
    """What the paragraph hands the canvas as its "image": an icon's art (pnp.drawing.images)."""

    __slots__ = ("art",)

    def __init__(self, art: Any) -> None:
        self.art = art


class Para(Paragraph):  # type: ignore[misc]  # reportlab has no type hints
    """A reportlab Paragraph that breaks its lines once for each width it is wrapped to. A table
    wraps every cell three or four times at the same width (its heights, the page split, the
    drawing, and pnp's own overflow measure), and breaking lines is most of laying out a sheet."""

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:  # noqa: N803 - reportlab's names
        wraps: dict[float, tuple[Any, ...]] = self.__dict__.setdefault("_pnp_wraps", {})
        known = wraps.get(availWidth)
        if known is not None:
            self.width, self.height, self._wrapWidths, self.blPara = known
            return self.width, self.height
        size: tuple[float, float] = Paragraph.wrap(self, availWidth, availHeight)
        if hasattr(self, "blPara") and self.width == availWidth:  # else too narrow: nothing was broken
            wraps[availWidth] = (self.width, self.height, self._wrapWidths, self.blPara)
        return size


def plain_words(text: str, icons: dict[str, Any]) -> str:
    """Card markup as plain words, for a page header and the PDF's bookmarks: the marks of bold
    and italic dropped, an icon as its label."""
    from pnp.drawing.words import parse_markup

    runs = [parse_markup(line, icons) for line in text.split("\n")]
    return " ".join("".join(r.icon.label if r.icon is not None else r.text for r in line) for line in runs)


def inline_icons(para: Paragraph, art_of: Callable[[str], Any]) -> Paragraph:
    """Each icon tag of a parsed paragraph made an image fragment sized by its own font size.

    `art_of(name)` is the icon's art; the markup only tags icons that have art. A paragraph that is
    split keeps its fragments, so the pieces need no second pass (a second pass changes nothing)."""
    for frag in para.frags:
        defn = getattr(frag, "cbDefn", None)
        if defn is None or getattr(defn, "kind", "") != "onDraw" or getattr(defn, "name", "") != ICON_TAG:
            continue
        size = float(frag.fontSize)
        defn.kind = "img"
        defn.image = InlineArt(art_of(str(defn.label)))
        defn.width = ADVANCE * size
        defn.height = SIDE * size
        defn.valign = (CENTRE - SIDE / 2) * size  # the square's bottom, from the baseline
    return para


def draw_inline(canvas: Any, image: InlineArt, x: float, y: float, width: float, height: float) -> None:
    """The icon in the box the paragraph gave it (ADVANCE wide, SIDE tall): centred, SIDE square."""
    place_icon_art(canvas, image.art, x + width / 2, y + height / 2, min(width, height))
