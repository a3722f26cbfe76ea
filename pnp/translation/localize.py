"""A project as one language draws it (`pnp build --lang`, exports, `pnp check --render`).

The catalog's translations are put into a copy of the records, the layouts' static strings and
the sheet files' fixed strings; `Localized` carries that copy with what is needed to locate
drawing's findings back in the catalog (text too long in this language is the translation's
problem, at its msgstr line), and `Fallbacks` what `--fallback` draws in the source language.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding, Problem
from pnp.project.config import ConfigError, Project
from pnp.project.loaded import read_sheet_files
from pnp.project.records import RecordFile
from pnp.translation.catalogs import read_catalog
from pnp.translation.sheetwords import word
from pnp.translation.sources import layout_elements, source_units, static_sheet_texts
from pnp.translation.units import (
    KIND_CONTEXT,
    LABEL_CONTEXT,
    LAYOUT_CONTEXT,
    NOT_RECORD_CONTEXTS,
    OWN_CONTEXT,
    SHEET_CONTEXT,
    CatalogFile,
    Entry,
    Located,
    Unit,
    entry_key,
    is_static,
    source_language,
    target_languages,
    with_moved_shared,
)

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject
    from pnp.project.sheetfiles import SheetSet


def effective_entry(catalog: CatalogFile, units: dict[str, Unit], unit: Unit) -> Entry | None:
    """The translated entry a record field is drawn with: its own (an override of a shared text),
    else its kind's shared entry; None when neither is translated."""
    entry = catalog.entries.get(unit.context)
    if entry is not None and entry.msgstr and entry.msgid == unit.source:
        return entry
    if unit.override_of:
        shared = catalog.entries.get(unit.override_of)
        if shared is not None and shared.msgstr:
            return shared
    return entry if entry is not None and entry.msgstr else None


def record_field_units(units: dict[str, Unit]) -> Iterator[Unit]:
    """The units of record fields (a shared text's fields included, its `kind:` entry not)."""
    return (u for u in units.values() if not u.context.startswith(NOT_RECORD_CONTEXTS))


def translations_by_record(catalog: CatalogFile, units: dict[str, Unit]) -> dict[str, list[tuple[str, str]]]:
    """record id -> (pointer, text) of every translated field still in the source."""
    found: dict[str, list[tuple[str, str]]] = {}
    for unit in record_field_units(units):
        entry = effective_entry(catalog, units, unit)
        if entry is not None:
            rid, _, pointer = unit.context.partition("/")
            found.setdefault(rid, []).append(("/" + pointer, entry.msgstr))
    return found


def _set(record: dict[str, Any], pointer: str, text: str) -> None:
    parts = [unescape(p) for p in pointer.split("/")[1:]]
    node: Any = record
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.get(part)
        if node is None:
            return
    last = parts[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node) and isinstance(node[int(last)], str):
        node[int(last)] = text
    elif isinstance(node, dict) and isinstance(node.get(last), str):
        node[last] = text


def translated_project(loaded: LoadedProject, catalog: CatalogFile, units: dict[str, Unit]) -> LoadedProject:
    """A copy of the loaded project whose records carry the catalog's translations."""
    from pnp.project.index import Index
    from pnp.project.loaded import LoadedProject

    by_record = translations_by_record(catalog, units)
    index = Index()
    files: list[RecordFile] = []
    kinds_by_file: dict[int, set[str]] = {}
    for record_file in loaded.files:
        records = list(record_file.records)
        for i, record in enumerate(records):
            texts = by_record.get(str(record.get("id"))) if isinstance(record, dict) else None
            if texts:
                records[i] = copy.deepcopy(record)
                for pointer, text in texts:
                    _set(records[i], pointer, text)
        copied = replace(record_file, _records=records, _columns=None, _fill=None)
        kinds = loaded.kinds_by_file.get(id(record_file), set())
        files.append(copied)
        kinds_by_file[id(copied)] = kinds
        index.add_file(copied, kinds)
    return LoadedProject(loaded.project, loaded.schemas, files, index, kinds_by_file)


