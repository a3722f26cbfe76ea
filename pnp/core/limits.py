"""Limits on the work any input can cause, and the one place that reads them from `pnp.toml`.

Every limit has a default that no real game comes near; a project that needs more raises it in
a `[limits]` table of `pnp.toml` (`copies = 5000`), up to the limit's hard ceiling (CEILINGS). An input over a limit is a located problem
(code `limit-exceeded`) naming the limit and how to raise it, never a hang.

The limits of the project being worked on are this module's `current()` (set when `pnp.toml`
is loaded): the deepest stages (the template sandbox in pnp.project.sandbox, shrink-to-fit) read them
from there rather than have every caller pass them down.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Any

from pnp.core.problems import Problem


@dataclass(frozen=True, slots=True)
class Limits:
    """Defaults: far above any real game, far below what hangs or exhausts a machine."""

    copies: int = 1000  # copies of one record (a record's `copies` or a layout's)
    expand_range: int = 1000  # values of one `expand` range
    covers_range: int = 1000  # values of a {min, max} range that an `x-covers` list must cover
    faces_per_kind: int = 100_000  # faces (copies x expansions) of one kind in one build
    paper_mm: float = 2000.0  # the longer side of a sheet of paper
    text_max_pt: float = 400.0  # a text element's `size`
    text_min_pt: float = 1.0  # a text element's `min_size`
    extends_depth: int = 32  # layouts extending layouts
    template_output: int = 100_000  # characters one template may produce
    template_seconds: float = 2.0  # time one template may take
    problems_per_file: int = 1000  # problems reported for one file (the rest counted)
    yaml_values: int = 100_000  # values of one YAML file, its aliases (*name) expanded
    image_pixels: int = 64_000_000  # width x height of one image (an 8000 x 8000 scan)
    table_rows: int = 100_000  # rows of one sheet of a spreadsheet (CSV, TSV, XLSX, ODS)
    table_cells: int = 5_000_000  # cells of one sheet's used area, empty ones included


# The hard ceiling of each limit: `[limits]` may raise a limit up to it, not beyond, so that no
# pnp.toml can take the protection away (`text-max-pt = 1e300` would bring back an endless
# shrink-to-fit). Each is far above any real game and still bounded work on one machine.
CEILINGS = Limits(
    copies=100_000,
    expand_range=100_000,
    covers_range=100_000,
    faces_per_kind=1_000_000,
    paper_mm=5080.0,  # 200 inches, the largest page PDF readers show
    text_max_pt=1000.0,  # shrink-to-fit tries every half point: 2000 tries at most
    text_min_pt=1000.0,
    extends_depth=100,
    template_output=10_000_000,
    template_seconds=60.0,
    problems_per_file=100_000,
    yaml_values=10_000_000,
    image_pixels=256_000_000,  # a 16,000 x 16,000 scan, 1 GB decoded
    table_rows=1_000_000,
    table_cells=50_000_000,  # about 2 GB held while a workbook is read
)
# A limit that bounds from below (the smallest text size) has a floor instead: lower would
# make shrink-to-fit lay text out at sizes no printer draws.
FLOORS = {"text_min_pt": 0.1}
DEFAULT = Limits()
KEYS = {f.name.replace("_", "-"): f.name for f in fields(Limits)}
_current = DEFAULT


def current() -> Limits:
    return _current


def use(limits: Limits) -> None:
    """Make `limits` the ones every stage applies (called when a project is loaded)."""
    global _current
    _current = limits


def read_table(table: Any) -> Limits:
    """The `[limits]` table of pnp.toml; a bad key raises LimitsError (a configuration error)."""
    if table is None:
        return DEFAULT
    if not isinstance(table, dict):
        raise LimitsError(None, "[limits] must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = KEYS.get(key)
        if name is None:
            raise LimitsError(key, f"unknown limit {key!r} in [limits]; known: {', '.join(sorted(KEYS))}")
        kind = type(getattr(DEFAULT, name))
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
        if not ok or (kind is int and not isinstance(value, int)):
            raise LimitsError(key, f"[limits] {key} must be a positive {'integer' if kind is int else 'number'}")
        ceiling = getattr(CEILINGS, name)
        if value > ceiling:
            raise LimitsError(
                key,
                f"[limits] {key} = {value:g} is over its hard ceiling of {ceiling:,g}, beyond which pnp "
                f"could no longer bound the work of hostile input; use at most {key} = {ceiling:g}",
            )
        if value < FLOORS.get(name, 0):
            raise LimitsError(key, f"[limits] {key} = {value:g} is under its floor of {FLOORS[name]:g}")
        values[name] = kind(value)
    return replace(DEFAULT, **values)


class LimitsError(ValueError):
    """A wrong [limits] table: the key at fault (None: the table) and what is wrong."""

    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.key = key


def exceeded(name: str, what: str) -> str:
    """The message of a `limit-exceeded` problem: what is too much, the limit, how to raise it."""
    key = name.replace("_", "-")
    limit = getattr(_current, name)
    return (
        f"{what}, over the limit of {limit:,} ({key}); "
        f"if this is really meant, raise it with {key} = ... in [limits] of pnp.toml"
    )


def cap_per_file(problems: list[Problem]) -> list[Problem]:
    """The first `problems_per_file` problems of each file (sorted by position), and one more
    saying how many were left out: a file with 100,000 mistakes gives a readable report."""
    cap = _current.problems_per_file
    counts = Counter(p.file for p in problems)
    if max(counts.values(), default=0) <= cap:
        return problems
    kept: list[Problem] = []
    seen: Counter[str] = Counter()
    for problem in problems:
        seen[problem.file] += 1
        if seen[problem.file] <= cap:
            kept.append(problem)
        elif seen[problem.file] == cap + 1:
            left = counts[problem.file] - cap
            what = f"{left} more problems in this file are not shown"
            kept.append(
                replace(problem, code="limit-exceeded", severity="error", message=exceeded("problems_per_file", what))
            )
    return kept
