"""Translations: one catalog per language, checked like the records and drawn by the same renderer.

What is translatable is declared, never hard-coded: record fields the schema marks `x-text` (and
`name`, and any field with `"x-translate": true`; `"x-translate": false` keeps one out), plus the
static strings of layouts (a stat's `label` such as "ATK", a text element's fixed `text`) and
the fixed strings of sheet files (headings, titles, column headers, `labels`).
Catalogs are gettext files `translations/<lang>.po` (read and written by Babel): `msgctxt` is
`record-id/pointer` (`archer/ability`), `layout:<layout file>` for layout strings or
`sheet:<sheet file>/pointer` for sheet strings, `msgid` is the source text. The msgid is the digest of the source: when the source changes, the entry no
longer matches (stale), and `pnp translate extract` marks it fuzzy with the old text kept as
`#| msgid`, as msgmerge does. The languages are `[build] languages` in pnp.toml, source first.
"""

from __future__ import annotations

import copy
import csv
import difflib
import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.markup import drawn_text, markup_signature
from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding, Problem
from pnp.project.config import ConfigError, Project
from pnp.project.jsonfile import line_col
from pnp.project.loaded import read_sheet_files
from pnp.project.records import RecordFile
from pnp.translation.units import (
    FIXED_DATE as FIXED_DATE,
)
from pnp.translation.units import (  # re-exported: the package's names for these
    FOLDER as FOLDER,
)
from pnp.translation.units import (
    LABEL_CONTEXT as LABEL_CONTEXT,
)
from pnp.translation.units import (
    LAYOUT_CONTEXT as LAYOUT_CONTEXT,
)
from pnp.translation.units import (
    LETTER as LETTER,
)
from pnp.translation.units import (
    MAX_ROWS as MAX_ROWS,
)
from pnp.translation.units import (
    NOT_RECORD_CONTEXTS as NOT_RECORD_CONTEXTS,
)
from pnp.translation.units import (
    OWN_CONTEXT as OWN_CONTEXT,
)
from pnp.translation.units import (
    SHEET_CODE_KEYS as SHEET_CODE_KEYS,
)
from pnp.translation.units import (
    SHEET_COLUMNS as SHEET_COLUMNS,
)
from pnp.translation.units import (
    SHEET_CONTEXT as SHEET_CONTEXT,
)
from pnp.translation.units import (
    TEMPLATE as TEMPLATE,
)
from pnp.translation.units import (
    CatalogFile as CatalogFile,
)
from pnp.translation.units import (
    Entry as Entry,
)
from pnp.translation.units import (
    Face as Face,
)
from pnp.translation.units import (
    Located as Located,
)
from pnp.translation.units import (
    Unit as Unit,
)
from pnp.translation.units import (
    catalog_path as catalog_path,
)
from pnp.translation.units import (
    entry_key as entry_key,
)
from pnp.translation.units import (
    is_static as is_static,
)
from pnp.translation.units import (
    source_language as source_language,
)
from pnp.translation.units import (
    target_languages as target_languages,
)
from pnp.translation.units import (
    translatable_paths as translatable_paths,
)
from pnp.translation.units import (
    values_at_paths as values_at_paths,
)

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message

    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject
    from pnp.project.sheetfiles import SheetSet

# --- what is translatable -------------------------------------------------------------------


def _element_faces(element: dict[str, Any], key: str) -> Face:
    bold = True if element.get("type") == "stat" and key == "value" else bool(element.get("bold"))
    if element.get("type") == "stat" and key == "label":
        bold = False
    return Face(str(element.get("font") or "sans"), bold, bool(element.get("italic")))


