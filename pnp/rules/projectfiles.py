"""Checks of the files a designer writes besides records: icons.json, layout values, schema keywords.

Each is validated against a schema pnp publishes (pnp/icons.schema.json,
pnp/keywords.schema.json) or checked statically, so a typo is a located error with a
did-you-mean instead of a silent default. No reportlab here: these run on every `pnp check`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from pnp.core.paths import asset_code, image_problem, project_files, svg_problem
from pnp.core.pointers import escape
from pnp.core.problems import Finding
from pnp.project.records import RecordFile, load_file

if TYPE_CHECKING:
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from pnp.project.config import Project
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject

PACKAGE = Path(__file__).resolve().parents[1]
ICONS_SCHEMA = PACKAGE / "icons.schema.json"
KEYWORDS_SCHEMA = PACKAGE / "keywords.schema.json"
HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
Located = tuple[RecordFile, Finding]


@cache
def _schema(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def check_icons(project: Project) -> Iterator[Located]:
    """layouts/icons.json against pnp/icons.schema.json: a "colour" key or "blue" is an error."""
    from pnp.project.schemas import SchemaDocs

    path = project.layouts / "icons.json"
    source = load_file(path, project.display(path), project.max_file_bytes, project=project.root)
    yield from ((source, f) for f in source.findings)
    if not source.records or source.is_array:
        if source.is_array:
            yield source, Finding("icons-error", 'icons.json holds one object: {"icons": {...}}')
        return
    schema = _schema(ICONS_SCHEMA)
    docs = SchemaDocs({schema["$id"]: schema})
    for error in jsonschema_rs.validator_for(schema).iter_errors(source.records[0]):
        for finding in docs.translate(error, ""):
            message = f"{finding.message} (see pnp/icons.schema.json)"
            if finding.code == "pattern-mismatch" and finding.pointer.endswith("/color"):
                message = f"colour {error.instance!r} is not #rrggbb (such as #1e5aa8)"
            yield source, Finding("icons-error", message, finding.pointer, finding.at_key)
    yield from ((source, f) for f in _icon_images(project, source.records[0]))


def _icon_images(project: Project, data: Any) -> Iterator[Finding]:
    """Each icon's `image` must be an SVG, PNG or JPEG file inside the project (else build draws the disc)."""
    icons = data.get("icons") if isinstance(data, dict) else None
    images = [
        (name, spec["image"])
        for name, spec in (icons.items() if isinstance(icons, dict) else ())
        if isinstance(spec, dict) and isinstance(spec.get("image"), str) and spec["image"]
    ]
    found = project_files(project.root, [image for _, image in images])
    for (name, image), (path, problem) in zip(images, found, strict=True):
        pointer = f"/icons/{name}/image"
        if problem or path is None:
            yield Finding(asset_code(problem), f"icon {name!r}: image {image!r} {problem}", pointer)
        elif path.suffix.lower() not in (".svg", ".png", ".jpg", ".jpeg"):
            yield Finding("icons-error", f"icon {name!r}: image {image!r} is not an SVG, PNG or JPEG file", pointer)
        elif problem := (svg_problem(path, project.root) if path.suffix.lower() == ".svg" else image_problem(path)):
            yield Finding("bad-asset", f"icon {name!r}: image {image!r} {problem}", pointer)  # build draws the disc


def no_layouts(loaded: LoadedProject, findings: Iterable[Located]) -> Iterator[Located]:
    """A warning, once, when a project has records of card kinds and no layout at all. `findings`:
    the parse and schema findings, forked validators' too (a file too deep to read is not counted)."""
    unreadable = {id(f) for f, finding in findings if finding.code == "json-syntax"}
    files_by_kind = {
        k: [f for f in files if id(f) not in unreadable] for k, files in loaded.index.files_by_kind.items()
    }
    kinds = sorted(k for k, files in files_by_kind.items() if files and loaded.schemas.is_card(k))
    if not kinds:
        return
    record_file = files_by_kind[kinds[0]][0]
    yield (
        record_file,
        Finding(
            "no-layouts",
            f"the project has records ({', '.join(kinds[:3])}{', ...' if len(kinds) > 3 else ''}) but no layout "
            f"in {loaded.project.display(loaded.project.layouts)}/, so pnp build draws nothing; add a layout "
            "(pnp new makes an example)",
            record_file.pointer(0) + ("" if record_file.kind else "/kind"),
        ),
    )


