"""Problems: stable codes with severities, and located problems the reporters print.

Checks yield unlocated `Finding`s (a JSON pointer inside one file); the caller turns them into
located `Problem`s. Codes never change meaning once published: CI configurations and
`--ignore` lists depend on them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Literal, TypeVar

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Code:
    """A problem code's severity and what it is about, as `pnp docs` and the reports list it."""

    severity: Severity
    summary: str


CODES: dict[str, Code] = {
    # reading files
    "empty-file": Code("error", "the file is empty"),
    "file-too-large": Code("error", "the file is over the size limit"),
    "unreadable-file": Code("error", "the file cannot be read"),
    "invalid-encoding": Code("error", "the file is not valid UTF-8"),
    "byte-order-mark": Code("error", "the file starts with a UTF-8 byte-order mark"),
    "json-syntax": Code("error", "the file is not valid JSON"),
    "duplicate-key": Code("error", "a key appears twice in one object"),
    "non-finite-number": Code("error", "NaN or Infinity, which JSON does not allow"),
    "not-a-record": Code("error", "a value that is not a record object"),
    # spreadsheets (CSV, TSV, XLSX, ODS)
    "bad-workbook": Code("error", "a workbook that cannot be opened"),
    "csv-syntax": Code("error", "a CSV file whose rows cannot be split"),
    "ragged-row": Code("error", "a CSV row with more or fewer cells than the header"),
    "unknown-column": Code("error", "a column header that names no field of the kind"),
    "duplicate-column": Code("error", "a column header that appears twice"),
    "formula-error": Code("error", "a formula cell with an error or no saved value"),
    "date-cell": Code("error", "a date or time cell where the schema expects none"),
    "list-cell": Code("error", "a list in one cell with no separator declared"),
    # kinds and schemas
    "missing-kind": Code("error", "a record without a kind"),
    "unknown-kind": Code("error", "a record whose kind has no schema"),
    "type-mismatch": Code("error", "a value of the wrong JSON type"),
    "enum-mismatch": Code("error", "a value outside the allowed list"),
    "const-mismatch": Code("error", "a value other than the one allowed"),
    "required-property": Code("error", "a required property is missing"),
    "unexpected-property": Code("error", "a property the schema does not define"),
    "pattern-mismatch": Code("error", "a string that does not match the required pattern"),
    "out-of-range": Code("error", "a number outside its allowed range"),
    "wrong-length": Code("error", "a string, array or object of the wrong size"),
    "not-unique": Code("error", "an array whose items must be unique"),
    "schema-violation": Code("error", "any other schema rule"),
    "schema-draft": Code("warning", "a schema named in [kinds] with no $schema, or keywords of another draft"),
    # cross-references and consistency
    "duplicate-id": Code("error", "the same id on two records"),
    "missing-reference": Code("error", "a reference to no record"),
    "wrong-kind-reference": Code("error", "a reference to a record of another kind"),
    "count-mismatch": Code("error", "a component count that the records do not match"),
    "inconsistent-value": Code("error", "a value that contradicts another field of the record"),
    "unknown-icon": Code("error", "an inline icon that no icon defines"),
    "missing-asset": Code("error", "an image or font path that does not exist"),
    "asset-outside-project": Code("error", "an image or font path outside the project"),
    "bad-asset": Code("error", "a file that is not a readable image or font"),
    # layouts
    "unknown-layout-field": Code("error", "a layout template reads a field the kind does not have"),
    "layout-cycle": Code("error", "layouts that extend each other in a cycle"),
    "layout-error": Code("error", "a layout file that is not valid"),
    "layout-unknown-kind": Code("error", "a layout for a kind with no schema"),
    "missing-layout": Code("warning", "a kind with records and no layout"),
    "unused-back-choice": Code("warning", "a back chosen per record has a choice no record selects"),
    "text-overflow": Code("error", "text that does not fit its box even at the minimum size"),
    # translations (pnp.translation.translate), located in translations/<lang>.po
    "catalog-error": Code("error", "a translation catalog that cannot be read"),
    "missing-translation": Code("warning", "a translatable text with no translation in a language"),
    "stale-translation": Code("warning", "a translation of a source text that has changed since"),
    "unknown-translation": Code("error", "a translation of a record, field or layout text that no longer exists"),
    "translation-markup": Code(
        "error", "a translation whose {icon}, *bold* or _italic_ markup differs from the source"
    ),
    "undrawable-character": Code("error", "a character the font of the text cannot draw"),
    "template-error": Code("error", "a layout template that does not compile, or fails on a record"),
    "bad-colour": Code("error", "a colour that is not #rrggbb"),
    "unknown-palette": Code("error", "a colour taken from a palette the layout does not define"),
    "no-layouts": Code("warning", "a project with records and no layout at all"),
    "missing-glyph": Code("warning", "characters the layout's font cannot draw"),
    "missing-font-style": Code("warning", "bold or italic text in a font without a bold or italic face"),
    # project files
    "config-error": Code("error", "a pnp.toml table or key that is unknown or has a wrong value"),
    "schema-keyword": Code("error", "an x- keyword in a schema that pnp does not define, or with a wrong value"),
    "icons-error": Code("error", "an icons.json that does not follow its schema"),
    # sheets
    "sheet-error": Code("error", "a sheet file that is not valid, or a sheet template that fails"),
    "unknown-sheet-field": Code("error", "a sheet template reads a field the kind does not have"),
    "sheet-cycle": Code("error", "sheets that include each other in a cycle"),
    "sheet-unknown-kind": Code("error", "a sheet for a kind with no schema"),
    "generic-sheet": Code("warning", "a kind printed on sheets that no sheet file lists (a generic sheet is made)"),
    # limits on the work an input may cause (pnp.core.limits; raised in [limits] of pnp.toml)
    "limit-exceeded": Code("error", "an input over one of the limits on work (copies, sizes, problems per file...)"),
    # exports
    "short-of-bleed": Code("warning", "art touching the trim edge that stops there instead of reaching the bleed"),
    "outside-safe-zone": Code("warning", "an element closer to the cut than the layout's safe zone"),
}

