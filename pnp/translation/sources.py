"""What is translatable in a project: its source units, in file order.

Record fields the schema marks translatable (a text several records of a kind share is one unit
of the kind, `kind:<kind>`), the static strings of layouts, the fixed strings of sheet files and
the words templates write (`_('Home')`, `{% trans %}`) each become a `Unit` (context, source
text, where it is, the fonts it is drawn in). Every other module of the package starts from these units: the catalog checks, the
localized project a language build draws, and `pnp translate extract`. Walking a layout's
elements and a sheet's fixed strings is here too, as localizing replaces those same strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pnp.core.pointers import escape
from pnp.core.problems import Finding
from pnp.project.config import Project
from pnp.project.index import values_at
from pnp.project.jsonfile import line_col
from pnp.project.loaded import read_sheet_files
from pnp.project.records import RecordFile
from pnp.translation.units import (
    KIND_CONTEXT,
    LAYOUT_CONTEXT,
    SHEET_CODE_KEYS,
    SHEET_CONTEXT,
    Face,
    Unit,
    is_static,
    translatable_paths,
)

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject


def _element_faces(element: dict[str, Any], key: str) -> Face:
    """The font a layout element draws its `key` in (a stat's value is bold, its label is not)."""
    bold = True if element.get("type") == "stat" and key == "value" else bool(element.get("bold"))
    if element.get("type") == "stat" and key == "label":
        bold = False
    return Face(str(element.get("font") or "sans"), bold, bool(element.get("italic")))


def layout_elements(data: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(face, index, element) of every element of a layout's faces (the units, and localizing)."""
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
    for _, _, element in layout_elements(layout.data):
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


def _record_units(loaded: LoadedProject, layouts: LayoutSet) -> Iterator[Unit]:
    """Every record field to translate: one unit per field, and a text that several fields of a
    kind share becomes one entry of the kind (`kind:<kind>`), which each field may override."""
    for kind in sorted(loaded.index.files_by_kind):
        paths = translatable_paths(loaded, kind)
        if not paths:
            continue
        faces_of = _field_faces(layouts, kind)
        fields: list[Unit] = []
        for record_file, index, record in loaded.records(kind):
            rid = record.get("id")
            if not isinstance(rid, str):
                continue
            base = record_file.pointer(index)
            for path in paths:
                for pointer, value in values_at(record, path, ""):
                    if not isinstance(value, str) or not value.strip():
                        continue
                    # located at its line, or at its row in a spreadsheet (the locator's line)
                    line = record_file.locate(Finding("missing-translation", "", base + pointer)).line
                    fields.append(
                        Unit(f"{rid}{pointer}", value, (record_file.display, line), faces_of.get(path[0], (Face(),)))
                    )
        by_text: dict[str, list[Unit]] = {}
        for unit in fields:
            by_text.setdefault(unit.source, []).append(unit)
        for unit in fields:
            group = by_text[unit.source]
            if len(group) == 1:
                yield unit
                continue
            shared = Unit(
                KIND_CONTEXT + kind,
                unit.source,
                group[0].location,
                tuple(dict.fromkeys(f for u in group for f in u.faces)),
                tuple(dict.fromkeys(u.location for u in group)),
            )
            if unit is group[0]:
                yield shared
            yield replace(unit, override_of=shared.key)


def _message_units(
    context: str, source: RecordFile, pointer: str, template: str, env: Any, faces: tuple[Face, ...]
) -> Iterator[Unit]:
    """The gettext messages of one template (`_('Home')`, `{% trans %}`), at their file and line."""
    from jinja2.exceptions import TemplateSyntaxError

    from pnp.project.templatewords import messages

    try:
        found = list(messages(env, template))
    except TemplateSyntaxError:  # reported by the layout and sheet checks
        return
    if found:
        line = source.locate(Finding("missing-translation", "", pointer)).line
        for at, message in found:
            yield Unit(context, message, (source.display, line + at - 1), faces)


def source_units(loaded: LoadedProject, layouts: LayoutSet) -> dict[str, Unit]:
    """Every translatable text of the project, by entry key, in file order (records, then layouts)."""
    from pnp.project.layout import iter_templates

    units: dict[str, Unit] = {}
    for unit in _record_units(loaded, layouts):
        units.setdefault(unit.key, unit)
    for name in sorted(layouts.files):
        layout_file = layouts.files[name]
        for face, i, element in layout_elements(layout_file.data):
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
        for pointer, template, expression in iter_templates(layout_file):
            if not expression:
                for unit in _message_units(
                    LAYOUT_CONTEXT + name, layout_file.source, pointer, template, layouts.env, (Face(), Face(bold=True))
                ):
                    units.setdefault(unit.key, unit)
    for unit in sheet_units(loaded.project):
        units.setdefault(unit.key, unit)
    from pnp.translation.sheetwords import sheet_word_units

    for unit in sheet_word_units(loaded):
        units.setdefault(unit.key, unit)
    return units


def static_sheet_texts(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
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
    """The fixed strings of every sheet file (sheets/*.yaml), keyed `sheet:<name>/<pointer>`, and
    its templates' gettext messages, keyed `sheet:<name>` and their text."""
    from pnp.project.sheetfiles import iter_sheet_templates

    sheets = read_sheet_files(project)
    for name in sorted(sheets.sheets):
        source = sheets.sheets[name].source
        for pointer, text in static_sheet_texts(sheets.sheets[name].data):
            line = source.locate(Finding("missing-translation", "", pointer)).line  # YAML has its own locator
            yield Unit(f"{SHEET_CONTEXT}{name}{pointer}", text, (source.display, line), (Face(), Face(bold=True)))
        for pointer, template, expression in iter_sheet_templates(sheets.sheets[name].data):
            if not expression:
                yield from _message_units(
                    SHEET_CONTEXT + name, source, pointer, template, sheets.env, (Face(), Face(bold=True))
                )
