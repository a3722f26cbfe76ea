"""The schemas of kinds declared in pnp.toml [kinds], used as the project has them.

Any file name; `$id` optional (the file's own URI stands in); the draft its `$schema` names
(2020-12 without one); a schema of a whole file (`"type": "array"` with `items`) applied to
each record through its `items`; `$ref`s to sibling files followed, and to the standard
meta-schemas resolved offline (jsonschema-rs holds them). Nothing here is ever fetched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urldefrag, urljoin, urlparse

import jsonschema_rs

from pnp.core.paths import RefusedFile, read_regular
from pnp.core.problems import ConfigError
from pnp.project.jsonfile import parse_bytes

if TYPE_CHECKING:
    from pnp.project.kindspec import KindSpec


class SchemaStore(Protocol):
    """What this module fills in of pnp.project.schemas.SchemaSet (which calls it)."""

    declared: dict[str, KindSpec]
    docs: dict[str, dict[str, Any]]
    kind_uri: dict[str, str]
    kind_file: dict[str, Path]
    file_of_uri: dict[str, Path]
    file_schema: dict[str, str]
    root: Path | None


KIND_URI = "urn:pnp:kind:"  # the record schema of a declared kind: a $ref to where it is
META_HOSTS = ("json-schema.org",)
SCHEMA_MAX_BYTES = 20 * 1024 * 1024


def load_declared(schemas: SchemaStore) -> None:
    """Add every declared kind's schema (and the files they refer to) to `schemas`."""
    for name, spec in schemas.declared.items():
        if name in schemas.kind_uri:
            raise ConfigError(
                f"{schemas.kind_file[name]}: kind {name!r} has this schema and a [kinds.{name}] table "
                "in pnp.toml; declare it in one place"
            )
        record_uri = KIND_URI + name
        if spec.schema is None:  # no schema: every record of the kind is accepted as it is
            schemas.docs[record_uri] = {}
            schemas.kind_uri[name] = record_uri
            continue
        uri = _read(schemas, spec.schema)
        schema = schemas.docs[uri]
        if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
            schemas.docs[record_uri] = {"$ref": uri + "#/items"}
            schemas.kind_uri[name] = record_uri
            schemas.file_schema[name] = uri
        else:
            schemas.kind_uri[name] = uri
        schemas.kind_file[name] = spec.schema
    _follow_refs(schemas)


def _read(schemas: SchemaStore, path: Path, uri: str | None = None) -> str:
    """Read one schema file into `schemas.docs`; its URI (its `$id`, else `uri` or its file URI)."""
    for known, file in schemas.file_of_uri.items():
        if file == path:
            return known
    try:
        raw = read_regular(path, SCHEMA_MAX_BYTES, schemas.root)
    except RefusedFile as refused:
        raise ConfigError(f"{path}: {refused.message}") from None
    parsed = parse_bytes(raw)
    if not parsed.ok or parsed.findings or not isinstance(parsed.data, dict):
        detail = parsed.findings[0].message if parsed.findings else "not a JSON object"
        raise ConfigError(f"{path}: schema is not valid JSON: {detail}")
    schema: dict[str, Any] = parsed.data
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as err:
        where = "/".join(str(p) for p in err.instance_path)
        raise ConfigError(f"{path}: not a valid JSON Schema at /{where}: {err.message}") from None
    except ValueError as err:  # an unknown $schema
        raise ConfigError(f"{path}: {err}; name a JSON Schema draft in $schema (draft-07, 2020-12)") from None
    own = schema.get("$id") if isinstance(schema.get("$id"), str) else schema.get("id")
    found = own if isinstance(own, str) and urlparse(own).scheme else (uri or path.as_uri())
    found = urldefrag(found)[0]
    if found in schemas.docs:  # two files with one $id: the second under its own file URI
        found = path.as_uri()
    schemas.docs[found] = schema
    schemas.file_of_uri[found] = path
    return found


def _follow_refs(schemas: SchemaStore) -> None:
    """Read the files declared schemas refer to: by their URI's file name, beside the schema
    that names them (an `$id` on a web address still names a file of the project)."""
    pending = list(schemas.file_of_uri.items())
    while pending:
        uri, path = pending.pop()
        for ref in schema_refs(schemas.docs[uri]):
            target = urldefrag(urljoin(uri, ref))[0]
            if not target or target in schemas.docs or urlparse(target).netloc in META_HOSTS:
                continue
            name = Path(urlparse(target).path).name
            candidate = path.parent / name
            if name and candidate.is_file():
                pending.append((_read(schemas, candidate, target), candidate))


def add_meta_schemas(docs: dict[str, dict[str, Any]]) -> None:
    """The standard meta-schemas the documents refer to ($ref to draft-07 or 2020-12), from the
    copies the jsonschema package ships: resolved offline, never fetched."""
    wanted = {
        target
        for uri, doc in list(docs.items())
        for ref in schema_refs(doc)
        if urlparse(target := urldefrag(urljoin(uri, ref))[0]).netloc in META_HOSTS and target not in docs
    }
    if not wanted:
        return
    from jsonschema_specifications import REGISTRY  # the jsonschema package's own dependency

    for target in wanted:
        family = target.rsplit("/", 1)[0] + "/" if "/draft/" in target else target
        for uri in REGISTRY:
            if (uri == target or uri.startswith(family)) and uri not in docs:
                docs[uri] = REGISTRY.contents(uri)


def schema_refs(node: Any) -> Iterator[str]:
    """Every "$ref" string of a schema document (not inside enum, const, examples or default)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                yield item["$ref"]
            stack.extend(v for k, v in item.items() if k not in ("enum", "const", "examples", "default"))
        elif isinstance(item, list):
            stack.extend(item)