def _layout_elements(data: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    from pnp.project.layout import face_entries

    for _, at, face_data in face_entries(data):  # face: its pointer without the slash ("back/choices/red")
        for i, element in enumerate(face_data.get("elements", [])):
            if isinstance(element, dict):
                yield at[1:], i, element


def _field_faces(layouts: LayoutSet, kind: str) -> dict[str, tuple[Face, ...]]:
    """Top-level field -> the faces of the elements that show it in the kind's layout."""
    from jinja2.exceptions import TemplateSyntaxError

    from pnp.project.layout import fields_read

    layout = layouts.by_kind.get(kind)
    found: dict[str, list[Face]] = {}
    if layout is None:
        return {}
    for _, _, element in _layout_elements(layout.data):
        for key in ("text", "value", "label"):
            source = element.get(key)
            if not isinstance(source, str):
                continue
            try:
                names = fields_read(layouts.env, source, False)
            except TemplateSyntaxError:
                continue
            for name in names:
                found.setdefault(name, []).append(_element_faces(element, key))
    return {name: tuple(dict.fromkeys(faces)) for name, faces in found.items()}


def source_units(loaded: LoadedProject, layouts: LayoutSet) -> dict[str, Unit]:
    """Every translatable text of the project, by entry key, in file order (records, then layouts)."""
    units: dict[str, Unit] = {}
    for kind in sorted(loaded.index.files_by_kind):
        paths = translatable_paths(loaded, kind)
        if not paths:
            continue
        faces_of = _field_faces(layouts, kind)
        for record_file, index, record in loaded.records(kind):
            rid = record.get("id")
            if not isinstance(rid, str):
                continue
            base = record_file.pointer(index)
            for path in paths:
                for pointer, value in values_at_paths(record, path, ""):
                    if not isinstance(value, str) or not value.strip():
                        continue
                    offset = record_file.offset_of(Finding("missing-translation", "", base + pointer))
                    line = line_col(record_file.text, offset)[0]
                    faces = faces_of.get(path[0], (Face(),))
                    unit = Unit(f"{rid}{pointer}", value, (record_file.display, line), faces)
                    units.setdefault(unit.key, unit)
    for name in sorted(layouts.files):
        layout_file = layouts.files[name]
        for face, i, element in _layout_elements(layout_file.data):
            for key in ("label", "text"):
                value = element.get(key)
                if not is_static(value):
                    continue
                offset = layout_file.source.offset_of(Finding("missing-translation", "", f"/{face}/elements/{i}/{key}"))
                line = line_col(layout_file.source.text, offset)[0]
                unit = Unit(
                    LAYOUT_CONTEXT + name, value, (layout_file.source.display, line), (_element_faces(element, key),)
                )
                units.setdefault(unit.key, unit)
    for unit in sheet_units(loaded.project):
        units.setdefault(unit.key, unit)
    from pnp.translation.sheetwords import sheet_word_units

    for unit in sheet_word_units(loaded):
        units.setdefault(unit.key, unit)
    return units


def _static_sheet_texts(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(pointer, text) of a sheet's fixed strings: headings, titles, labels, column headers, items,
    and the `labels` map's printed names."""
    from pnp.project.sheetfiles import iter_sheet_templates

    for pointer, text, expression in iter_sheet_templates(data):
        if not expression and pointer.rsplit("/", 1)[-1] not in SHEET_CODE_KEYS and is_static(text):
            yield pointer, text
    labels = data.get("labels")
    for name, by_value in labels.items() if isinstance(labels, dict) else ():
        for value, text in by_value.items() if isinstance(by_value, dict) else ():
            if is_static(text):  # the `label` filter's printed names of enum values
                yield f"/labels/{escape(str(name))}/{escape(str(value))}", text


def sheet_units(project: Project) -> Iterator[Unit]:
    """The fixed strings of every sheet file (sheets/*.yaml), keyed `sheet:<name>/<pointer>`."""
    sheets = read_sheet_files(project)
    for name in sorted(sheets.sheets):
        source = sheets.sheets[name].source
        for pointer, text in _static_sheet_texts(sheets.sheets[name].data):
            line = source.locate(Finding("missing-translation", "", pointer)).line  # YAML has its own locator
            yield Unit(f"{SHEET_CONTEXT}{name}{pointer}", text, (source.display, line), (Face(), Face(bold=True)))


def translate_sheets(sheets: SheetSet, catalog: CatalogFile) -> None:
    """The sheet files' fixed strings replaced by their translations (a sheet build in that language)."""
    for name, sheet in list(sheets.sheets.items()):
        data: dict[str, Any] | None = None
        for pointer, _ in _static_sheet_texts(sheet.data):
            entry = catalog.entries.get(f"{SHEET_CONTEXT}{name}{pointer}")
            if entry is not None and entry.msgstr:
                data = data if data is not None else copy.deepcopy(sheet.data)
                _set(data, pointer, entry.msgstr)
        if data is not None:
            sheets.sheets[name] = replace(sheet, data=data)


# --- catalogs -------------------------------------------------------------------------------


def read_catalog(project: Project, lang: str) -> CatalogFile:
    """Read translations/<lang>.po; a problem reading it becomes `error` (at the line Babel names)."""
    path = catalog_path(project, lang)
    display = project.display(path)
    empty = CatalogFile(lang, path, RecordFile(path, display, b"", [], False), exists=False)
    if not path.exists() and not path.is_symlink():
        return empty
    if not path.resolve().is_relative_to(project.root) or not path.is_file():
        empty.error = "not a regular file inside the project"
        return empty
    if path.stat().st_size > project.max_file_bytes:
        empty.error = f"over the {project.max_file_bytes // 1048576} MB limit (max-file-mb in pnp.toml)"
        return empty
    from pnp.core.paths import RefusedFile, read_regular

    try:  # what was checked above may have changed since: read it as a regular file, bounded
        raw = read_regular(path, project.max_file_bytes, project.root)
    except RefusedFile as err:
        empty.error = err.message
        return empty
    found = CatalogFile(lang, path, RecordFile(path, display, raw, [], False))
    text = found.file.text
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    try:
        raw.decode("utf-8")
        found.catalog = _parse_po(raw)
    except UnicodeDecodeError as err:
        found.error = f"not UTF-8 (byte {err.start}); save the catalog as UTF-8"
        return found
    except Exception as err:  # noqa: BLE001 - Babel raises many kinds; each is the file's fault
        line = getattr(err, "lineno", None)
        if isinstance(line, int) and 0 <= line < len(starts):
            found.error_offset = starts[line]
            reason = re.sub(r" on \d+$", "", str(err.args[0]) if err.args else "")
            if reason.startswith("Unknown or misformatted keyword"):
                reason = f"{getattr(err, 'line', '')!r} is no msgctxt, msgid or msgstr line"
            found.error = f"not a gettext catalog here: {reason}"
        else:
            found.error = f"not a readable gettext catalog: {err}"
        return found
    lines = text.split("\n")
    for message in found.catalog:
        if not message.id or not isinstance(message.id, str):
            continue
        line = max(0, (message.lineno or 1) - 1)
        while line < len(lines) - 1 and not lines[line].startswith("msgstr"):
            line += 1
        string = message.string if isinstance(message.string, str) else ""
        entry = Entry(
            message.context or "", message.id, string, "fuzzy" in message.flags, starts[min(line, len(starts) - 1)]
        )
        found.entries.setdefault(entry.key, entry)
    return found


def _parse_po(raw: bytes) -> Catalog:
    from babel.messages.pofile import read_po

    return read_po(io.BytesIO(raw), abort_invalid=True, charset="utf-8")


# --- checks ---------------------------------------------------------------------------------


def translation_findings(loaded: LoadedProject, render: bool = False) -> list[Located]:
    """`pnp check`: every catalog's problems (and, with `render`, text that overflows in its language)."""
    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    found: list[Located] = []
    for lang in target_languages(project):
        catalog = read_catalog(project, lang)
        problems = list(check_catalog(loaded, catalog, units))
        found.extend(problems)
        if render and catalog.catalog is not None:
            found.extend(overflow_findings(loaded, layouts, catalog, units))
    return found


def check_catalog(loaded: LoadedProject, catalog: CatalogFile, units: dict[str, Unit]) -> Iterator[Located]:
    """A catalog against today's source texts: what is missing, stale, unknown, mis-marked or undrawable."""
    where = catalog.file
    lang = catalog.lang
    if catalog.error:
        yield where, Finding("catalog-error", f"{lang}: {catalog.error}", offset=catalog.error_offset)
        return
    if not catalog.exists:
        yield (
            where,
            Finding(
                "missing-translation",
                f"no catalog for language {lang!r} ([build] languages); run 'pnp translate extract' to create it",
                offset=0,
            ),
        )
        return
    entries = catalog.entries
    for key, unit in units.items():
        entry = entries.get(key)
        if entry is None:
            yield (
                where,
                Finding(
                    "missing-translation",
                    f"{lang}: no entry for {unit.context} ({_show(unit.source)}, {unit.location[0]}:{unit.location[1]}); "
                    "run 'pnp translate extract' to add it",
                    offset=0,
                ),
            )
            continue
        if not entry.msgstr:
            yield (
                where,
                Finding("missing-translation", f"{lang}: {unit.context} is not translated yet", offset=entry.offset),
            )
            continue
        if entry.msgid != unit.source or entry.fuzzy:
            was = (
                f"was {_show(entry.msgid)}, now " if entry.msgid != unit.source else "marked fuzzy; the source is now "
            )
            yield (
                where,
                Finding(
                    "stale-translation",
                    f"{lang}: the source of {unit.context} changed since it was translated ({was}{_show(unit.source)}); "
                    "update the msgstr and remove the fuzzy flag ('pnp translate extract' updates the msgid)",
                    offset=entry.offset,
                ),
            )
        expected, got = markup_signature(unit.source), markup_signature(entry.msgstr)
        if expected != got:
            yield (
                where,
                Finding(
                    "translation-markup",
                    f"{lang}: {unit.context} has markup {_markup(got)} but the source has {_markup(expected)}; "
                    "keep every {icon} token and each *bold* / _italic_ span of the source",
                    offset=entry.offset,
                ),
            )
        missing = _undrawable(loaded.project, unit, entry.msgstr)
        if missing:
            chars = ", ".join(f"{c!r} U+{ord(c):04X}" for c in missing)
            font, _ = missing[next(iter(missing))]
            yield (
                where,
                Finding(
                    "undrawable-character",
                    f"{lang}: {unit.context}: {font} cannot draw {chars}; it would print as empty boxes: use a font "
                    "with these characters in the layout (right-to-left and CJK text are not supported)",
                    offset=entry.offset,
                ),
            )
    for key, entry in entries.items():
        if key not in units:
            yield (
                where,
                Finding("unknown-translation", f"{lang}: {_unknown(loaded, entry, units)}", offset=entry.offset),
            )


def _unknown(loaded: LoadedProject, entry: Entry, units: dict[str, Unit]) -> str:
    fix = "run 'pnp translate extract' to mark it obsolete, or fix the msgctxt"
    if entry.context.startswith(SHEET_CONTEXT):
        name, _, pointer = entry.context[len(SHEET_CONTEXT) :].partition("/")
        return f"sheet {name!r} has no fixed text at /{pointer} (msgctxt {entry.context!r}); {fix}"
    if entry.context.startswith((LABEL_CONTEXT, OWN_CONTEXT)):
        return f"no kind with records has the sheet word {entry.context!r} in its schema; {fix}"
    if entry.context.startswith(LAYOUT_CONTEXT):
        name = entry.context[len(LAYOUT_CONTEXT) :]
        if not any(u.context == entry.context for u in units.values()):
            return f"no layout {name!r} has text to translate (msgctxt {entry.context!r}); {fix}"
        return f"layout {name!r} no longer shows {_show(entry.msgid)}; {fix}"
    rid, _, pointer = entry.context.partition("/")
    if not rid:
        return f"an entry without a msgctxt ({_show(entry.msgid)}); keep the 'record-id/pointer' or 'layout:NAME' context that extract wrote"
    if rid not in loaded.index.first:
        close = difflib.get_close_matches(rid, sorted(loaded.index.first), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"no record has id {rid!r}{hint} (msgctxt {entry.context!r}); {fix}"
    known = sorted(u.context.partition("/")[2] for u in units.values() if u.context.startswith(rid + "/"))
    return f"record {rid!r} has no translatable text at /{pointer}; it has: /{', /'.join(known)}; {fix}"


def _show(text: str) -> str:
    text = text.replace("\n", "\\n")
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _markup(signature: list[str]) -> str:
    return " ".join(signature) if signature else "none"


def _font_file(project: Project, face: Face) -> tuple[str, Path]:
    from pnp.drawing.fonts import BUNDLED, FAMILIES, FONT_DIR

    family = FAMILIES.get(face.family)
    if family is None:
        return face.family, project.root / face.family
    name = family.pick(face.bold, face.italic)
    return name, FONT_DIR / BUNDLED[name]


@cache
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    try:
        with TTFont(str(path), lazy=True) as font:
            return frozenset(font.getBestCmap() or {})
    except Exception:  # noqa: BLE001 - a bad font file is reported as bad-asset by the record checks
        return frozenset()


def _undrawable(project: Project, unit: Unit, text: str) -> dict[str, tuple[str, Path]]:
    """Characters of `text` some font that draws it lacks, with that font (markup styles included)."""
    drawn = drawn_text(text)
    faces = list(unit.faces)
    if "*" in text:
        faces += [replace(f, bold=True) for f in unit.faces]
    if "_" in text:
        faces += [replace(f, italic=True) for f in unit.faces]
    missing: dict[str, tuple[str, Path]] = {}
    for face in dict.fromkeys(faces):
        name, path = _font_file(project, face)
        resolved = path.resolve()
        if not resolved.is_relative_to(project.root) and not resolved.is_relative_to(
            _font_file(project, Face())[1].parent
        ):
            continue
        if not resolved.is_file():
            continue
        cmap = _cmap(resolved)
        if not cmap:
            continue
        for char in drawn:
            if not char.isspace() and ord(char) not in cmap:
                missing.setdefault(char, (name, resolved))
    return missing


# --- translated records and layouts ---------------------------------------------------------


def translations_by_record(catalog: CatalogFile, units: dict[str, Unit]) -> dict[str, list[tuple[str, str]]]:
    """record id -> (pointer, text) of every translated field still in the source."""
    found: dict[str, list[tuple[str, str]]] = {}
    for key, entry in catalog.entries.items():
        unit = units.get(key)
        if unit is None or not entry.msgstr or entry.context.startswith(NOT_RECORD_CONTEXTS):
            continue
        rid, _, pointer = entry.context.partition("/")
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
        copied = replace(record_file, records=records)
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
        for _, _, element in _layout_elements(data):
            for key in ("label", "text"):
                value = element.get(key)
                if is_static(value):
                    element[key] = next(
                        (e.msgstr for c in contexts if (e := catalog.entries.get(entry_key(c, value))) and e.msgstr),
                        value,
                    )
        out.layouts[name] = Layout(layout.name, layout.chain, data, layout.kinds)
    for kind, layout in layouts.by_kind.items():
        out.by_kind[kind] = out.layouts[layout.name]
    return out


def overflow_findings(
    loaded: LoadedProject, layouts: LayoutSet, catalog: CatalogFile, units: dict[str, Unit]
) -> list[Located]:
    """`pnp check`: draw the translated cards as `pnp build --lang` does; text that does not fit,
    located at its msgstr (the same relocation the build uses)."""
    from pnp.drawing.findings import render_kind
    from pnp.drawing.impose import SheetSpec, parse_paper

    localized = _localized(loaded, layouts, [], catalog, units, Fallbacks())
    width, height = parse_paper(loaded.project.paper)
    spec = SheetSpec(width, height, duplex="long")
    found: dict[Finding, Located] = {}  # one problem per entry and element (a label shows on every card)
    for kind in localized.loaded.kinds_to_build((), localized.layouts):
        drawn = render_kind(localized.loaded, localized.layouts.by_kind[kind], kind, spec, io.BytesIO(), kind)
        for where, finding in localized.relocate(drawn, kind):
            if where is catalog.file:
                found.setdefault(finding, (where, finding))
    return list(found.values())


def _entry_shown(layout: Any, layouts: LayoutSet, catalog: CatalogFile, rid: str, element_name: str) -> Entry | None:
    """The translated entry an element of a record shows (None when it shows only source text)."""
    from pnp.project.layout import fields_read

    base_name, _, part = element_name.partition(" ")
    for face, i, element in _layout_elements(layout.data):
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
                for entry in catalog.entries.values():
                    if entry.msgstr and (
                        entry.context == f"{rid}/{name}" or entry.context.startswith(f"{rid}/{name}/")
                    ):
                        return entry
    return None


# --- pnp build --lang -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fallbacks:
    """Source texts drawn where a language has no translation (`--fallback`): record fields by
    record id (their pointers), layout strings by layout file (the strings)."""

    records: dict[str, tuple[str, ...]] = field(default_factory=dict)
    layouts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sheets: int = 0  # sheet files' fixed strings

    @property
    def count(self) -> int:
        return sum(len(v) for v in (*self.records.values(), *self.layouts.values())) + self.sheets

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
                _entry_shown(layout, self.source_layouts, self.catalog, str(record.get("id")), finding.element)
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
        entry = catalog.entries.get(key)
        if entry is not None and entry.msgstr:
            continue
        if unit.context.startswith((SHEET_CONTEXT, LABEL_CONTEXT, OWN_CONTEXT)):
            sheets += 1
        elif unit.context.startswith(LAYOUT_CONTEXT):
            layouts.setdefault(unit.context[len(LAYOUT_CONTEXT) :], []).append(unit.source)
        else:
            rid, _, pointer = unit.context.partition("/")
            records.setdefault(rid, []).append(pointer)
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
    catalog = read_catalog(project, lang)
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
    units = source_units(loaded, layouts)
    return _localized(
        loaded, layouts, problems, catalog, units, fallbacks_of(catalog, units) if fallback else Fallbacks()
    )


def _localized(
    loaded: LoadedProject,
    layouts: LayoutSet,
    problems: list[Problem],
    catalog: CatalogFile,
    units: dict[str, Unit],
    fallbacks: Fallbacks,
) -> Localized:
    localized = translated_project(loaded, catalog, units)
    local_layouts = translated_layouts(layouts, catalog)
    localized.layouts = local_layouts  # what drawing the translated project reads
    return Localized(catalog.lang, localized, local_layouts, problems, catalog, units, layouts, fallbacks)


# --- pnp translate extract / import / status ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Status:
    language: str
    total: int
    translated: int
    missing: int
    stale: int
    unknown: int
    error: str = ""  # the catalog could not be read: its located problem line (pnp check's)


def status(loaded: LoadedProject) -> list[Status]:
    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    rows = []
    for lang in target_languages(project):
        catalog = read_catalog(project, lang)
        if catalog.error:  # counted as nothing translated would hide the mistake: say it, located
            where, finding = next(iter(check_catalog(loaded, catalog, {})))
            problem = where.locate(finding)
            line = f"{problem.place}: {problem.severity}[{problem.code}]: {problem.message}"
            rows.append(Status(lang, len(units), 0, len(units), 0, 0, line))
            continue
        missing = stale = translated = 0
        for key, unit in units.items():
            entry = catalog.entries.get(key)
            if entry is None or not entry.msgstr:
                missing += 1
            elif entry.fuzzy or entry.msgid != unit.source:
                stale += 1
            else:
                translated += 1
        unknown = sum(1 for key in catalog.entries if key not in units)
        rows.append(Status(lang, len(units), translated, missing, stale, unknown))
    return rows


def _new_catalog(project: Project, lang: str | None, old: Catalog | None) -> Catalog:
    from babel.messages.catalog import Catalog

    language = lang or "Template"
    catalog = Catalog(
        locale=lang or None,
        project=project.name,
        header_comment=f"# {language} texts of {project.name}. Update with: pnp translate extract",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        fuzzy=False,
    )
    if old is not None:
        catalog.last_translator = old.last_translator
        catalog.language_team = old.language_team
    return catalog


def merged_catalog(
    project: Project, lang: str, units: dict[str, Unit], old: Catalog | None, overrides: dict[str, tuple[str, bool]]
) -> Catalog:
    """The catalog for `units`, keeping `old` translations (fuzzy where the source changed) and
    taking `overrides` (key -> text, fuzzy) over them; entries no longer in the source become obsolete."""
    catalog = _new_catalog(project, lang, old)
    previous: dict[str, Message] = {}
    if old is not None:
        for message in old:
            if message.id and isinstance(message.id, str):
                previous.setdefault(entry_key(message.context or "", message.id), message)
    for key, unit in units.items():
        prior: Message | None = previous.pop(key, None)
        string = prior.string if prior is not None and isinstance(prior.string, str) else ""
        flags = {f for f in (prior.flags if prior is not None else ()) if f == "fuzzy"}
        previous_id: Any = ()
        if prior is not None and prior.id != unit.source:
            flags.add("fuzzy")
            previous_id = prior.id
        if key in overrides:
            string, fuzzy = overrides[key]
            flags = {"fuzzy"} if fuzzy else set()
        if not string:
            flags.discard("fuzzy")
        catalog.add(
            unit.source,
            string,
            locations=[unit.location],
            flags=sorted(flags),
            user_comments=list(prior.user_comments) if prior is not None else [],
            previous_id=previous_id,
            context=unit.context,
        )
    for message in previous.values():
        if message.string:
            catalog.obsolete[catalog._key_for(message.id, message.context)] = message
    if old is not None:
        for obsolete_key, message in old.obsolete.items():
            if entry_key(message.context or "", str(message.id)) not in units:
                catalog.obsolete.setdefault(obsolete_key, message)
    return catalog


def _po_bytes(catalog: Catalog) -> bytes:
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, include_previous=True, sort_output=False)
    return buffer.getvalue()


def extract(loaded: LoadedProject, fmt: str = "po") -> list[Path]:
    """Write translations/messages.pot and update every language's .po (and .xlsx / .csv when asked)."""
    from pnp.core.output import write_bytes

    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    folder = project.root / FOLDER
    if folder.is_symlink() or not folder.resolve().is_relative_to(project.root):
        raise ConfigError(f"{folder}: the translations folder must be a real folder inside the project")
    written = []
    template = merged_catalog(project, "", units, None, {})
    written.append(_write_if_changed(folder / TEMPLATE, _po_bytes(template), write_bytes))
    for lang in target_languages(project):
        found = read_catalog(project, lang)
        if found.error:
            raise ConfigError(f"{found.file.display}: {found.error}; fix it before extracting")
        catalog = merged_catalog(project, lang, units, found.catalog, {})
        written.append(_write_if_changed(found.path, _po_bytes(catalog), write_bytes))
        if fmt in ("xlsx", "csv"):
            rows = _sheet_rows(catalog, units)
            data = _xlsx_bytes(lang, rows) if fmt == "xlsx" else _csv_bytes(rows)
            written.append(_write_if_changed(folder / f"{lang}.{fmt}", data, write_bytes))
    return [p for p in written if p is not None]


def _write_if_changed(path: Path, data: bytes, write_bytes: Any) -> Path | None:
    if path.is_file() and path.read_bytes() == data:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data)
    return path


def _sheet_rows(catalog: Catalog, units: dict[str, Unit]) -> list[tuple[str, str, str, str, str]]:
    rows = [SHEET_COLUMNS]
    for message in catalog:
        if not message.id or not isinstance(message.id, str):
            continue
        unit = units.get(entry_key(message.context or "", message.id))
        string = message.string if isinstance(message.string, str) else ""
        state = "missing" if not string else "stale" if "fuzzy" in message.flags else "translated"
        where = f"{unit.location[0]}:{unit.location[1]}" if unit else ""
        rows.append((message.context or "", message.id, string, state, where))
    return rows


def _xlsx_bytes(lang: str, rows: list[tuple[str, str, str, str, str]]) -> bytes:
    """A workbook for translators; byte-identical for the same rows (fixed dates in and around it)."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    book = Workbook()
    sheet = book.active
    sheet.title = lang
    for row in rows:
        sheet.append(list(row))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for column, width in zip("ABCDE", (24, 60, 60, 11, 28), strict=True):
        sheet.column_dimensions[column].width = width
    for row_cells in sheet.iter_rows(min_row=2, min_col=2, max_col=3):
        for cell in row_cells:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    sheet.freeze_panes = "A2"
    naive = FIXED_DATE.replace(tzinfo=None)
    book.properties.created = naive
    book.properties.modified = naive
    book.properties.creator = "pnp"
    buffer = io.BytesIO()
    book.save(buffer)
    return _fixed_zip_dates(buffer.getvalue())


def _fixed_zip_dates(data: bytes) -> bytes:
    """The workbook with fixed dates: zip entries and the document's modified time."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2000, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            data = source.read(info.filename)
            if info.filename == "docProps/core.xml":  # openpyxl stamps the time of saving here
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2000-01-01T00:00:00Z", data)
            target.writestr(fixed, data)
    return out.getvalue()


def _csv_bytes(rows: list[tuple[str, str, str, str, str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def import_sheet(loaded: LoadedProject, path: Path, lang: str) -> tuple[list[Problem], Path | None]:
    """Take a translator's .xlsx or .csv into translations/<lang>.po; problems (located at the cell)
    stop the import. A row whose source differs from today's source is imported as fuzzy (stale)."""
    from pnp.core.output import write_bytes

    project = loaded.project
    if lang not in target_languages(project):
        raise ConfigError(
            f"language {lang!r} is not in [build] languages of {project.display(project.root / 'pnp.toml')}"
        )
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    if path.stat().st_size > project.max_file_bytes:
        raise ConfigError(f"{path}: over the {project.max_file_bytes // 1048576} MB limit")
    display = project.display(path)
    rows = _read_rows(path, display)
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    by_context = {u.context: u for u in units.values() if not u.context.startswith(LAYOUT_CONTEXT)}
    found = read_catalog(project, lang)
    if found.error:
        raise ConfigError(f"{found.file.display}: {found.error}")
    overrides: dict[str, tuple[str, bool]] = {}
    problems: list[Problem] = []
    header = [str(c or "").strip().lower() for c in rows[0]] if rows else []
    if "context" not in header or "translation" not in header:
        message = f"the first row must name the columns {', '.join(SHEET_COLUMNS)} (as 'pnp translate extract --format xlsx' writes them)"
        return [Problem(display, 1, 1, "", "catalog-error", "error", message)], None
    at = {name: header.index(name) for name in SHEET_COLUMNS if name in header}
    for number, row in enumerate(rows[1:], start=2):
        cells = [str(c) if c is not None else "" for c in row]
        cells += [""] * (len(header) - len(cells))
        context, text = cells[at["context"]].strip(), cells[at["translation"]]
        source = cells[at["source"]] if "source" in at else None
        if not context or not text:
            continue
        unit = (
            units.get(entry_key(context, source or ""))
            if context.startswith(LAYOUT_CONTEXT)
            else by_context.get(context)
        )
        if unit is None:
            column = at["context"] + 1
            message = f"{lang}: no translatable text has context {context!r}; keep the context column as extracted"
            problems.append(Problem(display, number, column, "", "unknown-translation", "error", message))
            continue
        old = found.entries.get(unit.key)
        still_stale = old is not None and old.msgstr == text and (old.fuzzy or old.msgid != unit.source)
        overrides[unit.key] = (text, still_stale or (source is not None and source != unit.source))
    if problems:
        return problems, None
    catalog = merged_catalog(project, lang, units, found.catalog, overrides)
    return [], _write_if_changed(found.path, _po_bytes(catalog), write_bytes)


def _read_rows(path: Path, display: str) -> list[list[Any]]:
    if path.suffix.lower() == ".csv":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise ConfigError(f"{display}: not UTF-8 text; save the sheet as CSV UTF-8") from None
        return [list(row) for _, row in zip(range(MAX_ROWS), csv.reader(io.StringIO(text)), strict=False)]
    if path.suffix.lower() != ".xlsx":
        raise ConfigError(f"{display}: import reads .xlsx or .csv files")
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # noqa: BLE001 - any failure to open is the file's fault
        raise ConfigError(f"{display}: not a readable .xlsx workbook ({type(err).__name__})") from None
    try:
        sheet = book.worksheets[0]
        return [list(row) for _, row in zip(range(MAX_ROWS), sheet.iter_rows(values_only=True), strict=False)]
    finally:
        book.close()


def render_status(rows: list[Status], fmt: str) -> str:
    if fmt == "json":
        import json

        return json.dumps([asdict(r) for r in rows], indent=2) + "\n"
    if not rows:
        return 'no translations: add [build] languages = ["en", "de"] to pnp.toml\n'
    lines = [f"{'language':<10}{'translated':>12}{'missing':>9}{'stale':>7}{'unknown':>9}"]
    for r in rows:
        percent = f"{100 * r.translated / r.total:.0f}%" if r.total else "-"
        if r.error:
            lines.append(f"{r.language:<10}{'unreadable':>12}  (see below)")
            continue
        lines.append(f"{r.language:<10}{r.translated:>6} {percent:>5}{r.missing:>9}{r.stale:>7}{r.unknown:>9}")
    lines.extend(r.error for r in rows if r.error)
    return "\n".join(lines) + "\n"
