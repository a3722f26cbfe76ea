"""Units and papers: the one millimetre (in PDF points) and the one paper table every stage uses."""

from __future__ import annotations

import math
from dataclasses import dataclass

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


# [paper] printer: the strip along each edge a printer cannot print (mm). Home inkjets and lasers
# leave 3 to 5 mm; pnp's margins (paper edge to the nearest ink) are never narrower.
PRINTERS: dict[str, float] = {"borderless": 0.0, "inkjet": 3.0, "home": 4.0, "laser": 5.0}
ORIENTATIONS = ("portrait", "landscape", "auto")


@dataclass(frozen=True, slots=True)
class PaperSettings:
    """pnp.toml's [paper]: how faces are laid on a sheet, beyond its size (docs/printing.md)."""

    orientation: str = ""  # portrait | landscape | auto; "": the paper as named (a4: portrait)
    printer: str = "home"  # a key of PRINTERS
    margin_mm: float | None = None  # paper edge to the nearest ink; None: the printer's minimum
    per_page: int = 0  # cards-per-page: at most this many faces a sheet (0: as many as fit)
    rows: int = 0  # an exact grid (0: as many as fit)
    columns: int = 0
    mix_sizes: str = ""  # mix-sizes: "all" (true), "last-sheets" or "" (config._mix_mode): sizes on shared sheets
    where: tuple[tuple[str, str, int, int], ...] = ()  # key, pnp.toml as shown, line, column: to locate an error

    @property
    def margin(self) -> float:
        """The margin in millimetres: the one asked for, or the printer's minimum."""
        return self.margin_mm if self.margin_mm is not None else PRINTERS[self.printer]

    @property
    def asked(self) -> bool:
        """Whether pnp.toml sets any of [paper]'s geometry (margin, printer, orientation, grid)."""
        return any(key not in ("size", "mix-sizes") for key, *_ in self.where)

    def located(self, *keys: str) -> tuple[str, int, int] | None:
        """Where the first of `keys` that is set in [paper] is (pnp.toml, line, column), or None."""
        found = {key: (path, line, column) for key, path, line, column in self.where}
        return next((found[key] for key in keys if key in found), None)
