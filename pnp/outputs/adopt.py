"""`pnp adopt`: a starting pnp.toml ([kinds]) guessed from an existing card-data repository.

It reads the repository and writes one file, pnp.toml, for a person to review (docs/adopting.md):

- record files: JSON or YAML arrays of objects, and the one-object files of a folder below the
  root that share an id-like field (one object elsewhere is a settings file, a package.json: not
  records); files of one folder below the root make one kind, a file at the root one kind;
- schemas: `*_schema.json`, `*.schema.json` and any JSON under a `schema/` or `schemas/` folder;
  each kind gets the schema most of its records pass (a schema of a whole file, an array, is
  tried on each record as a one-item array), a name match breaking ties;
- the id field: a field every record has, with unique strings or integers, `code`, `id` or
  `key` first, then names such as `slug`, `number`, `*_id`;
- references: fields named `<x>_code` or `<x>_id` whose values are, nearly all, ids of another
  kind (a few dangling ones are what `pnp check` is for);
- `card = false` for lookup kinds: kinds other kinds refer to.

Every guess comes with its reason, printed and written beside it as a comment.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKIPPED_FOLDERS = {"node_modules", "output", "dist", "build", "vendor", "__pycache__", "venv", ".venv"}
PREFERRED_IDS = ("code", "id", "key")
ID_LIKE = re.compile(r"(^|_)(id|code|key|slug|uuid|number|no)$", re.IGNORECASE)  # next, before any other field
RECORD_KEYWORDS = ("type", "properties", "required", "items", "$ref", "allOf", "anyOf", "oneOf", "enum", "const")
REF_SHARE = 0.8  # references: at least this share of a field's values are ids of the kind (a few dangle)
MAX_BYTES = 64 * 1024 * 1024  # a file larger than this is not inspected


@dataclass
class Guess:
    """One kind: its files, schema, id field, references, and why each was chosen."""

    name: str
    files: list[str]
    records: list[dict[str, Any]]
    schema: str | None = None
    id: str | None = None
    refs: dict[str, str] = field(default_factory=dict)
    card: bool = True
    reasons: list[str] = field(default_factory=list)


def adopt(root: Path) -> tuple[str, list[Guess], list[str]]:
    """The pnp.toml text for the repository at `root`, the kinds guessed, and notes (what was left out)."""
    notes: list[str] = []
    schemas, data = _scan(root, notes)
    prefix = re.sub(r"[^a-z0-9]+", "-", root.resolve().name.lower()).strip("-") or "game"
    guesses = _group(data, set(schemas), prefix, root)
    taken: set[str] = set()
    retrieve = _retriever(root, schemas)
    for guess in guesses:
        _match_schema(root, guess, schemas, prefix, taken, retrieve)
    seen: Counter[str] = Counter()
    for guess in guesses:  # two kinds of one name (two files matching one schema): numbered
        seen[guess.name] += 1
        if seen[guess.name] > 1:
            guess.name = f"{guess.name}-{seen[guess.name]}"
        _guess_id(guess)
    _guess_refs(guesses)
    referenced = {target for g in guesses for target in g.refs.values()}
    for guess in guesses:
        if guess.name in referenced:
            guess.card = False
            guess.reasons.append("card = false: other kinds refer to it (a lookup table, printed on sheets)")
    unused = sorted(set(schemas) - taken)
    if unused:
        notes.append(f"schemas given to no kind (definitions, or no kind's records pass them): {', '.join(unused)}")
    return _toml(root.resolve().name, guesses), guesses, notes


def _scan(root: Path, notes: list[str]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(schema path -> schema, record file path -> records), paths relative to `root`, POSIX.
    Records: arrays of objects, and one-record files: the objects of a folder below the root
    (two or more, no arrays beside them) that share a field with unique values (an id)."""
    schemas: dict[str, Any] = {}
    data: dict[str, list[dict[str, Any]]] = {}
    objects: dict[str, dict[str, dict[str, Any]]] = {}  # folder -> file -> object
    paths: list[Path] = []
    for folder, folders, names in os.walk(root):  # links are not followed: nothing outside is read
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        paths.extend(Path(folder) / name for name in names)
    for path in sorted(paths):
        relative = path.relative_to(root)
        if path.name.startswith(".") or path.is_symlink() or not path.is_file():
            continue
        if path.suffix not in (".json", ".yaml", ".yml"):
            continue
        value, problem = _read(path, root)
        if problem:
            notes.append(f"{relative.as_posix()}: not inspected ({problem}); pnp check says more if it holds records")
            continue
        name = relative.as_posix()
        if _is_schema(relative, value):
            schemas[name] = value
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            data[name] = value
        elif isinstance(value, dict) and "/" in name:
            objects.setdefault(name.rpartition("/")[0], {})[name] = value
    array_folders = {name.rpartition("/")[0] for name in data}
    for folder, found in objects.items():
        if len(found) > 1 and folder not in array_folders and _id_candidates(list(found.values())):
            data.update((name, [record]) for name, record in found.items())
    return schemas, data


