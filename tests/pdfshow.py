"""Render PDF pages to PNG with pypdfium2, for looking at what pnp makes: python tests/pdfshow.py FILE.pdf [DPI]."""

from __future__ import annotations

import sys
from pathlib import Path

import pypdfium2 as pdfium


def render(pdf: Path, dpi: int = 60, out: Path | None = None) -> list[Path]:
    document = pdfium.PdfDocument(str(pdf))
    written = []
    for number in range(len(document)):
        image = document[number].render(scale=dpi / 72).to_pil()
        target = (out or pdf.parent) / f"{pdf.stem}-p{number + 1}.png"
        image.save(target)
        written.append(target)
    return written


if __name__ == "__main__":
    for path in render(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 60, Path("/tmp")):
        print(path)
