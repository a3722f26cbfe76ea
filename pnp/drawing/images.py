"""Pictures from the project's files: an image element's file placed in its frame, an icon's art inline.

Kept apart from the element handlers because both cards and inline icons draw files, and because
a file is the one thing a layout draws that comes from outside the layout: it may be missing, lie
outside the project, or not be an image at all.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from pnp.core.paths import image_problem, project_file, read_regular, svg_problem
from pnp.drawing.elements import Element
from pnp.drawing.fonts import SANS
from pnp.drawing.pngpass import put_png

ICON_SVG_MAX_BYTES = 5 * 1024 * 1024  # an icon is a few kilobytes of paths


def draw_icon_image(
    canvas: Canvas, root: Path, cache: dict[str, Any], source: str, cx: float, cy: float, side: float
) -> bool:
    """An icons.json `image` inline at text size, centred at (cx, cy) in a `side` square: an SVG as
    vector paths (svglib), a PNG or JPEG as an image. False when the file is not in the project or
    cannot be read (the coloured disc is drawn instead)."""
    art = load_icon_art(root, cache, source)
    if art is None:
        return False
    place_icon_art(canvas, art, cx, cy, side)
    return True


def load_icon_art(root: Path, cache: dict[str, Any], source: str) -> Any:
    """An icons.json `image`, read once per `cache`: an SVG as a reportlab drawing, a raster image as
    its ImagePath; None when it is not a readable image file of the project (cards draw the disc,
    sheets the label). Cards and sheets both read icons here: there is one SVG reader."""
    art = cache.get(source)
    if art is None:
        path, problem = project_file(root, source)
        if problem or path is None:
            return None
        try:
            if path.suffix.lower() == ".svg" and svg_problem(path, root):  # reported by pnp check; the disc stands in
                art = None
            elif path.suffix.lower() == ".svg":
                from reportlab.graphics import renderPDF
                from reportlab.pdfgen.canvas import Canvas
                from svglib.svglib import svg2rlg

                # from its bytes, not its name: svglib then follows no <image>/<use> reference
                # to another file (which may lie outside the project), and reads a bounded file
                art = svg2rlg(io.BytesIO(read_regular(path, ICON_SVG_MAX_BYTES, root)))
                if art is not None:  # reportlab's drawing default is Helvetica, which is never embedded
                    art.initialFontName = SANS.regular
                    renderPDF.draw(art, Canvas(io.BytesIO()), 0, 0)  # fails here, not halfway through a page
            elif image_problem(path):  # a decompression bomb, or no image: the disc stands in
                art = None
            else:
                art = ImagePath(path, root)
                image_size(str(path))  # fails here, not halfway through a page, if it is no image
        except Exception:  # noqa: BLE001 - svglib and PIL raise many kinds; the disc stands in
            art = None
        cache[source] = art or False
    return art or None


def place_icon_art(canvas: Canvas, art: Any, cx: float, cy: float, side: float) -> None:
    """Art of load_icon_art centred at (cx, cy), fitted into a `side` square, its proportions kept."""
    if isinstance(art, ImagePath):
        put_png(canvas, art, art.real, art.root, "auto")
        canvas.drawImage(
            art, cx - side / 2, cy - side / 2, side, side, preserveAspectRatio=True, anchor="c", mask="auto"
        )
        return
    from reportlab.graphics import renderPDF

    scale = side / max(art.width, art.height, 1e-6)
    canvas.saveState()
    canvas.translate(cx - art.width * scale / 2, cy - art.height * scale / 2)
    canvas.scale(scale, scale)
    renderPDF.draw(art, canvas, 0, 0)
    canvas.restoreState()


class ImagePath(str):
    """A file path whose str() is its project-relative name.

    reportlab names an image XObject after str(path); with absolute paths the same project
    built in two folders would differ byte-wise. The characters are still the real path.
    """

    key: str

    real: Path

    root: Path

    def __new__(cls, path: Path, root: Path) -> ImagePath:
        made = super().__new__(cls, str(path))
        made.key = path.relative_to(root).as_posix()
        made.real = path
        made.root = root
        return made

    def __str__(self) -> str:
        return self.key


def place_image(canvas: Canvas, element: Element, frame: tuple[float, float, float, float], image: ImagePath) -> None:
    x, y, w, h = frame
    put_png(canvas, image, image.real, image.root, "auto")  # a PNG the PDF takes as it is: not decoded
    if element.spec.get("fit", "contain") == "cover":
        iw, ih = image_size(str(image.real))
        scale = max(w / iw, h / ih)
        dw, dh = iw * scale, ih * scale
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(x, y, w, h)
        canvas.clipPath(clip, stroke=0, fill=0)
        canvas.drawImage(image, x + (w - dw) / 2, y + (h - dh) / 2, dw, dh, mask="auto")
        canvas.restoreState()
    else:
        canvas.drawImage(image, x, y, w, h, preserveAspectRatio=True, anchor="c", mask="auto")


@lru_cache(maxsize=256)
def image_size(path: str) -> tuple[int, int]:
    from reportlab.lib.utils import ImageReader

    width, height = ImageReader(path).getSize()
    return int(width), int(height)
