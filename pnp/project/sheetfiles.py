"""Sheet files: read, validate against pnp/sheet.schema.json, and check against the kinds' schemas.

No drawing here (pnp check imports this module, and never reportlab): a `SheetSet` is every
sheet file of a project with its located findings; `check_sheets` adds the static checks that
need the schemas (unknown kind, a template reading a field the kind lacks, include cycles,
kinds that fall back to the generic reference sheet).
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from pnp.core.problems import Finding
from pnp.project.layout import fields_read, template_env
from pnp.project.recordfile import YAML_SUFFIXES
from pnp.project.recordfile import sheet_paths as sheet_paths  # re-exported: where it was
from pnp.project.records import RecordFile, load_file
from pnp.project.schemas import SchemaDocs

if TYPE_CHECKING:  # Jinja loads with the sheet files (a project without them never needs it)
    from jinja2.sandbox import ImmutableSandboxedEnvironment

SHEET_SCHEMA = Path(__file__).resolve().parents[1] / "sheet.schema.json"
MAX_SHEET_BYTES = 2 * 1024 * 1024
MAX_INCLUDE_DEPTH = 8
# Names every sheet template may read besides the record's fields.
SHEET_NAMES = frozenset(
    {"record", "records", "items", "game", "title", "group", "loop", "index", "records_of", "referencing"}
)
# Keys holding Jinja expressions (the rest of the string keys are templates).
EXPRESSION_KEYS = frozenset({"when", "rows", "over", "group", "record", "where", "columns_from"})
TEMPLATE_KEYS = frozenset(
    {"text", "label", "value", "title", "subtitle", "header", "footer", "src", "group_heading", "at"}
)
NESTED = ("blocks", "beside")


@dataclass(frozen=True, slots=True)
class SheetFile:
    """One valid sheet file: its name (file stem), source (for locating problems) and data."""

    name: str
    source: RecordFile
    data: dict[str, Any]

    @property
    def kinds(self) -> tuple[str, ...]:
        if self.data.get("document") == "collection":
            return tuple(self.data.get("kinds", ()))
        return (str(self.data.get("kind")),)


@cache
def _schema() -> dict[str, Any]:
    return json.loads(SHEET_SCHEMA.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def _document_validator() -> Any:
    """The schema with any block accepted (blocks are checked one by one, by their type)."""
    schema = copy.deepcopy(_schema())
    schema["$defs"]["block"] = {"$ref": "#/$defs/common"}
    return jsonschema_rs.validator_for(schema)


@cache
def _block_schemas() -> dict[str, dict[str, Any]]:
    """One schema per block type (its own $id, so a problem lists that block's keys)."""
    schema = _schema()
    out: dict[str, dict[str, Any]] = {}
    for branch in schema["$defs"]["block"]["oneOf"]:
        name = branch["properties"]["type"]["const"]
        sub = copy.deepcopy(branch)
        sub["properties"] = {k: ({} if v is True else v) for k, v in sub["properties"].items()}
        sub["properties"]["when"] = {"type": "string"}
        sub["properties"]["$comment"] = {"type": "string"}
        defs = copy.deepcopy(schema["$defs"])
        defs["block"] = {"$ref": "#/$defs/common"}
        out[name] = {"$id": schema["$id"].replace(".schema.json", f"-{name}.schema.json"), "$defs": defs, **sub}
    return out


@cache
def _block_validators() -> dict[str, Any]:
    return {name: jsonschema_rs.validator_for(sub) for name, sub in _block_schemas().items()}


@cache
def _docs() -> SchemaDocs:
    schema = _schema()
    return SchemaDocs({schema["$id"]: schema, **{sub["$id"]: sub for sub in _block_schemas().values()}})


def walk_blocks(blocks: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, block) of every block, nested ones too, in document order."""
    if not isinstance(blocks, list):
        return
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        here = f"{pointer}/{i}"
        yield here, block
        for key in NESTED:
            yield from walk_blocks(block.get(key), f"{here}/{key}")


class SheetSet:
    """Every sheet file of a project, schema-checked, with the findings met on the way."""

    def __init__(self, folder: Path, display: Callable[[Path], str], root: Path | None) -> None:
        self.root = root  # the project's: a sheet file that links out of it is never read
        self.sheets: dict[str, SheetFile] = {}
        self.findings: list[tuple[RecordFile, Finding]] = []
        self.env: ImmutableSandboxedEnvironment = template_env()
        self.paths = sheet_paths(folder)
        for path in self.paths:
            self._read(path, display(path))

    def _read(self, path: Path, display: str) -> None:
        if path.suffix in YAML_SUFFIXES:
            from pnp.project.yamlfile import load_yaml  # PyYAML: only to read a YAML file

            source: RecordFile = load_yaml(path, display, MAX_SHEET_BYTES, self.root)
        else:
            source = load_file(path, display, MAX_SHEET_BYTES, project=self.root)
        self.findings.extend((source, f) for f in source.findings)
        if not source.records or source.is_array:
            if source.records:
                self.findings.append((source, Finding("sheet-error", "a sheet file holds one object")))
            return
        data = source.records[0]
        bad = False
        for error in _document_validator().iter_errors(data):
            bad = True
            for finding in _docs().translate(error, ""):
                self._error(source, f"{finding.message} (see pnp/sheet.schema.json)", finding.pointer, finding.at_key)
        for pointer, block in walk_blocks(data.get("blocks"), "/blocks"):
            validator = _block_validators().get(str(block.get("type")))
            if validator is None:
                continue  # the document schema already said the type is unknown
            for error in validator.iter_errors(block):
                bad = True
                for finding in _docs().translate(error, pointer):
                    message = f"{block.get('type')} block: {finding.message} (see pnp/sheet.schema.json)"
                    self._error(source, message, finding.pointer, finding.at_key)
            if block.get("type") == "table" and ("columns" in block) == ("columns_from" in block):
                bad = True
                if "columns" in block:
                    message = "table block: give 'columns' or 'columns_from', not both"
                else:
                    message = (
                        "table block: missing property 'columns' (or 'columns_from' for a table stored as data); add it"
                    )
                self._error(source, message + " (see pnp/sheet.schema.json)", pointer)
        if bad:
            return
        from jinja2 import TemplateSyntaxError

        for pointer, source_text, expression in iter_sheet_templates(data):
            try:
                self.env.parse("{{ " + source_text + " }}" if expression else source_text)
            except TemplateSyntaxError as err:
                self._error(source, f"template syntax error: {err.message}", pointer)
                bad = True
        if bad:
            return
        if path.stem in self.sheets:
            other = self.sheets[path.stem].source.display
            self._error(source, f"sheet {path.stem!r} is also defined in {other}; keep one")
            return
        self.sheets[path.stem] = SheetFile(path.stem, source, data)

    def _error(self, source: RecordFile, message: str, pointer: str = "", at_key: bool = False) -> None:
        self.findings.append((source, Finding("sheet-error", message, pointer, at_key)))

    def include_chain(self, sheet: SheetFile) -> Iterator[tuple[str, list[str]]]:
        """(pointer of the include, chain of sheet names) for every include cycle starting at `sheet`."""

        def visit(current: SheetFile, chain: list[str], first_pointer: str) -> Iterator[tuple[str, list[str]]]:
            for pointer, block in walk_blocks(current.data.get("blocks"), "/blocks"):
                if block.get("type") != "include":
                    continue
                target = str(block.get("sheet"))
                where = first_pointer or pointer
                if target == sheet.name:
                    yield where, [*chain, target]
                elif target not in chain and target in self.sheets and len(chain) < MAX_INCLUDE_DEPTH:
                    yield from visit(self.sheets[target], [*chain, target], where)

        yield from visit(sheet, [sheet.name], "")


def iter_sheet_templates(data: dict[str, Any]) -> Iterator[tuple[str, str, bool]]:
    """(pointer, source, is_expression) of every template and expression in a sheet."""
    for key in ("macros", "title", "subtitle", "header", "footer"):
        if isinstance(data.get(key), str):
            yield f"/{key}", data[key], False
    if isinstance(data.get("where"), str):
        yield "/where", data["where"], True
    for pointer, block in walk_blocks(data.get("blocks"), "/blocks"):
        yield from _block_templates(pointer, block)


def _block_templates(pointer: str, block: dict[str, Any]) -> Iterator[tuple[str, str, bool]]:
    for key, value in block.items():
        if key in NESTED:
            continue
        if isinstance(value, str) and key in EXPRESSION_KEYS:
            yield f"{pointer}/{key}", value, True
        elif isinstance(value, str) and key in TEMPLATE_KEYS:
            yield f"{pointer}/{key}", value, False
        elif key == "items":
            if isinstance(value, str):
                yield f"{pointer}/items", value, True
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, str):
                        yield f"{pointer}/items/{i}", item, False
        elif key in ("rows", "columns") and isinstance(value, list):
            for i, row in enumerate(value):
                for sub, text in row.items() if isinstance(row, dict) else ():
                    if isinstance(text, str) and sub in ("label", "value", "header", "when"):
                        yield f"{pointer}/{key}/{i}/{sub}", text, sub == "when"


def loop_names(data: dict[str, Any]) -> set[str]:
    """Names bound by the sheet's blocks (`as`, default `item`), which are not record fields."""
    names = {"item", "row"}
    for _pointer, block in walk_blocks(data.get("blocks"), "/blocks"):
        if isinstance(block.get("as"), str):
            names.add(block["as"])
    return names


def check_sheets(
    sheets: SheetSet,
    kinds: set[str],
    properties_of: Callable[[str], Any],
    uncovered: dict[str, RecordFile],
) -> Iterator[tuple[RecordFile, Finding]]:
    """Static sheet checks; `uncovered`: kinds printed on sheets (x-card false) with records, first file each."""
    yield from sheets.findings
    covered: set[str] = set()
    for sheet in sheets.sheets.values():
        yield from _check_kinds(sheet, kinds)
        covered.update(sheet.kinds)
        for pointer, chain in sheets.include_chain(sheet):
            message = f"sheets include each other in a cycle: {' -> '.join(chain)}; remove one include"
            yield sheet.source, Finding("sheet-cycle", message, pointer + "/sheet")
        for pointer, block in walk_blocks(sheet.data.get("blocks"), "/blocks"):
            if block.get("type") == "include" and block.get("sheet") not in sheets.sheets:
                close = difflib.get_close_matches(str(block.get("sheet")), list(sheets.sheets), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                message = f"includes sheet {block.get('sheet')!r}, which is no sheet file; {hint}sheets: "
                yield (
                    sheet.source,
                    Finding("sheet-error", message + ", ".join(sorted(sheets.sheets)), pointer + "/sheet"),
                )
        if sheet.data.get("document") == "collection" or not set(sheet.kinds) <= kinds:
            continue
        allowed = set(properties_of(sheet.kinds[0]))
        if sheet.data.get("document") == "record-with-list" and sheet.data.get("list") not in allowed:
            message = f"list field {sheet.data.get('list')!r} is no field of {sheet.kinds[0]!r}; fields: "
            yield sheet.source, Finding("unknown-sheet-field", message + ", ".join(sorted(allowed)), "/list")
        yield from _check_fields(sheets, sheet, allowed)
    for kind, record_file in sorted(uncovered.items()):
        if kind in covered:
            continue
        message = (
            f'kind {kind!r} is printed on sheets ("x-card": false) but no sheet file lists it, so pnp build '
            "prints it on a generic reference sheet; add a sheet file (`pnp docs sheets`)"
        )
        yield (
            record_file,
            Finding("generic-sheet", message, record_file.pointer(0) + ("" if record_file.kind else "/kind")),
        )


def _check_kinds(sheet: SheetFile, kinds: set[str]) -> Iterator[tuple[RecordFile, Finding]]:
    data = sheet.data
    named = [("/kind", data["kind"])] if "kind" in data else []
    named += [(f"/kinds/{i}", k) for i, k in enumerate(data.get("kinds", []))]
    for pointer, kind in named:
        if kind not in kinds:
            close = difflib.get_close_matches(kind, sorted(kinds), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            message = f"sheet for kind {kind!r}, which has no schema; {hint}fix the kind name"
            yield sheet.source, Finding("sheet-unknown-kind", message, pointer)


def _check_fields(sheets: SheetSet, sheet: SheetFile, allowed: set[str]) -> Iterator[tuple[RecordFile, Finding]]:
    """Top-level names a template reads must be the kind's fields (loop names and context aside)."""
    skip = (
        loop_names(sheet.data)
        | SHEET_NAMES
        | set(sheets.env.globals)
        | macro_names(sheets.env, str(sheet.data.get("macros", "")))
    )
    for pointer, source, expression in iter_sheet_templates(sheet.data):
        if "/blocks/" in pointer and _inside_other_record(sheet.data, pointer):
            continue
        used = fields_read(sheets.env, source, expression)
        for name in sorted(used - allowed - skip):
            close = difflib.get_close_matches(name, sorted(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            message = (
                f"template reads {name!r}, which {sheet.kinds[0]} records do not have (sheet {sheet.name!r}); "
                f"{hint}fields: {', '.join(sorted(allowed))}"
            )
            yield sheet.source, Finding("unknown-sheet-field", message, pointer)


def macro_names(env: ImmutableSandboxedEnvironment, source: str) -> set[str]:
    """Names of the `{% macro %}`s a sheet defines for its templates."""
    if not source:
        return set()
    from jinja2 import nodes

    return {node.name for node in env.parse(source).find_all(nodes.Macro)}


def _inside_other_record(data: dict[str, Any], pointer: str) -> bool:
    """True under a block that changes the record the templates read (card `beside`)."""
    node: Any = data
    for part in pointer.split("/")[1:]:
        if isinstance(node, dict) and node.get("type") == "card" and part == "beside" and "record" in node:
            return True
        node = node[int(part)] if isinstance(node, list) else node.get(part) if isinstance(node, dict) else None
    return False


def schema_labels(schemas: Any, kind: str) -> dict[str, dict[str, str]]:
    """Printed labels of a kind's enum values, by property name: `oneOf` [{const, title}] or `x-labels`."""
    found: dict[str, dict[str, str]] = {}
    uri = schemas.kind_uri[kind]

    def walk(base: str, node: Any, name: str, seen: set[int]) -> None:
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen = seen | {id(node)}
        if isinstance(node.get("x-labels"), dict) and name:
            found.setdefault(name, {}).update({str(k): str(v) for k, v in node["x-labels"].items()})
        for keyword in ("oneOf", "anyOf"):
            options = node.get(keyword)
            if name and isinstance(options, list) and all(isinstance(o, dict) and "const" in o for o in options):
                titled = {str(o["const"]): str(o["title"]) for o in options if isinstance(o.get("title"), str)}
                found.setdefault(name, {}).update(titled)
        if isinstance(node.get("$ref"), str):
            resolved = schemas._resolve(base, node["$ref"])
            if resolved is not None:
                walk(resolved[0], resolved[1], name, seen)
        for key, sub in (node.get("properties") or {}).items():
            walk(base, sub, key, seen)
        for key in ("items", "additionalProperties"):
            walk(base, node.get(key), name, seen)
        for sub in (node.get("patternProperties") or {}).values():
            walk(base, sub, name, seen)
        for keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for sub in node.get(keyword) or []:
                walk(base, sub, name, seen)
        for keyword in ("if", "then", "else"):
            walk(base, node.get(keyword), name, seen)
        for sub in (node.get("$defs") or {}).values() if not name else ():
            walk(base, sub, "", seen)

    walk(uri, schemas.docs[uri], "", set())
    return found