def _read(path: Path, root: Path) -> tuple[Any, str]:
    """A JSON or YAML file's value, read as pnp check reads it (a regular file, bounded YAML
    aliases, no duplicate keys), or why not."""
    from pnp.core.paths import RefusedFile, read_regular
    from pnp.project.jsonfile import parse_bytes
    from pnp.project.yamlfile import load_yaml

    if path.suffix == ".json":
        try:
            parsed = parse_bytes(read_regular(path, MAX_BYTES, root))
        except RefusedFile as refused:
            return None, refused.message
        if not parsed.ok or parsed.data is None:
            return None, parsed.findings[0].message if parsed.findings else "not JSON"
        return parsed.data, ""
    loaded = load_yaml(path, path.name, MAX_BYTES, root, records=True)
    errors = [f.message for f in loaded.findings if f.code not in ("not-a-record", "empty-file")]
    if errors:
        return None, errors[0]
    return (loaded.records, "") if loaded.is_array else (None, "")  # a mapping (mkdocs.yml): no records


def _is_schema(relative: Path, value: Any) -> bool:
    name = relative.name
    named = name.endswith(("_schema.json", ".schema.json")) or any(
        p in ("schema", "schemas") for p in relative.parts[:-1]
    )
    return relative.suffix == ".json" and isinstance(value, dict) and (named or "$schema" in value)


def _group(data: dict[str, list[dict[str, Any]]], schemas: set[str], prefix: str, root: Path) -> list[Guess]:
    """Files of one folder below the root: one kind (`folder/*.json`, or the files by name where
    the folder holds other files of that suffix); a file at the root: one kind."""
    by_folder: dict[str, list[str]] = {}
    for name in data:
        folder = name.rpartition("/")[0]
        by_folder.setdefault(folder, []).append(name)
    guesses: list[Guess] = []
    for folder, names in sorted(by_folder.items()):
        if folder and len(names) > 1:
            suffixes = sorted({Path(n).suffix for n in names})
            others = [
                p for s in suffixes for p in (root / folder).glob(f"*{s}") if p.relative_to(root).as_posix() not in data
            ]
            files = sorted(names) if others else [f"{folder}/*{s}" for s in suffixes]
            records = [r for n in names for r in data[n]]
            guess = Guess(f"{prefix}.{_singular(folder.rpartition('/')[2])}", files, records)
            guess.reasons.append(f"files: the {len(names)} record files of {folder}/")
            guesses.append(guess)
            continue
        for name in names:
            guess = Guess(f"{prefix}.{_singular(Path(name).stem)}", [name], list(data[name]))
            guess.reasons.append(f"files: {name} holds an array of {len(data[name])} records")
            guesses.append(guess)
    return guesses


def _singular(word: str) -> str:
    word = re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-") or "record"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _schema_stem(name: str) -> str:
    stem = Path(name).name
    for end in ("_schema.json", ".schema.json", ".json"):
        if stem.endswith(end):
            return _singular(stem[: -len(end)])
    return _singular(stem)


def _retriever(root: Path, schemas: dict[str, Any]) -> Callable[[str], Any]:
    """$refs between the repository's schemas, by file or by `$id`, offline: a $ref to anything
    else fails (the schema is then not proposed)."""
    by_uri: dict[str, Any] = {}
    by_name: dict[str, list[Any]] = {}
    for name, schema in schemas.items():
        by_uri[(root / name).resolve().as_uri()] = schema
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            by_uri.setdefault(schema["$id"].partition("#")[0], schema)
        by_name.setdefault(name.rpartition("/")[2], []).append(schema)

    def retrieve(uri: str) -> Any:
        base = uri.partition("#")[0]
        if base in by_uri:
            return by_uri[base]
        same_name = by_name.get(base.rpartition("/")[2], [])
        if len(same_name) == 1:  # a sibling named under a web $id that it does not declare
            return same_name[0]
        raise ValueError(f"{uri}: not a schema of this repository")

    return retrieve


def _match_schema(
    root: Path, guess: Guess, schemas: dict[str, Any], prefix: str, taken: set[str], retrieve: Callable[[str], Any]
) -> None:
    """The schema most of the kind's records pass; a schema's name then names the kind."""
    scored: list[tuple[float, bool, str]] = []
    short = guess.name.partition(".")[2]
    for name, schema in schemas.items():
        if not isinstance(schema, dict) or not any(key in schema for key in RECORD_KEYWORDS):
            continue  # definitions only (a common.json of $defs): it passes anything
        share = _share_valid(root / name, schema, guess.records, retrieve)
        if share is not None and share >= 0.5:
            scored.append((share, _schema_stem(name) == short, name))
    if not scored:
        guess.reasons.append("schema: none (no schema file passes most of its records); add one if there is")
        return
    share, _, best = max(scored)
    guess.schema = best
    taken.add(best)
    guess.name = f"{prefix}.{_schema_stem(best)}"
    guess.reasons.append(f"schema: {best} ({share:.0%} of its records pass it); the kind is named after it")


