"""Rasterise PDF pages with pdfium for pixel comparisons (test helper, shared by the render tests)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageChops, ImageStat

DPI = 50


def pages(pdf: Path, dpi: float = DPI) -> list[Image.Image]:
    """Every page of `pdf` as an RGB image."""
    document = pdfium.PdfDocument(str(pdf))
    try:
        return [page.render(scale=dpi / 72, draw_annots=False).to_pil().convert("RGB") for page in document]
    finally:
        document.close()


def difference(a: Image.Image, b: Image.Image) -> tuple[float, float]:
    """Mean absolute channel difference (0-255), and the share of pixels differing by more than 64."""
    diff = ImageChops.difference(a, b)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    grey = diff.convert("L").point(lambda v: 255 if v > 64 else 0)
    share = ImageStat.Stat(grey).mean[0] / 255
    return mean, share