def translated_layouts(layouts: LayoutSet, catalog: CatalogFile) -> LayoutSet:
    """A copy of the layouts whose static strings are translated (a layout's own file first)."""
    from pnp.project.layout import Layout

    out = copy.copy(layouts)
    out.layouts, out.by_kind = {}, {}
    for name, layout in layouts.layouts.items():
        data = copy.deepcopy(layout.data)
        contexts = [LAYOUT_CONTEXT + f.name for f in reversed(layout.chain)]
        for _, _, element in layout_elements(data):
            for key in ("label", "text"):
                value = element.get(key)
                if is_static(value):
                    element[key] = next(
                        (e.msgstr for c in contexts if (e := catalog.entries.get(entry_key(c, value))) and e.msgstr),
                        value,
                    )
        words = {  # gettext messages of the layout's templates (`_('Home')`), its own file's first
            e.msgid: e.msgstr
            for c in reversed(contexts)
            for e in catalog.entries.values()
            if e.context == c and e.msgstr
        }
        labels = {
            kind: {
                name: {
                    v: word(catalog, f"{LABEL_CONTEXT}{kind}/{escape(name)}/{escape(v)}", t)
                    for v, t in by_value.items()
                }
                for name, by_value in fields.items()
            }
            for kind, fields in layout.labels.items()
        }
        out.layouts[name] = Layout(layout.name, layout.chain, data, layout.kinds, words, labels)
    for kind, layout in layouts.by_kind.items():
        out.by_kind[kind] = out.layouts[layout.name]
    return out


def translate_sheets(sheets: SheetSet, catalog: CatalogFile) -> None:
    """The sheet files' fixed strings replaced by their translations (a sheet build in that language)."""
    for name, sheet in list(sheets.sheets.items()):
        data: dict[str, Any] | None = None
        for pointer, _ in static_sheet_texts(sheet.data):
            entry = catalog.entries.get(f"{SHEET_CONTEXT}{name}{pointer}")
            if entry is not None and entry.msgstr:
                data = data if data is not None else copy.deepcopy(sheet.data)
                _set(data, pointer, entry.msgstr)
        if data is not None:
            sheets.sheets[name] = replace(sheet, data=data)


def _entry_shown(
    layout: Any, layouts: LayoutSet, catalog: CatalogFile, units: dict[str, Unit], rid: str, element_name: str
) -> Entry | None:
    """The translated entry an element of a record shows (None when it shows only source text)."""
    from pnp.project.layout import fields_read

    base_name, _, part = element_name.partition(" ")
    for face, i, element in layout_elements(layout.data):
        if element.get("name", f"{face}[{i}]") != base_name:
            continue
        keys = ("label",) if part == "label" else ("text", "value")
        for key in keys:
            value = element.get(key)
            if not isinstance(value, str):
                continue
            if is_static(value):
                for layout_file in reversed(layout.chain):
                    entry = catalog.entries.get(entry_key(LAYOUT_CONTEXT + layout_file.name, value))
                    if entry is not None and entry.msgstr:
                        return entry
                continue
            for name in sorted(fields_read(layouts.env, value, False)):
                for unit in units.values():
                    if unit.context == f"{rid}/{name}" or unit.context.startswith(f"{rid}/{name}/"):
                        entry = effective_entry(catalog, units, unit)
                        if entry is not None:
                            return entry
    return None


@dataclass(frozen=True, slots=True)
class Fallbacks:
    """Source texts drawn where a language has no translation (`--fallback`): record fields by
    record id (their pointers), layout strings by layout file (the strings)."""

    records: dict[str, tuple[str, ...]] = field(default_factory=dict)
    layouts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sheets: int = 0  # sheet files' fixed strings

    @property
    def count(self) -> int:
        """Texts drawn in the source language (an enum label once, however many cards print it)."""
        fields = sum(1 for v in self.records.values() for p in v if not p.startswith(LABEL_CONTEXT))
        return fields + sum(len(v) for v in self.layouts.values()) + self.sheets

    def of_card(self, record_id: str, layout: Any) -> list[str]:
        """What fell back on one card: its fields' pointers, then its layout's strings."""
        shown = list(self.records.get(record_id, ()))
        for layout_file in layout.chain:
            shown += self.layouts.get(layout_file.name, ())
        return shown