def check_layout_values(layouts: LayoutSet, root: Path) -> Iterator[Located]:
    """What drawing would trip on, found without drawing: templates that do not compile (an
    unknown filter), palettes that do not exist, images and fonts the layout names that are missing."""
    from pnp.project.layout import compile_message, face_entries, iter_templates
    from pnp.project.plaintemplates import plain_names

    # layouts repeat templates ("{{ name }}" in every file): compile each distinct one once
    compiled: dict[tuple[str, bool], TemplateError | None] = {}
    for layout_file in layouts.files.values():
        source, data = layout_file.source, layout_file.data
        for pointer, text, expression in iter_templates(layout_file):
            if (text, expression) not in compiled:
                compiled[text, expression] = None
                if plain_names(text, expression) is None:  # else it compiles: Jinja is not even loaded
                    compiled[text, expression] = _compile_error(layouts.env, text, expression)
            error = compiled[text, expression]
            if error is not None:
                message = compile_message(layout_file.name, error, layouts.env.filters)
                yield source, Finding("template-error", message, pointer)
        palettes = _palettes(layouts, layout_file.name)
        for _, face_at, face_data in face_entries(data):
            at = face_at
            yield from ((source, f) for f in _paint_findings(face_data.get("background"), at + "/background", palettes))
            for i, element in enumerate(face_data.get("elements") or []):
                at = f"{face_at}/elements/{i}"
                for key in ("fill", "stroke", "color"):
                    yield from ((source, f) for f in _paint_findings(element.get(key), f"{at}/{key}", palettes))
                yield from ((source, f) for f in _file_findings(root, element, at))


def _compile_error(env: ImmutableSandboxedEnvironment, text: str, expression: bool) -> TemplateError | None:
    """Why the template does not compile (an unknown filter); None when it does, or when it does not
    even parse (a syntax error: check_layouts reports it)."""
    from jinja2.exceptions import TemplateError

    try:
        env.compile_expression(text) if expression else env.from_string(text)
    except TemplateError as err:
        return err if _parses(env, text, expression) else None
    return None


def _parses(env: ImmutableSandboxedEnvironment, text: str, expression: bool) -> bool:
    """Whether the template parses: one that does not compile for that reason is check_layouts' to report."""
    from jinja2.exceptions import TemplateError

    try:
        env.parse("{{ " + text + " }}" if expression else text)
    except TemplateError:
        return False
    return True


def _palettes(layouts: LayoutSet, name: str) -> set[str] | None:
    """Palette names a layout file can use: those of every resolved layout its chain ends in (None: unknown)."""
    names: set[str] = set()
    found = False
    for layout in layouts.layouts.values():
        if any(f.name == name for f in layout.chain):
            names.update(layout.data.get("palettes") or {})
            found = True
    return names if found else None


def _paint_findings(value: Any, pointer: str, palettes: set[str] | None) -> Iterator[Finding]:
    if not isinstance(value, dict) or palettes is None or not isinstance(value.get("palette"), str):
        return
    name = value["palette"]
    if name not in palettes:
        close = difflib.get_close_matches(name, sorted(palettes), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        known = ", ".join(sorted(palettes)) or "none (add a 'palettes' table to the layout)"
        yield Finding("unknown-palette", f"no palette {name!r}; {hint}palettes: {known}", pointer + "/palette")


def _file_findings(root: Path, element: dict[str, Any], at: str) -> Iterator[Finding]:
    """A static image `src` or font file that is missing or outside the project."""
    src = element.get("src")
    if isinstance(src, str) and src and "{" not in src:
        yield from _path_findings(root, src, "image", f"{at}/src")
    font = element.get("font")
    fonts = font.items() if isinstance(font, dict) else [("", font)]
    for style, value in fonts:
        if isinstance(value, str) and value not in ("sans", "condensed"):
            yield from _path_findings(root, value, "font", f"{at}/font" + (f"/{style}" if style else ""))


def _path_findings(root: Path, value: str, what: str, pointer: str) -> Iterator[Finding]:
    """The same check as a record's x-asset field: inside the project, a file, of the right kind."""
    from pnp.rules.assets import asset_problem

    found = asset_problem(root, value, what, pointer)
    if found is not None and what == "font" and found.code == "missing-asset":
        found = replace(found, message=found.message + ", or use one of pnp's fonts: sans, condensed")
    if found is not None:
        yield found


# --- x- keywords of record schemas ----------------------------------------------------------

# Keywords whose value is a map of names to subschemas, and those whose value is a subschema or
# a list of them. Only these are walked: enum, const, default and examples hold data.
_NAMED_SUBSCHEMAS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMAS = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "prefixItems",
)


