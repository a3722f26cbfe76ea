"""Stage 2: the kind schemas: loading, validation, and what they declare beyond validation.

Schemas are JSON Schema 2020-12, validated by jsonschema-rs (see README: it reports every
error with full 2020-12 support at ~100x the speed of the reference implementation).
Beyond validation, schemas declare (with `x-` keywords that validators ignore) which fields are
references (`x-ref`, `x-ref-by`), which hold text with inline icons (`x-text`), which are
paths to assets (`x-asset`), and consistency rules between fields (`x-max`: a number at most
the value(s) at relative JSON pointers; `x-covers`: an array whose items' `key` covers a list
or {min, max} range elsewhere). `sites()` finds them once per kind so checks never hard-code fields.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

import jsonschema_rs

from pnp.core.paths import RefusedFile, read_regular
from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding
from pnp.project.config import ConfigError
from pnp.project.jsonfile import json_type_name, parse_bytes

if TYPE_CHECKING:
    from pnp.project.kindspec import KindSpec

KIND_SUFFIX = ".schema.json"
SCHEMA_MAX_BYTES = 20 * 1024 * 1024


@lru_cache(maxsize=4096)
def closest(word: str, options: tuple[str, ...]) -> tuple[str, ...]:
    """difflib's closest option to `word` (cutoff 0.6), as a list of at most one. Remembered: the
    same mistake repeated over thousands of records (a misspelt enum value, a stray property) is
    compared with its options once, not once per record."""
    return tuple(difflib.get_close_matches(word, options, n=1, cutoff=0.6))


@dataclass(frozen=True, slots=True)
class Site:
    """A place in a kind's records that a cross-check looks at.

    `path` is a tuple of keys, with '*' for every item of an array or value of a map.
    """

    path: tuple[str, ...]
    what: str  # "ref", "text", "asset", "max" or "covers"
    kinds: tuple[str, ...] = ()  # ref: target kinds; max / covers: relative JSON pointers
    by: str = "id"
    asset: str = ""


class SchemaDocs:
    """Schema documents by $id, and turning validator errors into findings with messages that
    say how to fix them (every allowed value, the closest name)."""

    def __init__(self, docs: dict[str, dict[str, Any]] | None = None) -> None:
        self.docs: dict[str, dict[str, Any]] = docs or {}

    def translate(self, error: Any, prefix: str) -> Iterator[Finding]:
        pointer = prefix + "".join("/" + escape(str(p)) for p in error.instance_path)
        name = error.kind.name
        details = error.kind.as_dict()
        instance = error.instance
        if name in ("oneOf", "anyOf") and details.get("context"):
            yield from self._best_branch(error, details["context"], prefix, pointer)
            return
        if name == "additionalProperties" or name == "unevaluatedProperties":
            location = error.absolute_keyword_location
            allowed = self._allowed_properties(location) if location else []
            for key in details.get("unexpected", []):
                close = closest(key, tuple(allowed))
                hint = f"did you mean {close[0]!r}? " if close else "remove it, or "
                allowed_text = ", ".join(allowed) if allowed else "none"
                yield Finding(
                    "unexpected-property",
                    f"unexpected property {key!r}; {hint}allowed here: {allowed_text}"
                    if location
                    else f"unexpected property {key!r}; remove it",
                    pointer=pointer + "/" + escape(key),
                    at_key=True,
                )
            return
        if name == "required":
            prop = details.get("property")
            missing = prop if isinstance(prop, str) else ""
            yield Finding("required-property", f"missing required property {prop!r}; add it", pointer, missing=missing)
            return
        if name == "enum":
            options = details.get("options", [])
            allowed_text = ", ".join(_show(o) for o in options)
            close = (
                closest(instance, tuple(o for o in options if isinstance(o, str))) if isinstance(instance, str) else ()
            )
            hint = f"; did you mean {_show(close[0])}?" if close else ""
            yield Finding(
                "enum-mismatch", f"{_show(instance)} is not allowed; use one of: {allowed_text}{hint}", pointer
            )
            return
        if name == "const":
            expected = details.get("expected_value")
            yield Finding("const-mismatch", f"{_show(instance)} must be {_show(expected)}", pointer)
            return
        if name == "type":
            types = details.get("types") or [details.get("type")]
            wanted = " or ".join(str(t) for t in types if t)
            yield Finding(
                "type-mismatch", f"expected {wanted}, got {json_type_name(instance)} {_show(instance)}", pointer
            )
            return
        if name == "pattern":
            pattern = details.get("pattern", "")
            hint = ""
            if pattern.startswith("^[a-z0-9]+(-[a-z0-9]+)*$") and isinstance(instance, str):
                hint = f"; ids are lowercase kebab-case, such as {_kebab(instance)!r}"
            yield Finding("pattern-mismatch", f"{_show(instance)} does not match {pattern}{hint}", pointer)
            return
        code = {
            "minimum": "out-of-range",
            "maximum": "out-of-range",
            "exclusiveMinimum": "out-of-range",
            "exclusiveMaximum": "out-of-range",
            "multipleOf": "out-of-range",
            "minLength": "wrong-length",
            "maxLength": "wrong-length",
            "minItems": "wrong-length",
            "maxItems": "wrong-length",
            "minProperties": "wrong-length",
            "maxProperties": "wrong-length",
            "uniqueItems": "not-unique",
        }.get(name, "schema-violation")
        yield Finding(code, _without_instance(error), pointer)

    def _best_branch(self, error: Any, branches: list[list[Any]], prefix: str, pointer: str) -> Iterator[Finding]:
        """A failed oneOf / anyOf as what a maintainer can act on: where every branch wants
        another type or value, one finding naming them all; else the errors of the branch that
        matched best (the fewest errors among those of the value's own type)."""
        depth = len(error.instance_path)
        instance = error.instance

        def shape(errors: list[Any]) -> list[Any]:
            return [e for e in errors if len(e.instance_path) == depth and e.kind.name in ("type", "const", "enum")]

        fitting = [errors for errors in branches if not shape(errors)]
        if fitting:
            best = min(fitting, key=len)
            seen: set[tuple[str, str]] = set()
            for sub in best:
                for finding in self.translate(sub, prefix):
                    if (finding.pointer, finding.message) not in seen:
                        seen.add((finding.pointer, finding.message))
                        yield finding
            return
        types: list[str] = []
        for errors in branches:
            for sub in shape(errors):
                if sub.kind.name != "type":  # a value outside a const or enum: the rule as written
                    yield Finding("schema-violation", _without_instance(error), pointer)
                    return
                sub_details = sub.kind.as_dict()
                types.extend(str(t) for t in (sub_details.get("types") or [sub_details.get("type")]) if t)
        wanted = " or ".join(dict.fromkeys(types))
        yield Finding("type-mismatch", f"expected {wanted}, got {json_type_name(instance)} {_show(instance)}", pointer)

    def _allowed_properties(self, location: str) -> list[str]:
        uri, fragment = urldefrag(location)
        node: Any = self.docs.get(uri)
        parts = [p for p in fragment.split("/") if p][:-1]  # drop the keyword itself
        for part in parts:
            if isinstance(node, dict):
                node = node.get(unescape(part))
            elif isinstance(node, list) and part.isdigit():
                node = node[int(part)]
        props: set[str] = set()
        if isinstance(node, dict):
            props.update(node.get("properties", {}))
            for sub in node.get("allOf", []):
                resolved = self._resolve(uri, str(sub["$ref"])) if isinstance(sub, dict) and "$ref" in sub else None
                if resolved is not None:
                    props.update(resolved[1].get("properties", {}))
            if "$ref" in node:
                resolved = self._resolve(uri, node["$ref"])
                if resolved is not None:
                    props.update(resolved[1].get("properties", {}))
        return sorted(props)

    def _resolve(self, base: str, ref: str) -> tuple[str, Any] | None:
        target = urljoin(base, ref)
        uri, fragment = urldefrag(target)
        node: Any = self.docs.get(uri)
        for part in (p for p in fragment.split("/") if p):
            if not isinstance(node, dict):
                return None
            node = node.get(unescape(part))
        return (uri, node) if node is not None else None


class SchemaSet(SchemaDocs):
    """Every schema of a project, by kind, with compiled validators made on first use."""

    def __init__(self, folder: Path, declared: dict[str, KindSpec] | None = None, root: Path | None = None) -> None:
        super().__init__()
        self.folder = folder
        self.root = root  # the project's: a schema that links out of it is never read
        self.declared = declared or {}
        self.kind_uri: dict[str, str] = {}
        self.kind_file: dict[str, Path] = {}
        self.file_of_uri: dict[str, Path] = {}
        self.file_schema: dict[str, str] = {}  # declared kind -> its array schema (of a whole file)
        self._validators: dict[str, Any] = {}
        self._array_validators: dict[str, Any] = {}
        self._sites: dict[str, tuple[Site, ...]] = {}
        if self.declared and not folder.is_dir():
            pass  # a project whose kinds name their schemas needs no schemas/ folder
        else:
            self._load()
        if self.declared:
            from pnp.project.declared import load_declared

            load_declared(self)
        from pnp.project.declared import add_meta_schemas

        add_meta_schemas(self.docs)
        try:
            self.registry = jsonschema_rs.Registry(list(self.docs.items()))
        except ValueError as err:  # a $ref to a schema that is not in the folder: never fetched
            raise ConfigError(_unresolved_ref_message(self.docs, self.file_of_uri, self.folder, err)) from None

    def _load(self) -> None:
        if not self.folder.is_dir():
            raise ConfigError(f"{self.folder}: schema folder does not exist (set 'schemas' in pnp.toml)")
        for path in sorted(self.folder.glob(f"*{KIND_SUFFIX}")):
            try:
                raw = read_regular(path, SCHEMA_MAX_BYTES, self.root)
            except RefusedFile as refused:  # a pipe, a device, a huge file: never read
                raise ConfigError(f"{path}: {refused.message}") from None
            parsed = parse_bytes(raw)
            if not parsed.ok or parsed.findings or not isinstance(parsed.data, dict):
                detail = parsed.findings[0].message if parsed.findings else "not a JSON object"
                raise ConfigError(f"{path}: schema is not valid JSON: {detail}")
            schema = parsed.data
            try:
                jsonschema_rs.meta.validate(schema)
            except jsonschema_rs.ValidationError as err:
                where = "/".join(str(p) for p in err.instance_path)
                raise ConfigError(f"{path}: not a valid JSON Schema at /{where}: {err.message}") from None
            uri = schema.get("$id")
            if not isinstance(uri, str):
                raise ConfigError(f'{path}: schema has no "$id"; add one ending in {path.name}')
            if uri in self.file_of_uri:  # a copied schema whose $id was kept would replace the first
                raise ConfigError(
                    f'{path}: "$id" {uri} is also the "$id" of {self.file_of_uri[uri].name}; '
                    f"give each schema its own, such as one ending in {path.name}"
                )
            self.docs[uri] = schema
            self.file_of_uri[uri] = path
            kind = _declared_kind(schema)
            stem = path.name[: -len(KIND_SUFFIX)]
            if kind is None:
                continue
            if kind != stem:
                raise ConfigError(f"{path}: declares kind {kind!r}; the file must be named {kind}{KIND_SUFFIX}")
            self.kind_uri[kind] = uri
            self.kind_file[kind] = path

    @property
    def kinds(self) -> list[str]:
        return sorted(self.kind_uri)

    def is_card(self, kind: str) -> bool:
        """False for kinds printed as sheets or tables, not cards (schema says "x-card": false,
        or pnp.toml [kinds] card = false)."""
        spec = self.declared.get(kind)
        if spec is not None and spec.card is not None:
            return spec.card
        return bool(self.docs[self.kind_uri[kind]].get("x-card", True))

    def validator(self, kind: str) -> Any:
        found = self._validators.get(kind)
        if found is None:
            uri = self.kind_uri[kind]
            found = self._compile(kind, self.docs[uri])
            self._validators[kind] = found
        return found

    def array_validator(self, kind: str) -> Any:
        """Validates a whole array of records of one kind in one call (the fast path)."""
        found = self._array_validators.get(kind)
        if found is None and kind in self.file_schema:  # the project's own schema of a whole file
            found = self._compile(kind, {"$ref": self.file_schema[kind]})
            self._array_validators[kind] = found
        if found is None:
            wrapper = {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "array",
                "items": {"$ref": self.kind_uri[kind]},
            }
            found = self._compile(kind, wrapper)
            self._array_validators[kind] = found
        return found

    def _compile(self, kind: str, schema: dict[str, Any]) -> Any:
        """A validator; a schema that cannot be compiled (a $ref to nothing) is a configuration error."""
        try:
            return jsonschema_rs.validator_for(schema, registry=self.registry)
        except jsonschema_rs.ValidationError as err:
            path = self.kind_file[kind]
            hint = (
                "write the pattern as a regular expression of JSON Schema (ECMA-262)"
                if '"regex"' in err.message
                else "check its $ref values (and those of the schemas it refers to)"
            )
            raise ConfigError(f"{path}: the schema of {kind} cannot be used: {err.message}; {hint}") from None

    def unknown_kind_message(self, kind: object) -> str:
        known = self.kinds
        if not isinstance(kind, str):
            return f"kind must be a string naming a schema; known kinds: {', '.join(known)}"
        ranked = sorted(known, key=lambda k: -difflib.SequenceMatcher(None, kind, k).ratio())
        close = difflib.get_close_matches(kind, known, n=1, cutoff=0.75)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown kind {kind!r}; {hint}known kinds, closest first: {', '.join(ranked)}"

    # --- validation ---------------------------------------------------------------------

    def validate(self, kind: str, record: Any, pointer: str) -> Iterator[Finding]:
        """Every schema error of one record, as findings with the record's pointer prefix."""
        for error in self.validator(kind).iter_errors(record):
            yield from self.translate(error, pointer)

    def validate_array(self, kind: str, records: list[Any]) -> Iterator[Finding]:
        """Every schema error of an array of records of one kind (pointers start at the index)."""
        for error in self.array_validator(kind).iter_errors(records):
            yield from self.translate(error, "")

    # --- declarations beyond validation ---------------------------------------------------

    def sites(self, kind: str) -> tuple[Site, ...]:
        found = self._sites.get(kind)
        if found is None:
            uri = self.kind_uri[kind]
            found = tuple(_walk(self, uri, self.docs[uri], (), set()))
            spec = self.declared.get(kind)
            if spec is not None:  # pnp.toml [kinds] refs: references the schema does not declare
                found += tuple(Site(tuple(key.split(".")), "ref", (target,)) for key, target in spec.refs.items())
            self._sites[kind] = found
        return found

    def properties(self, kind: str) -> dict[str, Any]:
        """Top-level properties a kind's records may have (following $ref and allOf)."""
        uri = self.kind_uri[kind]
        return _collect_properties(self, uri, self.docs[uri], set())


def _collect_properties(schemas: SchemaSet, uri: str, node: Any, seen: set[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(node, dict) or id(node) in seen:
        return out
    seen.add(id(node))
    out.update(node.get("properties", {}))
    if "$ref" in node:
        resolved = schemas._resolve(uri, node["$ref"])
        if resolved is not None:
            for key, value in _collect_properties(schemas, resolved[0], resolved[1], seen).items():
                out.setdefault(key, value)
    for sub in node.get("allOf", []):
        out.update(_collect_properties(schemas, uri, sub, seen))
    return out


def _walk(
    schemas: SchemaSet, uri: str, node: Any, path: tuple[str, ...], active: set[tuple[str, int]]
) -> Iterator[Site]:
    if not isinstance(node, dict):
        return
    marker = (uri, id(node))
    if marker in active:
        return
    active = active | {marker}
    if "x-ref" in node:
        kinds = node["x-ref"]
        yield Site(path, "ref", tuple(kinds) if isinstance(kinds, list) else (kinds,), node.get("x-ref-by", "id"))
    if node.get("x-text"):
        yield Site(path, "text")
    if "x-translate" in node:  # pnp.translation.translate: true adds a field to the catalogs, false keeps one out
        yield Site(path, "translate" if node["x-translate"] else "no-translate")
    if "x-asset" in node:
        yield Site(path, "asset", asset=str(node["x-asset"]))
    if "x-max" in node:
        bounds = node["x-max"]
        yield Site(path, "max", kinds=tuple(bounds) if isinstance(bounds, list) else (bounds,))
    if isinstance(node.get("x-covers"), dict):
        covers = node["x-covers"]
        yield Site(path, "covers", kinds=(str(covers.get("values", "")),), by=str(covers.get("key", "")))
    if "$ref" in node:
        resolved = schemas._resolve(uri, node["$ref"])
        if resolved is not None:
            yield from _walk(schemas, resolved[0], resolved[1], path, active)
    for key, sub in node.get("properties", {}).items():
        yield from _walk(schemas, uri, sub, (*path, key), active)
    for sub in node.get("patternProperties", {}).values():
        yield from _walk(schemas, uri, sub, (*path, "*"), active)
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(schemas, uri, node["additionalProperties"], (*path, "*"), active)
    if isinstance(node.get("items"), dict):
        yield from _walk(schemas, uri, node["items"], (*path, "*"), active)
    for sub in node.get("prefixItems", []):
        yield from _walk(schemas, uri, sub, (*path, "*"), active)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(keyword, []):
            yield from _walk(schemas, uri, sub, path, active)
    for keyword in ("if", "then", "else"):
        yield from _walk(schemas, uri, node.get(keyword), path, active)


def _unresolved_ref_message(
    docs: dict[str, dict[str, Any]], files: dict[str, Path], folder: Path, err: ValueError
) -> str:
    """Which schema has a $ref to a schema the folder does not hold, and what to write instead."""
    text = str(err)
    missing = text.split("'")[1] if text.count("'") >= 2 else ""
    from pnp.project.declared import schema_refs

    where = str(folder)
    for uri, schema in docs.items():
        if any(urldefrag(urljoin(uri, ref))[0] == missing for ref in schema_refs(schema)):
            where = str(files.get(uri, folder))
            break
    return (
        f"{where}: a $ref names {missing or 'a schema'}, which is no schema of {folder.name}/ "
        "(pnp never fetches schemas from elsewhere); point it at a schema file of this folder, "
        "such as common.schema.json#/$defs/NAME"
    )


def _declared_kind(schema: dict[str, Any]) -> str | None:
    kind = schema.get("properties", {}).get("kind", {})
    const = kind.get("const") if isinstance(kind, dict) else None
    return const if isinstance(const, str) else None


def _without_instance(error: Any) -> str:
    """The validator's message without a whole object or array dumped into it (the finding is
    located at it already): 'this object has less than 5 properties'."""
    import json

    message: str = error.message
    instance = error.instance
    if isinstance(instance, (dict, list)):
        dumped = json.dumps(instance, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        what = "this object" if isinstance(instance, dict) else "this array"
        if len(dumped) > 60 and dumped in message:  # a short one reads well: ["a","a"] has non-unique elements
            return message.replace(dumped, what)
    if len(message) > 300:
        return message[:297] + "..."
    return message


def _show(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _kebab(value: str) -> str:
    import re

    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-") or "my-id"
