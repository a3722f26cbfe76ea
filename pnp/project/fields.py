"""Columns to fields, guided by the schema: what a spreadsheet cell becomes in a record.

A spreadsheet has no types: "3" may be a number or a name, a list is one cell or several
columns. The kind's schema says which: `FieldGuide.field(kind, path)` follows the schema
($ref, allOf, anyOf, oneOf, items) to what it allows at a dotted header, and `convert` turns a
cell into that, or leaves it as it is so the schema check reports it at the cell.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.project.jsonfile import json_type_name

if TYPE_CHECKING:
    from pnp.project.config import Project
    from pnp.project.schemas import SchemaSet

INTEGER = re.compile(r"[+-]?\d+")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "no", "n", "0"})
ABSENT: Any = object()  # an empty cell: the field is left out


@dataclass(frozen=True, slots=True)
class Field:
    """What the schema allows at one path: JSON types, and how a one-cell list is split."""

    types: frozenset[str]
    separator: str = ""
    item_types: frozenset[str] = frozenset()
    date_format: bool = False


UNKNOWN = Field(frozenset())
TEXT = frozenset({"string"})


class FieldGuide:
    """The project's schemas and [sources], as the spreadsheet reader needs them."""

    def __init__(
        self,
        schemas: SchemaSet | None,
        root: Path,
        sources: dict[str, Any],
        separator: str = "",
        declared: dict[Path, str] | None = None,
    ) -> None:
        self.schemas = schemas
        self.declared = declared or {}  # pnp.toml [kinds]: file -> kind
        self.root = root
        self.sources = sources
        self.separator = separator
        self._fields: dict[tuple[str, tuple[str, ...]], Field] = {}
        self._branch_lists: dict[tuple[str, int], list[tuple[str, dict[str, Any]]]] = {}
        self.plans: dict[tuple[int, str], Any] = {}  # the table reader's column plans (pnp/project/tabular.py)

    @classmethod
    def for_project(cls, project: Project, schemas: SchemaSet) -> FieldGuide:
        return cls(schemas, project.root, project.sources, project.list_separator, project.kind_files)

    def kind_of(self, path: Path, sheet: str | None) -> str | None:
        """The kind [sources] gives a file (or one sheet of a workbook), else [kinds], if any."""
        declared = self.declared.get(Path(os.path.abspath(path))) if self.declared else None
        try:
            key = os.path.normpath(os.path.relpath(os.path.abspath(path), self.root))
        except ValueError:
            return declared
        value = self.sources.get(key)
        if isinstance(value, dict):
            found = value.get(sheet or "")
            return found if isinstance(found, str) else declared
        return value if isinstance(value, str) else declared

    def knows(self, kind: str) -> bool:
        return self.schemas is not None and kind in self.schemas.kind_uri

    def unknown(self, kind: str, path: tuple[str, ...]) -> tuple[int, list[str]] | None:
        """Where `path` leaves what the kind's schema allows: (depth, names allowed there)."""
        if self.schemas is None or kind not in self.schemas.kind_uri:
            return None
        uri = self.schemas.kind_uri[kind]
        nodes: list[tuple[str, Any]] = [(uri, self.schemas.docs[uri])]
        for depth, part in enumerate(path):
            children = [child for u, n in nodes for child in self._children(u, n, part)]
            if not children:
                branches = [node for u, n in nodes for _, node in self._all_branches(u, n)]
                closed = any(
                    node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
                    for node in branches
                )
                if not closed or part.isdigit():
                    return None
                return depth, sorted({name for node in branches for name in node.get("properties", {})})
            nodes = children
        return None

    def field(self, kind: str, path: tuple[str, ...]) -> Field:
        key = (kind, path)
        found = self._fields.get(key)
        if found is None:
            found = self._field(kind, path)
            self._fields[key] = found
        return found

    def _field(self, kind: str, path: tuple[str, ...]) -> Field:
        if self.schemas is None or kind not in self.schemas.kind_uri:
            return UNKNOWN
        uri = self.schemas.kind_uri[kind]
        nodes: list[tuple[str, Any]] = [(uri, self.schemas.docs[uri])]
        for part in path:
            nodes = [child for u, n in nodes for child in self._children(u, n, part)]
        branches = [b for u, n in nodes for b in self._all_branches(u, n)]
        types = frozenset(t for _, node in branches for t in _types(node))
        separator = next((n["x-separator"] for _, n in branches if isinstance(n.get("x-separator"), str)), "")
        items = [c for u, n in branches for c in self._children(u, n, "0")]
        item_types = frozenset(t for u, n in items for _, b in self._all_branches(u, n) for t in _types(b))
        dated = any(n.get("format") in ("date", "date-time", "time") for _, n in branches)
        return Field(types, separator or self.separator, item_types, dated)

    def _children(self, uri: str, node: Any, part: str) -> Iterator[tuple[str, Any]]:
        for base, branch in self._all_branches(uri, node):
            properties = branch.get("properties", {})
            prefix = branch.get("prefixItems")
            if isinstance(properties, dict) and part in properties:
                yield base, properties[part]
            elif part.isdigit() and isinstance(prefix, list) and int(part) < len(prefix):
                yield base, prefix[int(part)]
            elif part.isdigit() and isinstance(branch.get("items"), dict):
                yield base, branch["items"]
            elif isinstance(branch.get("additionalProperties"), dict):
                yield base, branch["additionalProperties"]
            else:
                patterns = branch.get("patternProperties", {})
                for pattern, sub in patterns.items() if isinstance(patterns, dict) else []:
                    if re.search(pattern, part):
                        yield base, sub

    def _all_branches(self, uri: str, node: Any) -> list[tuple[str, dict[str, Any]]]:
        """`_branches` of a node, worked out once (a sheet of 50,000 list columns asks for the
        same few nodes again and again; the schema documents keep every node alive)."""
        key = (uri, id(node))
        found = self._branch_lists.get(key)
        if found is None:
            found = list(self._branches(uri, node, set()))
            self._branch_lists[key] = found
        return found

    def _branches(self, uri: str, node: Any, seen: set[int]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The node and every schema it includes by $ref, allOf, anyOf and oneOf."""
        if not isinstance(node, dict) or id(node) in seen or self.schemas is None:
            return
        seen.add(id(node))
        yield uri, node
        ref = node.get("$ref")
        if isinstance(ref, str):
            resolved = self.schemas._resolve(uri, ref)
            if resolved is not None:
                yield from self._branches(resolved[0], resolved[1], seen)
        for keyword in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(keyword, []) if isinstance(node.get(keyword), list) else []:
                yield from self._branches(uri, sub, seen)


def _types(node: dict[str, Any]) -> Iterator[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        yield kind
    elif isinstance(kind, list):
        yield from (k for k in kind if isinstance(k, str))
    values = [node["const"]] if "const" in node else node.get("enum", [])
    for value in values if isinstance(values, list) else []:
        yield json_type_name(value)
    if "properties" in node:
        yield "object"
    if "items" in node or "prefixItems" in node:
        yield "array"


class CellError(ValueError):
    """A cell that cannot become a field value; the message says why and how to fix it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def convert(value: Any, field: Field) -> Any:
    """The field value for one cell (ABSENT when empty); raises CellError for dates."""
    if value is None:
        return ABSENT
    if type(value) is str:
        if not value or value.isspace():
            return ABSENT
        if "\r" in value:
            value = value.replace("\r\n", "\n")
        return value if field.types == TEXT else _from_text(value, field)
    if isinstance(value, bool):
        return value if "boolean" in field.types or not field.types else _from_text(str(value).upper(), field)
    if isinstance(value, float | int):
        return _from_number(value, field)
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta):
        if field.date_format and not isinstance(value, datetime.timedelta):
            return value.isoformat()
        raise CellError(
            "date-cell",
            f"the cell holds a date or time ({value}), which a record cannot hold; "
            "format the cell as text (or as a number) in the spreadsheet",
        )
    return _from_text(str(value), field)


