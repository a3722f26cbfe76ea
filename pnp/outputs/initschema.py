"""`pnp init-schema FILE`: a first kind schema proposed from a spreadsheet's headers and values.

Types come from the values (all whole numbers: integer; TRUE/yes/no: boolean; a few values
repeated: an enum), dotted headers become nested objects and indexed ones lists. Columns with a
value in every row are required. It is a proposal: the designer edits it (ranges, references
with x-ref, text fields with x-text) before relying on it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pnp.project.config import ConfigError
from pnp.project.fields import FALSE_WORDS, INTEGER, NUMBER, TRUE_WORDS
from pnp.project.tableread import Sheet, TableError, read_sheets
from pnp.project.tabular import cell_text as _text

ID_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"


def propose_schema(path: Path, kind: str | None, sheet_name: str | None, max_bytes: int) -> dict[str, Any]:
    try:
        sheets = read_sheets(path, max_bytes)
    except (TableError, OSError) as err:
        raise ConfigError(f"{path}: {err}") from None
    sheet = _pick(path, sheets, sheet_name)
    rows = [cells for _, cells in sheet.rows if any(_text(c) for c in cells)]
    if len(rows) < 2:
        raise ConfigError(f"{path}: needs a header row and at least one row of values")
    header, data = rows[0], rows[1:]
    columns: dict[tuple[str, ...], list[str]] = {}
    for i, name in enumerate(header):
        if _text(name):
            columns[tuple(part.strip() for part in _text(name).split("."))] = [
                _text(row[i]) if i < len(row) else "" for row in data
            ]
    kinds = {value for value in columns.pop(("kind",), []) if value}
    kind = kind or (kinds.pop() if len(kinds) == 1 else None)
    if kind is None:
        raise ConfigError(f"{path}: name the kind with --kind GAME.KIND (the file has no single-valued kind column)")
    root: dict[str, Any] = {}
    for parts, values in columns.items():
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = values
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://pnp.invalid/schemas/{kind}.schema.json",
        "title": f"{kind}: proposed by pnp init-schema from {path.name}; edit it",
    }
    body = _object(root, len(data))
    body["properties"] = {"kind": {"const": kind}, **body["properties"]}
    body["required"] = ["kind", *body.get("required", [])]
    return {**schema, **body}


def _pick(path: Path, sheets: list[Sheet], name: str | None) -> Sheet:
    if name is None:
        if not sheets:
            raise ConfigError(f"{path}: no visible sheet")
        return sheets[0]
    for sheet in sheets:
        if sheet.name == name:
            return sheet
    raise ConfigError(f"{path}: no visible sheet {name!r}; sheets: {', '.join(str(s.name) for s in sheets)}")


def _node(value: Any, rows: int, name: str) -> dict[str, Any]:
    if isinstance(value, list):
        return _leaf(value, name == "id")
    if value and all(key.isdigit() for key in value):  # tags.0, tags.1: a list
        items = [item for key in sorted(value, key=int) for item in _flat(value[key])]
        merged: Any = items if all(isinstance(v, str) for v in items) else {}
        if isinstance(merged, list):
            return {"type": "array", "items": _leaf(merged, False)}
        objects = [value[key] for key in sorted(value, key=int)]
        return {"type": "array", "items": _object(_merge(objects), None)}
    return _object(value, rows)


def _flat(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _merge(objects: list[Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for obj in objects:
        if isinstance(obj, dict):
            for key, values in obj.items():
                previous = merged.get(key, [])
                merged[key] = previous + values if isinstance(values, list) and isinstance(previous, list) else values
    return merged


def _object(fields: dict[str, Any], rows: int | None) -> dict[str, Any]:
    """An object of the given columns; `rows` None for list items, where nothing is required."""
    properties = {name: _node(value, rows or 0, name) for name, value in fields.items()}
    required = [name for name, value in fields.items() if rows and all(_filled(value, rows))]
    node: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        node["required"] = required
    node["additionalProperties"] = False
    return node


def _filled(value: Any, rows: int) -> list[bool]:
    """Per row: has this column (or any column under this group) a value?"""
    if isinstance(value, list):
        return [bool(v) for v in value]
    found = [False] * rows
    for child in value.values():
        found = [a or b for a, b in zip(found, _filled(child, rows), strict=True)]
    return found


def _leaf(values: list[str], is_id: bool) -> dict[str, Any]:
    present = [v for v in values if v]
    if not present:
        return {"type": "string"}
    if all(INTEGER.fullmatch(v) for v in present):
        numbers = [int(v) for v in present]
        return {"type": "integer", "minimum": min(0, min(numbers))}
    if all(NUMBER.fullmatch(v) for v in present):
        return {"type": "number"}
    if all(v.lower() in TRUE_WORDS | FALSE_WORDS for v in present):
        return {"type": "boolean"}
    distinct = sorted(set(present))
    if len(distinct) <= 8 and len(distinct) * 2 <= len(present):
        return {"enum": distinct}
    if is_id and all(re.fullmatch(ID_PATTERN, v) for v in present):
        return {"type": "string", "pattern": ID_PATTERN}
    return {"type": "string", "minLength": 1}


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