# Names usable with --ignore / --select besides single codes.
CODE_GROUPS: dict[str, tuple[str, ...]] = {
    "references": ("missing-reference", "wrong-kind-reference"),
    "json": (
        "empty-file",
        "file-too-large",
        "unreadable-file",
        "invalid-encoding",
        "byte-order-mark",
        "json-syntax",
        "duplicate-key",
        "non-finite-number",
    ),
    "schema": (
        "missing-kind",
        "unknown-kind",
        "type-mismatch",
        "enum-mismatch",
        "const-mismatch",
        "required-property",
        "unexpected-property",
        "pattern-mismatch",
        "out-of-range",
        "wrong-length",
        "not-unique",
        "schema-violation",
        "not-a-record",
    ),
    "assets": ("missing-asset", "asset-outside-project", "bad-asset"),
    "translations": (
        "catalog-error",
        "missing-translation",
        "stale-translation",
        "unknown-translation",
        "translation-markup",
        "undrawable-character",
    ),
    "tables": (
        "bad-workbook",
        "csv-syntax",
        "ragged-row",
        "unknown-column",
        "duplicate-column",
        "formula-error",
        "date-cell",
        "list-cell",
    ),
    "render": (
        "text-overflow",
        "template-error",
        "bad-colour",
        "missing-glyph",
        "missing-font-style",
        "short-of-bleed",
        "outside-safe-zone",
    ),
}


def expand_codes(names: str | None) -> frozenset[str]:
    """Turn 'references,duplicate-id' into the set of codes it stands for."""
    if not names:
        return frozenset()
    codes: set[str] = set()
    for name in (part.strip() for part in names.split(",")):
        if not name:
            continue
        if name in CODE_GROUPS:
            codes.update(CODE_GROUPS[name])
        elif name in CODES:
            codes.add(name)
        else:
            known = ", ".join(sorted([*CODES, *CODE_GROUPS]))
            raise ValueError(f"unknown problem code {name!r}; known codes: {known}")
    return frozenset(codes)


T = TypeVar("T")


