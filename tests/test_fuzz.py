"""Property-based suite: generated and mutated input never makes pnp fail unlocated.

What is generated (hypothesis, with hypothesis-jsonschema for schema-shaped data):
- records from every kind schema of the fixture projects (tests/fixture, tests/build_project);
  the repository's own schemas get the same treatment in tests/content/test_fuzz_content.py;
- real records (tests/build_project/cards) with one to three values replaced by arbitrary JSON,
  removed or duplicated;
- arbitrary bytes as a record file;
- layouts from pnp/layout.schema.json, checked, and a sample of them built;
- Jinja expressions over the records (fields, literals, the operators, filters and string
  methods that can build large values, nested), each in a text element, checked (budget below
  and at `test_generated_templates_are_bounded`);
- spreadsheets: generated sheets (headers, cell types, ragged rows, an open quote, cells far
  away), as CSV and as XLSX (budget at `test_generated_csv_sheets_are_located`).

The promise asserted for every example: pnp check (and pnp build) raises nothing (the CLI would
print "internal error"), every problem is located in a project file, and the example stays
within its budget.

Budgets and example counts:
- default profile (`make test`): 4 examples per test (derandomized: the same examples every
  run), 2 for the builds; the whole module takes about 15 s on one core;
- HYPOTHESIS_PROFILE=long: 300 examples per test (random, a new search every run; 30 for the
  builds; failures kept in .hypothesis/ and replayed first); run it before a release or after
  touching the loaders: tens of minutes (it found a NaN bleed, an element without a type and
  asset paths with a NUL byte or too long a name, each now a regression test);
- per example: a check within 10 s and 512 MB of memory growth (tests/fuzzkit.py), a build
  within 60 s.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import (
    ROOT,
    check_within_budget,
    copy_project,
    inline_refs,
    json_values,
    mutated,
    record_schemas,
    replaced,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from pnp.outputs.build import BuildOptions, run_build
from pnp.project.config import load_project

FIXTURE = ROOT / "tests" / "fixture"
BUILD_PROJECT = ROOT / "tests" / "build_project"
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
BUILD_EXAMPLES = 30 if LONG else 2


@pytest.fixture(scope="module")
def fixture_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = copy_project(FIXTURE, tmp_path_factory.mktemp("fuzz") / "fixture")
    shutil.copy(ROOT / "schemas" / "common.schema.json", target / "schemas")  # as tests/casekit.py does
    return target


@pytest.fixture(scope="module")
def build_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(BUILD_PROJECT, tmp_path_factory.mktemp("fuzz") / "build")


SCHEMAS = {
    **{f"fixture/{k}": v for k, v in record_schemas(FIXTURE / "schemas").items()},
    **{f"build_project/{k}": v for k, v in record_schemas(BUILD_PROJECT / "schemas").items()},
}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_generated_records(name: str, fixture_project: Path, build_project: Path) -> None:
    project = fixture_project if name.startswith("fixture/") else build_project
    schema = SCHEMAS[name]

    @given(st.lists(from_schema(schema), min_size=1, max_size=3))
    def check(records: list[Any]) -> None:
        with replaced(project / "cards" / "fuzz.json", records):
            check_within_budget(project)

    check()


REAL = {
    path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted((BUILD_PROJECT / "cards").glob("*.json"))
}


@given(st.sampled_from(sorted(REAL)).flatmap(lambda name: st.tuples(st.just(name), mutated(REAL[name]))))
def test_mutated_records(build_project: Path, case: tuple[str, Any]) -> None:
    name, data = case
    with replaced(build_project / "cards" / name, data):
        check_within_budget(build_project)


@given(st.binary(max_size=3000) | json_values.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bytes(build_project: Path, raw: bytes) -> None:
    with replaced(build_project / "cards" / "raw.json", raw):
        problems = check_within_budget(build_project)
    found = [p for p in problems if p.code != "outside-safe-zone"]  # the layouts' own warnings
    assert all(p.file.startswith("cards/") for p in found), problems


LAYOUT_SCHEMA = inline_refs(json.loads((ROOT / "pnp" / "layout.schema.json").read_text()), ROOT / "pnp")
layouts = from_schema(LAYOUT_SCHEMA).map(lambda layout: {**layout, "kinds": ["test.spell"]})


@given(layouts)
def test_generated_layouts_are_checked(build_project: Path, layout: dict[str, Any]) -> None:
    with replaced(build_project / "layouts" / "test-spell.json", layout):
        check_within_budget(build_project)


@settings(max_examples=BUILD_EXAMPLES)
@given(layouts)
def test_generated_layouts_build(build_project: Path, layout: dict[str, Any]) -> None:
    with replaced(build_project / "layouts" / "test-spell.json", layout):
        started = time.monotonic()
        result = run_build(load_project(explicit=build_project), BuildOptions(kinds=("test.spell",)))
        assert time.monotonic() - started < 60
    for problem in result.problems:
        assert problem.file and problem.line >= 1, problem


# --- templates: generated Jinja expressions over the records, in the sandbox -------------------
#
# Budget (the module's budgets apply per example: 10 s of CPU time and 512 MB of memory growth
# for the check): an expression is built from record fields, literals (numbers up to 10**12,
# strings up to 40 characters) and the operations that can build large values (* ** + ~ %,
# str.format, filters with widths and counts, string methods), nested up to 4 deep; it is put
# in a text element of the spell layout and the project is checked (every face drawn). Any
# failure must be a located problem, never an exception, within the budget.

FIELDS = st.sampled_from(["name", "id", "kind", "level", "copies", "record"])
LITERALS = (
    st.integers(-(10**12), 10**12).map(str)
    | st.text(st.characters(codec="ascii", exclude_characters="'\\{}%"), max_size=40).map(repr)
    | st.sampled_from(["'%99999999s'", "'{:>99999999}'", "'\\n' * 1000", "[1, 2, 3]", "range(100000)", "none"])
)
FILTERS = st.sampled_from(
    [
        "center({n})",
        "indent({n})",
        "wordwrap({n})",
        "truncate({n})",
        "join({s})",
        "replace('a', {s})",
        "batch({n})",
        "slice({n})",
        "format({s})",
        "string",
        "list",
        "tojson",
        "roman",
        "sum",
        "length",
        "upper",
    ]
)
METHODS = st.sampled_from(["center({n})", "ljust({n})", "zfill({n})", "replace('', {s})", "join({s})", "format({s})"])


def _expressions(leaf: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        numbers = st.integers(0, 10**10).map(str) | inner
        return (
            st.tuples(inner, st.sampled_from(["*", "**", "+", "~", "%"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"
            )
            | st.tuples(inner, FILTERS, numbers, inner).map(lambda t: f"({t[0]})|{t[1].format(n=t[2], s=t[3])}")
            | st.tuples(inner, METHODS, numbers, inner).map(lambda t: f"({t[0]}).{t[1].format(n=t[2], s=t[3])}")
        )

    return st.recursive(leaf, grow, max_leaves=4)


TEMPLATES = _expressions(FIELDS | LITERALS).map(lambda expression: "{{ " + expression + " }}")


@given(TEMPLATES)
def test_generated_templates_are_bounded(build_project: Path, text: str) -> None:
    layout = json.loads((BUILD_PROJECT / "layouts" / "test-spell.json").read_text())
    element = {"name": "fuzz", "type": "text", "x": 5, "y": 30, "w": 50, "h": 20, "text": text}
    layout.setdefault("front", {}).setdefault("elements", []).append(element)
    with replaced(build_project / "layouts" / "test-spell.json", layout):
        check_within_budget(build_project)


# --- spreadsheets: generated sheets --------------------------------------------------------------
#
# Budget (the module's, per example: 10 s of CPU time and 512 MB of memory growth for the check):
# a sheet of up to 30 columns and 40 rows; headers from the spell's field names, dotted and
# indexed paths, `kind`, repeats and arbitrary text; cells of every type a workbook holds (text
# with quotes, separators, line breaks and formula starts, numbers, booleans, empty), written as
# CSV (possibly ragged, with a quote left open) or as XLSX with cells placed anywhere up to
# column 200 and row 5000. Every problem must be located in the sheet's file. 3 examples each
# (derandomized) by default, 300 in the long profile.

HEADERS = st.sampled_from(
    ["kind", "id", "name", "level", "copies", "source.seed", "source.section", "tags.0"]
) | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
CELLS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["test.spell", "=1+1", "-3", "'=x", '"open', "a;b", "x\ny", "#REF!", ""])
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
)
SHEETS = st.tuples(st.lists(HEADERS, min_size=1, max_size=30), st.lists(st.lists(CELLS, max_size=32), max_size=40))


def _csv_bytes(header: list[str], rows: list[list[Any]], open_quote: bool) -> bytes:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(["" if c is None else c for c in row] for row in rows)
    return (out.getvalue() + ('"never closed\n' if open_quote else "")).encode("utf-8")


SHEET_EXAMPLES = 300 if LONG else 3  # a check of the drawing project each: keep `make test` cheap


@settings(max_examples=SHEET_EXAMPLES)
@given(SHEETS, st.booleans())
def test_generated_csv_sheets_are_located(
    build_project: Path, sheet: tuple[list[str], list[list[Any]]], open_quote: bool
) -> None:
    with replaced(build_project / "cards" / "sheet.csv", _csv_bytes(*sheet, open_quote)):
        problems = check_within_budget(build_project)
    found = [p for p in problems if p.code != "outside-safe-zone"]  # the layouts' own warnings
    assert all(p.file.startswith("cards/") for p in found), found


@settings(max_examples=SHEET_EXAMPLES)
@given(SHEETS, st.lists(st.tuples(st.integers(1, 5000), st.integers(1, 200), CELLS), max_size=5))
def test_generated_xlsx_sheets_are_located(
    build_project: Path, sheet: tuple[list[str], list[list[Any]]], scattered: list[tuple[int, int, Any]]
) -> None:
    import io

    import openpyxl
    from openpyxl.utils.exceptions import IllegalCharacterError

    book = openpyxl.Workbook()
    try:
        book.active.append(sheet[0])
        for row in sheet[1]:
            book.active.append(row)
        for row_number, column, value in scattered:
            book.active.cell(row=row_number, column=column, value=value)
    except (IllegalCharacterError, ValueError):  # what openpyxl itself refuses to write
        return
    buffer = io.BytesIO()
    book.save(buffer)
    with replaced(build_project / "cards" / "sheet.xlsx", buffer.getvalue()):
        problems = check_within_budget(build_project)
    found = [p for p in problems if p.code != "outside-safe-zone"]  # the layouts' own warnings
    assert all(p.file.startswith("cards/") for p in found), found
