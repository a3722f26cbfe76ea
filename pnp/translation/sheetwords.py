"""Sheet words that come from no sheet file, in the project's catalogs (docs/translations.md).

Two sources: the printed labels of enum values a kind's schema declares (`x-labels`, or `oneOf`
`const`/`title`), keyed `label:<kind>/<field>/<value>`; and the words pnp itself writes on sheets
(a generic reference sheet's title and subtitle, the field headings of a `fields` block), keyed
under the reserved context `pnp:<kind>/...`. They live in the project's own catalog rather than in
a catalog shipped with pnp: pnp cannot ship every language a fan translates into, and a heading
is the game's word ("Power", not pnp's), so the translator who knows the game translates it.
Also here: where a language's sheet problems and catalog problems belong (the catalog entry that
makes a sheet block too tall; the gallery card a catalog problem concerns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pnp.core.pointers import escape
from pnp.core.problems import Finding, Problem
from pnp.project.loaded import read_sheet_files
from pnp.translation.units import LABEL_CONTEXT, OWN_CONTEXT, SHEET_CONTEXT, Face, Unit, entry_key, is_static

if TYPE_CHECKING:
    from pnp.project.loaded import LoadedProject
    from pnp.translation.units import CatalogFile

RECORD_NAMED = re.compile(r"(?:\w+: )?record '([^']+)'(?: field '([^']*)')?")
SHEET_FACES = (Face(), Face(bold=True))
EMPTY_RECORD = "record '': "  # a collection sheet's block names no record


def _has_fields_block(node: Any) -> bool:
    if isinstance(node, dict):
        return node.get("type") == "fields" or any(_has_fields_block(v) for v in node.values())
    return isinstance(node, list) and any(_has_fields_block(v) for v in node)


def _line_of(text: str, needle: str) -> int:
    """The 1-based line where `needle` first occurs in `text` (1 when it does not)."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def generic_title(loaded: LoadedProject, kind: str) -> str:
    return str(loaded.schemas.docs[loaded.schemas.kind_uri[kind]].get("title") or kind)


def sheet_word_units(loaded: LoadedProject) -> Iterator[Unit]:
    """Enum labels of every kind with records, then pnp's own words on the sheets that show them."""
    from pnp.project.sheetfiles import schema_labels
    from pnp.sheets.build import generic_subtitle, uncovered_kinds
    from pnp.sheets.templates import humanize

    schemas = loaded.schemas
    project = loaded.project
    kinds = [k for k in sorted(loaded.index.files_by_kind) if k in schemas.kind_uri]
    texts: dict[str, tuple[str, str]] = {}
    for kind in kinds:
        path = schemas.kind_file[kind]
        texts[kind] = (project.display(path), path.read_text(encoding="utf-8", errors="replace"))
    sheets = read_sheet_files(project)
    covered = {k for sheet in sheets.sheets.values() for k in sheet.kinds}
    generic = uncovered_kinds(loaded, covered)
    layouts = loaded.layouts  # labels are printed on sheets, and on cards whose layout has the label filter
    labelled = (
        kinds if sheets.sheets or generic else [k for k in kinds if k in layouts.by_kind and layouts.by_kind[k].labels]
    )
    for kind in labelled:
        display, text = texts[kind]
        for name, by_value in sorted(schema_labels(schemas, kind).items()):
            for value, label in by_value.items():
                if is_static(label):
                    context = f"{LABEL_CONTEXT}{kind}/{escape(name)}/{escape(value)}"
                    yield Unit(context, label, (display, _line_of(text, json.dumps(label))), SHEET_FACES)
    with_fields = set(generic) | {
        k for sheet in sheets.sheets.values() if _has_fields_block(sheet.data.get("blocks")) for k in sheet.kinds
    }
    for kind in generic:
        display, text = texts[kind]
        title = generic_title(loaded, kind)
        line = _line_of(text, json.dumps(title))
        yield Unit(f"{OWN_CONTEXT}{kind}/title", title, (display, line), SHEET_FACES)
        subtitle = generic_subtitle(title)
        yield Unit(f"{OWN_CONTEXT}{kind}/subtitle", subtitle, (display, 1), SHEET_FACES)
    for kind in sorted(k for k in with_fields if k in texts):
        display, text = texts[kind]
        for name in schemas.properties(kind):
            heading = humanize(name)
            if name != "kind" and is_static(heading):
                line = _line_of(text, json.dumps(name) + ":")
                yield Unit(f"{OWN_CONTEXT}{kind}/fields/{escape(name)}", heading, (display, line), SHEET_FACES)


