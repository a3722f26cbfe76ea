"""Units and papers: the one millimetre (in PDF points) and the one paper table every stage uses."""

from __future__ import annotations

import math

MM = 72 / 25.4  # one millimetre in points (reportlab.lib.units.mm is the same float)
PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210 * MM, 297 * MM),
    "letter": (8.5 * 72, 11 * 72),
    "a3": (297 * MM, 420 * MM),
    "legal": (8.5 * 72, 14 * 72),
}


class ImpositionError(ValueError):
    """The cards do not fit the paper with these margins."""


def parse_paper(name: str) -> tuple[float, float]:
    """'a4', 'letter', or a custom 'WIDTHxHEIGHTmm' / 'in' / 'pt'."""
    key = name.lower().strip()
    if key in PAPERS:
        return PAPERS[key]
    for unit, factor in (("mm", MM), ("in", 72.0), ("pt", 1.0)):
        if key.endswith(unit) and "x" in key:
            width, _, height = key[: -len(unit)].partition("x")
            try:
                size = float(width) * factor, float(height) * factor
            except ValueError:
                break
            if math.isnan(size[0]) or math.isnan(size[1]):  # "nan" is a float, no measure
                break
            return size
    raise ImpositionError(
        f"unknown paper {name!r}; use a4, letter, a3, legal or WIDTHxHEIGHT with mm, in or pt (210x297mm)"
    )