@dataclass(frozen=True, slots=True)
class Localized:
    """A project as one language draws it: translated records and layouts, and what locates
    drawing's findings in the catalog (so a language build draws each card once)."""

    lang: str
    loaded: LoadedProject
    layouts: LayoutSet
    problems: list[Problem]
    catalog: CatalogFile
    units: dict[str, Unit]
    source_layouts: LayoutSet
    fallbacks: Fallbacks

    def sheets(self, sheets: SheetSet) -> None:
        """The sheet files' fixed strings in this language."""
        translate_sheets(sheets, self.catalog)

    @property
    def words_key(self) -> str:
        """The catalog's digest: sheets show its words, so a changed word rebuilds them."""
        import hashlib

        return ":" + hashlib.sha256(self.catalog.file.text.encode()).hexdigest()[:16]

    def sheet_results(self, results: list[Any]) -> list[Any]:
        """Sheet results with a too-tall block located at the catalog entry that makes it so."""
        from pnp.translation.sheetwords import relocate_sheet_problems

        names = {s.source.display: name for name, s in read_sheet_files(self.loaded.project).sheets.items()}
        return [replace(r, problems=relocate_sheet_problems(self.catalog, r.problems, names)) for r in results]

    def problems_by_card(self, problems: list[Problem]) -> dict[str, list[Problem]]:
        """This language's catalog problems by the record whose card they concern (the gallery)."""
        from pnp.translation.sheetwords import catalog_problems_by_card

        return catalog_problems_by_card(self.catalog, problems)

    def word(self, context: str, text: str) -> str:
        """A sheet word from no sheet file (an enum label, pnp's own headings) in this language."""
        from pnp.translation.sheetwords import word

        return word(self.catalog, context, text)

    def relocate(self, located: list[Located], kind: str) -> list[Located]:
        """Drawing's findings on `kind`, each `text-overflow` in translated text moved to its catalog entry."""
        layout = self.source_layouts.by_kind.get(kind)
        records: dict[int, dict[str, dict[str, Any]]] = {}
        out: list[Located] = []
        seen: set[tuple[int, str]] = set()
        for record_file, finding in located:
            if finding.code != "text-overflow" or not finding.element:
                out.append((record_file, finding))
                continue
            by_pointer = records.get(id(record_file))
            if by_pointer is None:
                by_pointer = records[id(record_file)] = {
                    record_file.pointer(i): r for i, r in enumerate(record_file.records) if isinstance(r, dict)
                }
            record = _record_at(by_pointer, finding.pointer)
            entry = (
                _entry_shown(
                    layout, self.source_layouts, self.catalog, self.units, str(record.get("id")), finding.element
                )
                if record is not None and layout is not None
                else None
            )
            if entry is None:
                out.append((record_file, finding))
            elif (entry.offset, finding.element) not in seen:
                seen.add((entry.offset, finding.element))
                message = f"{self.lang}: {finding.message}"
                out.append((self.catalog.file, Finding("text-overflow", message, offset=entry.offset)))
        return out


def _record_at(by_pointer: dict[str, dict[str, Any]], pointer: str) -> dict[str, Any] | None:
    """The record a pointer is in (the record's own pointer, or one under it)."""
    while True:
        if pointer in by_pointer:
            return by_pointer[pointer]
        if "/" not in pointer:
            return None
        pointer = pointer.rsplit("/", 1)[0]