def word(catalog: CatalogFile, context: str, text: str) -> str:
    """A sheet word in the catalog's language (the source `text` while it has no translation)."""
    entry = catalog.entries.get(entry_key(context, text))
    return entry.msgstr if entry is not None and entry.msgstr else text


def relocate_sheet_problems(
    catalog: CatalogFile, problems: tuple[Problem, ...], sheet_names: dict[str, str]
) -> tuple[Problem, ...]:
    """A language's sheet problems: a block taller than a page goes to the catalog entry that makes
    it too long when one translated text is the cause (the sheet's fixed text in that block, or the
    record field the cell shows); otherwise it stays in the sheet file, the language named."""
    out = []
    for problem in problems:
        if problem.code != "text-overflow" or problem.file not in sheet_names:
            out.append(problem)
            continue
        cause = cause_finding(catalog, sheet_names[problem.file], problem)
        if cause is None:
            out.append(replace(problem, message=f"{catalog.lang}: {problem.message}"))
        else:
            out.append(replace(catalog.file.locate(cause), severity=problem.severity))
    return tuple(out)


def cause_finding(catalog: CatalogFile, sheet: str, problem: Problem) -> Finding | None:
    """A sheet block too tall in the catalog's language, at the entry that makes it so (None when
    that is not knowable)."""
    entry = _cause(catalog, sheet, problem)
    if entry is None:
        return None
    message = (
        f"{catalog.lang}: the translation of {entry.context} makes {problem.file} {problem.pointer} "
        f"taller than a page: {problem.message.removeprefix(EMPTY_RECORD)}"
    )
    return Finding(problem.code, message, offset=entry.offset)


def _cause(catalog: CatalogFile, sheet: str, problem: Problem) -> Any:
    """The translated entry that makes a block too tall, or None when that is not knowable: of the
    sheet's fixed texts in the block, the one translation longer than its source (the block fits in
    the source language, which pnp check lays out); for a table cell, the record field it shows."""
    prefix = f"{SHEET_CONTEXT}{sheet}{problem.pointer}"
    fixed = [
        e for c, e in catalog.entries.items()
        if e.msgstr and (c == prefix or c.startswith(prefix + "/"))
    ]  # fmt: skip
    grown = sorted((e for e in fixed if len(e.msgstr) > len(e.msgid)), key=lambda e: len(e.msgid) - len(e.msgstr))
    growth = [len(e.msgstr) - len(e.msgid) for e in grown]
    if len(grown) == 1 or (grown and growth[0] > 2 * sum(growth[1:])):  # one translation grew the block most
        return grown[0]
    named = RECORD_NAMED.match(problem.message)
    if not fixed and named and named.group(1):
        rid, template = named.group(1), named.group(2) or ""
        shown = [
            e for c, e in catalog.entries.items()
            if e.msgstr and c.startswith(rid + "/") and re.search(r"\b" + re.escape(c.split("/")[1]) + r"\b", template)
        ]  # fmt: skip
        if len(shown) == 1:
            return shown[0]
    return None


def catalog_problems_by_card(catalog: CatalogFile, problems: list[Problem]) -> dict[str, list[Problem]]:
    """Problems located in the catalog, by the record whose card they concern: an entry of that
    record's field, or text that overflows on that record's card (its message names the record)."""
    by_line: dict[int, str] = {}
    for entry in catalog.entries.values():
        context = entry.context
        if context and not context.startswith(("layout:", SHEET_CONTEXT, LABEL_CONTEXT, OWN_CONTEXT)):
            line = catalog.file.text.count("\n", 0, entry.offset) + 1
            by_line[line] = context.partition("/")[0]
    found: dict[str, list[Problem]] = {}
    for problem in problems:
        if problem.file != catalog.file.display:
            continue
        named = RECORD_NAMED.match(problem.message.partition(": ")[2])
        rid = named.group(1) if problem.code == "text-overflow" and named else by_line.get(problem.line)
        if rid:
            found.setdefault(rid, []).append(problem)
    return found
