"""`pnp adopt`: a starting pnp.toml ([kinds]) guessed from an existing card-data repository.

It reads the repository and writes one file, pnp.toml, for a person to review (docs/adopting.md):

- record files: JSON or YAML arrays of objects (one object is a settings file, a package.json:
  not records); files of one folder below the root make one kind, a file at the root one kind;
- schemas: `*_schema.json`, `*.schema.json` and any JSON under a `schema/` or `schemas/` folder;
  each kind gets the schema most of its records pass (a schema of a whole file, an array, is
  tried on each record as a one-item array), a name match breaking ties;
- the id field: a field every record has, with unique strings or integers, `code`, `id` or
  `key` first;
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKIPPED_FOLDERS = {"node_modules", "output", "dist", "build", "vendor", "__pycache__", "venv", ".venv"}
PREFERRED_IDS = ("code", "id", "key")
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
    for guess in guesses:
        _match_schema(root, guess, schemas, prefix, taken)
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
        notes.append(f"schemas no kind's records pass: {', '.join(unused)}")
    return _toml(root.resolve().name, guesses), guesses, notes


def _scan(root: Path, notes: list[str]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(schema path -> schema, record file path -> records), paths relative to `root`, POSIX."""
    schemas: dict[str, Any] = {}
    data: dict[str, list[dict[str, Any]]] = {}
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


def _match_schema(root: Path, guess: Guess, schemas: dict[str, Any], prefix: str, taken: set[str]) -> None:
    """The schema most of the kind's records pass; a schema's name then names the kind."""
    scored: list[tuple[float, bool, str]] = []
    short = guess.name.partition(".")[2]
    for name, schema in schemas.items():
        share = _share_valid(root / name, schema, guess.records)
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


def _share_valid(path: Path, schema: Any, records: list[dict[str, Any]]) -> float | None:
    """The share of `records` valid against `schema` (an array schema: each record as a one-item
    array); None where the schema cannot be used offline (a $ref to another file, a bad schema)."""
    import jsonschema_rs

    try:
        validator = jsonschema_rs.validator_for(schema)
    except Exception:  # noqa: BLE001 - a schema this guess cannot compile is not proposed
        return None
    whole_file = schema.get("type") == "array" if isinstance(schema, dict) else False
    try:
        valid = sum(validator.is_valid([r] if whole_file else r) for r in records)
    except Exception:  # noqa: BLE001 - an unresolvable reference while validating
        return None
    return valid / len(records) if records else None


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
    unique = sorted(n for n, count in repeats.items() if count == 0)
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
        "# Written by pnp adopt: guesses for a person to review (docs/adopting.md), then `pnp check`.",
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
