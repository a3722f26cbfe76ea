"""What the element handlers and text setting see of a Renderer, as a protocol.

pnp.drawing.render imports the element handlers (pnp.drawing.handlers) and text setting
(pnp.drawing.textbox); they in turn need the renderer's measures, caches and helpers. They name
this protocol rather than the Renderer class, so that no import cycle forms
(tests/test_architecture.py counts the imports under TYPE_CHECKING too).
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from jinja2 import Template
    from reportlab.lib.colors import Color
    from reportlab.pdfgen.canvas import Canvas

    from pnp.drawing.elements import Context, Element, Icon
    from pnp.drawing.fonts import Family
    from pnp.drawing.images import ImagePath
    from pnp.drawing.impose import Box
    from pnp.drawing.words import TextSetter
    from pnp.project.layout import Layout


class RendererView(Protocol):
    """The parts of pnp.drawing.render.Renderer that drawing one element uses."""

    layout: Layout
    root: Path
    scale: float
    bleed: float
    icons: dict[str, Icon]
    images: dict[str, ImagePath]  # image elements' files, checked once
    dry_images: bool  # images checked, not put in the PDF (a check's throwaway drawing)
    icon_art: dict[str, Any]  # icons.json images, loaded once: an SVG drawing or an image path
    text_setters: weakref.WeakKeyDictionary[Canvas, TextSetter]

    def text_of(self, element: Element, key: str, context: Context) -> str: ...

    def paint(self, value: Any, context: Context, template: Template | None = None, key: str = "") -> Color | None: ...

    def frame(self, element: Element, box: Box) -> tuple[float, float, float, float]: ...

    def stroke_fill(self, canvas: Canvas, element: Element, context: Context) -> tuple[int, int]: ...

    def hex_path(self, canvas: Canvas, x: float, y: float, w: float, h: float, stroke: int, fill: int) -> None: ...

    def family(self, font: str | dict[str, str] | None) -> Family: ...
