"""pnp.toml [kinds]: kinds declared by the project, mapped to its files as they are.

    [kinds."nr.card"]
    files = ["pack/*.json"]                 # globs from the project root
    id = "code"                             # the field that identifies a record (default "id")
    schema = "schema/v1/card_schema.json"   # any file name; an array schema applies per record
    refs = {pack_code = "nr.pack"}          # references to other kinds (dotted paths, '*')
    card = false                            # printed on sheets, not as cards

A record's kind is its `kind` field, else the kind of the file it sits in. The records are
never rewritten: loading gives pnp a view of each (pnp.project.records.declare_kind).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

KIND_KEYS = ("files", "id", "schema", "refs", "card")


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One [kinds."NAME"] table of pnp.toml."""

    name: str
    files: tuple[str, ...] = ()
    id: str = "id"
    schema: Path | None = None
    refs: dict[str, str] = field(default_factory=dict)
    card: bool | None = None  # None: as the schema says ("x-card")


Fail = Callable[[str, str | None, str], NoReturn]


def read_kinds(
    data: Any, root: Path, fail: Fail, hint: Callable[[str, list[str]], str], schema_folder: Path
) -> tuple[dict[str, KindSpec], dict[Path, str]]:
    """The [kinds] table checked (every mistake through `fail`, located at its key), and every
    file its globs match (resolved path -> kind; a file two kinds claim is a mistake)."""
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        fail("kinds", None, '[kinds] must hold tables such as [kinds."game.card"]')
    specs: dict[str, KindSpec] = {}
    files: dict[Path, str] = {}
    folder_kinds = sorted(p.name[: -len(".schema.json")] for p in schema_folder.glob("*.schema.json"))
    for name, table in data.items():
        where = f"kinds.{name}"
        if not isinstance(table, dict):
            fail("kinds", name, f'[kinds] {name!r} must be a table: [kinds."{name}"] with files, id, schema')
        for key in table:
            if key not in KIND_KEYS:
                fail(
                    where,
                    key,
                    f"unknown key {key!r} in [kinds.{name}]{hint(key, list(KIND_KEYS))}; keys: {', '.join(KIND_KEYS)}",
                )
        patterns = table.get("files", [])
        if isinstance(patterns, str):
            patterns = [patterns]
        if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
            fail(where, "files", f'[kinds.{name}] files must be a list of globs from the project root: ["pack/*.json"]')
        for pattern in patterns:
            problem = _glob_problem(pattern, root)
            if problem:
                fail(where, "files", f"[kinds.{name}] files: {pattern!r} {problem}")
            for found in _matches(pattern, root):
                if found in files and files[found] != name:
                    fail(
                        where,
                        "files",
                        f"[kinds.{name}] files: {pattern!r} matches {found.relative_to(root)}, "
                        f"which [kinds.{files[found]}] claims already; a file holds one kind",
                    )
                files[found] = name
        id_field = table.get("id", "id")
        if not isinstance(id_field, str) or not id_field:
            fail(where, "id", f'[kinds.{name}] id must name the field that identifies a record: id = "code"')
        schema = table.get("schema")
        schema_path: Path | None = None
        if schema is not None:
            if not isinstance(schema, str):
                fail(where, "schema", f'[kinds.{name}] schema must be a path such as "schema/card_schema.json"')
            schema_path = (root / schema).resolve()
            if not schema_path.is_relative_to(root):
                fail(where, "schema", f"[kinds.{name}] schema = {schema!r} points outside the project")
            if not schema_path.is_file():
                near = _near_files(root, schema)
                fail(where, "schema", f"[kinds.{name}] schema = {schema!r}: no such file{hint(schema, near)}")
        refs = table.get("refs", {})
        if not isinstance(refs, dict) or not all(isinstance(k, str) and k for k in refs):
            fail(where, "refs", f'[kinds.{name}] refs must map fields to kinds: refs = {{pack_code = "game.pack"}}')
        card = table.get("card")
        if card is not None and not isinstance(card, bool):
            fail(where, "card", f"[kinds.{name}] card must be true or false")
        specs[name] = KindSpec(name, tuple(patterns), id_field, schema_path, dict(refs), card)
    known = sorted({*specs, *folder_kinds})
    for spec in specs.values():
        for key, target in spec.refs.items():
            if not isinstance(target, str) or target not in known:
                fail(
                    f"kinds.{spec.name}",
                    "refs",
                    f"[kinds.{spec.name}] refs: {key} = {target!r} names no kind{hint(str(target), known)}; "
                    f"kinds: {', '.join(known) or 'none'}",
                )
    return specs, files


def _glob_problem(pattern: str, root: Path) -> str:
    if os.path.isabs(pattern) or pattern.startswith(("/", "\\")) or (len(pattern) > 1 and pattern[1] == ":"):
        return "is an absolute path; write globs from the project root, such as 'pack/*.json'"
    if ".." in Path(pattern).parts:
        return "leaves the project (through ..); write globs from the project root"
    return ""


def _matches(pattern: str, root: Path) -> list[Path]:
    """Files the glob matches inside the project (a symlink out of it is left to loading)."""
    found: list[Path] = []
    for match in sorted(glob.glob(pattern, root_dir=root, recursive=True)):
        path = root / match
        if path.is_file() or (path.is_symlink() and not path.is_dir()):
            found.append(Path(os.path.abspath(path)))
    return found


def _near_files(root: Path, wanted: str) -> list[str]:
    """JSON files near where a schema was expected, for a did-you-mean."""
    folder = (root / wanted).parent
    if not folder.is_dir() or not folder.resolve().is_relative_to(root):
        return []
    return [str(Path(wanted).parent / p.name) for p in sorted(folder.glob("*.json"))[:200]]