def _from_number(value: float | int, field: Field) -> Any:
    """A workbook number: an int where it is whole, text where the schema wants text."""
    whole = isinstance(value, int) or value.is_integer()
    number: int | float = int(value) if whole else value
    types = field.types
    if not types or types & {"integer", "number"} or ("array" in types and field.item_types & {"integer", "number"}):
        return [number] if "array" in types and not types & {"integer", "number"} else number
    if "string" in types or ("array" in types and "string" in field.item_types):
        return _from_text(str(number), field)
    if "boolean" in types and number in (0, 1):
        return bool(number)
    return number


def _from_text(text: str, field: Field) -> Any:
    types = field.types
    if not types:
        return text
    if "array" in types and "string" not in types:
        return _list(text, field)
    if "object" in types and "string" not in types and text.lstrip().startswith("{"):
        return _json_or_text(text)
    return _scalar(text, types)


def _scalar(text: str, types: frozenset[str]) -> Any:
    stripped = text.strip()
    if "integer" in types and INTEGER.fullmatch(stripped):
        return int(stripped)
    if "number" in types and NUMBER.fullmatch(stripped):
        number = float(stripped)
        return int(number) if number.is_integer() and "integer" in types else number
    if "boolean" in types:
        word = stripped.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    if "null" in types and stripped.lower() == "null" and "string" not in types:
        return None
    return text  # as written: the schema check reports a wrong type at this cell


def _list(text: str, field: Field) -> Any:
    """A list in one cell: a JSON array, or items split by the declared separator."""
    if text.lstrip().startswith("["):
        return _json_or_text(text)
    if not field.separator:
        raise CellError(
            "list-cell",
            "this column holds a list: name one item per column (tags.0, tags.1, ...), or declare a "
            'separator ("x-separator": ";" in the schema, or list-separator in pnp.toml [sources])',
        )
    items = [item.strip() for item in text.split(field.separator.strip() or field.separator)]
    item_types = field.item_types or frozenset({"string"})
    return [_scalar(item, item_types) for item in items if item]


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