def check_schema_keywords(folder: Path, display: Any, root: Path | None) -> Iterator[Located]:
    """Every x- keyword of every schema against pnp/keywords.schema.json."""
    from pnp.project.schemas import KIND_SUFFIX

    document = _schema(KEYWORDS_SCHEMA)
    meta = document["properties"]
    defs = document.get("$defs", {})
    for path in sorted(folder.glob(f"*{KIND_SUFFIX}")):
        source = load_file(path, display(path), 5 * 1024 * 1024, project=root)
        if len(source.records) != 1 or source.is_array:
            continue  # not parsed: reported when the schemas are loaded
        for pointer, key, value in _x_keywords(source.records[0], ""):
            if key not in meta:
                close = difflib.get_close_matches(key, sorted(meta), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                message = (
                    f"{key!r} is no pnp schema keyword, so pnp ignores it; {hint}"
                    f"keywords: {', '.join(sorted(meta))} (see pnp/keywords.schema.json)"
                )
                yield source, Finding("schema-keyword", message, f"{pointer}/{key}", at_key=True)
            elif not jsonschema_rs.is_valid({"$defs": defs, **meta[key]}, value):
                wanted = meta[key].get("description", "")
                message = f"{key} {json.dumps(value)} is not valid: {key} is {wanted} (see pnp/keywords.schema.json)"
                yield source, Finding("schema-keyword", message, f"{pointer}/{key}")


def _x_keywords(node: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _x_keywords(item, f"{pointer}/{i}")
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        escaped = escape(key)
        if key.startswith("x-"):
            yield pointer, key, value
        elif key in _NAMED_SUBSCHEMAS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _x_keywords(sub, f"{pointer}/{escaped}/{escape(name)}")
        elif key in _SUBSCHEMAS:
            yield from _x_keywords(value, f"{pointer}/{escaped}")


NEWER_KEYWORDS = frozenset(
    {
        "$defs",
        "prefixItems",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "minContains",
        "maxContains",
    }
)  # 2019-09 / 2020-12: ignored under draft-04 to draft-07
OLDER_KEYWORDS = frozenset({"dependencies", "additionalItems"})  # draft-07 and before: ignored by 2020-12
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_VALUES = (
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "items",
)
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")


def check_declared_schemas(project: Project) -> Iterator[Located]:
    """The schemas pnp.toml [kinds] names, used as they are: a warning where one names no draft
    (read as 2020-12) or uses keywords another draft has (which its own draft ignores)."""
    seen: set[Path] = set()
    for spec in project.kinds.values():
        if spec.schema is None or spec.schema in seen:
            continue
        seen.add(spec.schema)
        source = load_file(spec.schema, project.display(spec.schema), 20 * 1024 * 1024, project=project.root)
        if len(source.records) != 1 or not isinstance(source.records[0], dict):
            continue
        schema = source.records[0]
        draft = str(schema.get("$schema", ""))
        if not draft:
            message = (
                "this schema names no draft: it is read as JSON Schema 2020-12; add the one it is written "
                'for, such as "$schema": "http://json-schema.org/draft-07/schema#"'
            )
            yield source, Finding("schema-draft", message, "", severity="warning")
            continue
        newer = "2019-09" in draft or "2020-12" in draft
        name = draft.rstrip("#").rsplit("/", 2)[-2 if newer else -2]
        foreign = OLDER_KEYWORDS if newer else NEWER_KEYWORDS
        for pointer, keyword in _keywords(schema, ""):
            if keyword in foreign:
                other = "draft-07 and before" if newer else "2019-09 and 2020-12"
                message = (
                    f"{keyword!r} is a keyword of {other}; under {name}, which $schema names, validators "
                    "ignore it: name the draft the schema is written for, or write it as that draft does"
                )
                yield source, Finding("schema-draft", message, pointer, at_key=True, severity="warning")


def _keywords(node: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """(pointer, keyword) of every keyword of a schema and its subschemas."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        here = f"{pointer}/{escape(key)}"
        yield here, key
        if key in SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _keywords(sub, f"{here}/{escape(name)}")
        elif key in SCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _keywords(sub, f"{here}/{i}")
        elif key in SCHEMA_VALUES:
            yield from _keywords(value, here)