def _share_valid(
    path: Path, schema: Any, records: list[dict[str, Any]], retrieve: Callable[[str], Any]
) -> float | None:
    """The share of `records` valid against `schema` (an array schema: each record as a one-item
    array); None where the schema cannot be used offline (a $ref to another file, a bad schema)."""
    import jsonschema_rs

    try:
        validator = jsonschema_rs.validator_for(schema, retriever=retrieve, base_uri=path.resolve().as_uri())
    except Exception:  # noqa: BLE001 - a schema this guess cannot compile is not proposed
        return None
    whole_file = schema.get("type") == "array" if isinstance(schema, dict) else False
    try:
        valid = sum(validator.is_valid([r] if whole_file else r) for r in records)
    except Exception:  # noqa: BLE001 - an unresolvable reference while validating
        return None
    return valid / len(records) if records else None


def _id_candidates(records: list[dict[str, Any]]) -> list[str]:
    """Fields every record has, with unique strings or integers."""
    common = set.intersection(*(set(r) for r in records)) if records else set()
    found = []
    for name in sorted(common):
        values = [r[name] for r in records]
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values) and len(set(values)) == len(
            values
        ):
            found.append(name)
    return found


def _guess_id(guess: Guess) -> None:
    """A field every record has, with unique strings or integers: `code`, `id` or `key` first,
    even with a few repeated values (mistakes `pnp check` then reports), then any other."""
    records = guess.records
    common = set(records[0]) if records else set()
    for record in records[1:]:
        common &= set(record)
    repeats: dict[str, int] = {}
    for name in sorted(common):
        values = [r[name] for r in records]
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            repeats[name] = len(values) - len(set(values))
    few = max(1, len(records) // 20)  # a preferred name may repeat a few values: those are mistakes
    preferred = [n for n in PREFERRED_IDS if repeats.get(n, few + 1) <= few]
    unique = sorted((n for n, count in repeats.items() if count == 0), key=lambda n: (not ID_LIKE.search(n), n))
    chosen: str | None = (preferred or unique or [""])[0] or None
    guess.id = chosen
    if chosen is None:
        guess.reasons.append("id: no field every record has with unique values; set it (default: id)")
    elif repeats[chosen]:
        guess.reasons.append(
            f"id = {chosen!r}: every record has it; {repeats[chosen]} repeated value(s): pnp check will say where"
        )
    else:
        why = "a preferred name" if chosen in PREFERRED_IDS else "no code, id or key field qualifies"
        guess.reasons.append(f"id = {chosen!r}: every record has it, with unique values ({why})")


def _guess_refs(guesses: list[Guess]) -> None:
    ids = {g.name: {r.get(g.id) for r in g.records} - {None} for g in guesses if g.id}
    for guess in guesses:
        fields = Counter(k for r in guess.records for k in r if k != guess.id)
        for name in sorted(fields):
            match = re.fullmatch(r"(.+)_(code|id)", name)
            if not match:
                continue
            values = [r[name] for r in guess.records if isinstance(r.get(name), (str, int))]
            if not values:
                continue
            best: tuple[bool, float, str] | None = None
            for other, known in ids.items():
                if other == guess.name:
                    continue
                share = sum(v in known for v in values) / len(values)
                named = other.partition(".")[2] == _singular(match.group(1))
                if share >= REF_SHARE and (best is None or (named, share) > best[:2]):
                    best = (named, share, other)
            if best is not None:
                guess.refs[name] = best[2]
                guess.reasons.append(f"refs: {name} -> {best[2]} ({best[1]:.0%} of its values are its ids)")


def _toml(name: str, guesses: list[Guess]) -> str:
    lines = [
        "# Written by pnp adopt: guesses for a person to review (`pnp docs adopting`), then `pnp check`.",
        "[project]",
        f"name = {json.dumps(name)}",
    ]
    for guess in guesses:
        lines += ["", *(f"# {reason}" for reason in guess.reasons), f"[kinds.{json.dumps(guess.name)}]"]
        lines.append(f"files = [{', '.join(json.dumps(f) for f in guess.files)}]")
        if guess.id:
            lines.append(f"id = {json.dumps(guess.id)}")
        if guess.schema:
            lines.append(f"schema = {json.dumps(guess.schema)}")
        if guess.refs:
            lines.append("refs = {" + ", ".join(f"{_key(k)} = {json.dumps(v)}" for k, v in guess.refs.items()) + "}")
        if not guess.card:
            lines.append("card = false")
    return "\n".join(lines) + "\n"


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)