def pickled_by_fields(cls: type[T]) -> type[T]:
    """Pickle instances as (class, their fields in order): what forked checkers send back is
    mostly findings and problems, and a slotted dataclass's own state functions take a Python
    call per object and per field (a thousand problems: 2.8 ms to pickle, 3.2 ms to unpickle;
    this way 0.7 ms and 1.6 ms)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    assert len(names) > 1, "pickled_by_fields: attrgetter gives a tuple for two fields or more"
    values = attrgetter(*names)

    def reduce(self: T) -> tuple[Callable[..., T], tuple[Any, ...]]:
        return cls, values(self)

    cls.__reduce__ = reduce  # type: ignore[assignment,method-assign]
    return cls


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Finding:
    """A problem inside one file, located by JSON pointer; `at_key` points at the key itself."""

    code: str
    message: str
    pointer: str = ""
    at_key: bool = False
    severity: Severity | None = None
    offset: int | None = None  # exact offset when the check knows it (characters; cells: see records.Locator)
    in_layout: bool = False  # from drawing: `pointer` is into the layout, not the record
    element: str = ""  # from drawing: the layout element concerned (a stat's label: "NAME label")
    missing: str = ""  # required-property: the property missing at `pointer` (a table locates its column)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Problem:
    """One problem, located in the file to edit: what every reporter prints, one line each."""

    file: str
    line: int
    column: int
    pointer: str
    code: str
    severity: Severity
    message: str
    cell: str = ""  # a workbook's "Sheet!C12" (line = row, column = column number)

    @property
    def place(self) -> str:
        """FILE:LINE:COL, or FILE:Sheet!C12 for a workbook cell; FILE quoted when it could be
        taken for a place of its own (see `quoted_file`)."""
        file = quoted_file(self.file)
        return f"{file}:{self.cell}" if self.cell else f"{file}:{self.line}:{self.column}"

    def sort_key(self) -> tuple[str, str, int, int, str, str]:
        """By file, then sheet (workbooks), line and column."""
        return (self.file, self.cell.rpartition("!")[0], self.line, self.column, self.code, self.message)


def quoted_file(name: str) -> str:
    """`name` as a report line shows it: as it is, or, when it holds a colon (`x.json:1:1:
    error[forged]: y.json` would forge a problem line of its own) or begins with a quote, in
    double quotes with JSON escapes, so that a line's place always ends at its first `:LINE:`."""
    if ":" not in name and not name.startswith('"'):
        return name
    return json.dumps(name, ensure_ascii=False)


def severity_of(finding: Finding) -> Severity:
    return finding.severity or CODES[finding.code].severity


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F]} | {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def one_line(text: str) -> str:
    """`text` with its control characters escaped (`\\n`, `\\x1b`): a file name holding a line
    break cannot add a line of its own to a report (a forged problem, a CI workflow command)."""
    return text.translate(_CONTROL)


class ConfigError(Exception):
    """A usage or configuration problem: reported on one line, exit status 2.

    `problems` locates it in pnp.toml when it is there (reporters print them in any format).
    """

    def __init__(self, message: str, problems: tuple[Problem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


def not_found_before(problems: list[Problem], drawn: list[Problem]) -> list[Problem]:
    """What only drawing finds: a code already reported at the same place, or inside it (the
    static check named the font family's `regular` file where drawing met the element's
    `font`), is not reported twice."""
    found = {(p.file, p.line, p.column, p.code) for p in problems}
    inside: dict[tuple[str, str], list[str]] = {}
    for p in problems:
        if p.pointer:
            inside.setdefault((p.file, p.code), []).append(p.pointer)

    def met_before(d: Problem) -> bool:
        if (d.file, d.line, d.column, d.code) in found:
            return True
        prefix = d.pointer + "/"
        return bool(d.pointer) and any(at.startswith(prefix) for at in inside.get((d.file, d.code), ()))

    return [d for d in drawn if not met_before(d)]


def sound_finding(finding: Finding) -> bool:
    """A cached finding pnp could have written: a known code, text where text belongs."""
    return (
        finding.code in CODES
        and isinstance(finding.message, str)
        and isinstance(finding.pointer, str)
        and finding.severity in (None, "error", "warning")
        and (finding.offset is None or type(finding.offset) is int)
    )


def text_line(problem: Problem) -> str:
    """The one line `pnp check` prints for a problem (and `pnp watch`, alike)."""
    where = f" (at {problem.pointer})" if problem.pointer else ""
    return one_line(f"{problem.place}: {problem.severity}[{problem.code}]: {problem.message}{where}")