def fallbacks_of(catalog: CatalogFile, units: dict[str, Unit]) -> Fallbacks:
    """Every source text without a translation in `catalog`: what `--fallback` draws in the source language."""
    records: dict[str, list[str]] = {}
    layouts: dict[str, list[str]] = {}
    sheets = 0
    for key, unit in units.items():
        if unit.context.startswith(KIND_CONTEXT):
            continue  # counted on each record field that shows it
        if not unit.context.startswith(NOT_RECORD_CONTEXTS):
            if effective_entry(catalog, units, unit) is None:
                rid, _, pointer = unit.context.partition("/")
                records.setdefault(rid, []).append(pointer)
            continue
        entry = catalog.entries.get(key)
        if entry is not None and entry.msgstr:
            continue
        if unit.context.startswith((SHEET_CONTEXT, LABEL_CONTEXT, OWN_CONTEXT)):
            sheets += 1
        elif unit.context.startswith(LAYOUT_CONTEXT):
            layouts.setdefault(unit.context[len(LAYOUT_CONTEXT) :], []).append(unit.source)
    return Fallbacks({k: tuple(v) for k, v in records.items()}, {k: tuple(v) for k, v in layouts.items()}, sheets)


def check_language(project: Project, lang: str) -> None:
    """A ConfigError (exit 2) unless `lang` is one of the project's translations."""
    if lang not in target_languages(project):
        known = ", ".join(target_languages(project)) or 'none (add [build] languages = ["en", "de"] to pnp.toml)'
        raise ConfigError(f"language {lang!r} is not a translation of this project; translations: {known}")


def localize(
    loaded: LoadedProject,
    layouts: LayoutSet,
    problems: list[Problem],
    lang: str,
    fallback: bool,
    command: str = "pnp build ",
) -> Localized:
    """What `pnp build --lang LANG` (or an export) draws: the records and layouts in that language.

    A missing translation stops the build unless `fallback` (then the source text is drawn).
    Text that overflows in this language is found by the drawing itself: `Localized.relocate`
    puts it at its catalog entry.
    """
    project = loaded.project
    check_language(project, lang)
    units = source_units(loaded, layouts)
    catalog = with_moved_shared(read_catalog(project, lang), units)
    display = catalog.file.display
    if not fallback:
        problems = [
            replace(
                p,
                severity="error",
                message=p.message + f" ({command}--lang {lang} --fallback draws the {source_language(project)} text)",
            )
            if p.file == display and p.code == "missing-translation"
            else p
            for p in problems
        ]
    fallbacks = _with_card_labels(loaded, layouts, catalog, fallbacks_of(catalog, units)) if fallback else Fallbacks()
    return localized_as(loaded, layouts, problems, catalog, units, fallbacks)


def _with_card_labels(loaded: LoadedProject, layouts: LayoutSet, catalog: CatalogFile, found: Fallbacks) -> Fallbacks:
    """`found` with, for each card whose layout prints enum labels (the `label` filter), the labels
    of its values that have no translation (`label:<kind>/<field>/<value>`): the gallery marks them."""
    records = {k: list(v) for k, v in found.records.items()}
    for kind, layout in layouts.by_kind.items():
        for field_name, by_value in layout.labels.get(kind, {}).items():
            for _, _, record in loaded.records(kind):
                value = record.get(field_name)
                context = f"{LABEL_CONTEXT}{kind}/{escape(field_name)}/{escape(str(value))}"
                entry = catalog.entries.get(context)
                if str(value) in by_value and (entry is None or not entry.msgstr):
                    records.setdefault(str(record.get("id")), []).append(context)
    return replace(found, records={k: tuple(v) for k, v in records.items()})


def localized_as(
    loaded: LoadedProject,
    layouts: LayoutSet,
    problems: list[Problem],
    catalog: CatalogFile,
    units: dict[str, Unit],
    fallbacks: Fallbacks,
) -> Localized:
    """The project in the catalog's language, as given (`localize` checks the language and finds
    the units; `pnp check --render` draws one with no fallbacks to find overflow)."""
    localized = translated_project(loaded, catalog, units)
    local_layouts = translated_layouts(layouts, catalog)
    localized.layouts = local_layouts  # what drawing the translated project reads
    return Localized(catalog.lang, localized, local_layouts, problems, catalog, units, layouts, fallbacks)
