"""A face's shape as an image mask: what stays of a rasterised face once it is cut.

The image exports (png, gallery, the live preview) and Tabletop Simulator sheets show a face as
it looks cut out: outside a rounded card's corners, a round token's circle or a hex token's
hexagon (pnp.drawing.shelf.hexagon: points left and right) nothing is left. Masks are drawn at
four times the size and scaled down, for smooth edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

OVERSAMPLE = 4


def shape_mask(width: int, height: int, shape: str, corner: float) -> Image | None:
    """An "L" mask of a `width` x `height` pixel face (trim only): 255 inside the cut, 0 outside;
    None for a plain rectangle. `corner`: a rounded card's corner radius, in pixels."""
    if shape not in ("rounded", "round", "hex") or (shape == "rounded" and corner <= 0):
        return None
    from PIL import Image as PILImage
    from PIL import ImageDraw

    big = PILImage.new("L", (width * OVERSAMPLE, height * OVERSAMPLE), 0)
    draw = ImageDraw.Draw(big)
    w, h = width * OVERSAMPLE - 1, height * OVERSAMPLE - 1
    if shape == "rounded":
        draw.rounded_rectangle((0, 0, w, h), radius=corner * OVERSAMPLE, fill=255)
    elif shape == "round":
        side = min(w, h)
        left, top = (w - side) / 2, (h - side) / 2
        draw.ellipse((left, top, left + side, top + side), fill=255)
    else:
        draw.polygon([(0, h / 2), (w / 4, 0), (3 * w / 4, 0), (w, h / 2), (3 * w / 4, h), (w / 4, h)], fill=255)
    return big.resize((width, height), PILImage.Resampling.BOX)  # an average: 0 where all is outside


def cut_out(image: Image, shape: str, corner: float, fill: tuple[int, int, int] | None = None) -> Image:
    """`image` (a face's trim) as cut: transparent outside its shape (RGBA), or with `fill`
    there (RGB, for formats without transparency); unchanged for a plain rectangle."""
    mask = shape_mask(image.width, image.height, shape, corner)
    if mask is None:
        return image
    from PIL import Image as PILImage

    if fill is None:
        cut = image.convert("RGBA")
        cut.putalpha(mask)
        return cut
    ground = PILImage.new("RGB", image.size, fill)
    return PILImage.composite(image.convert("RGB"), ground, mask)
