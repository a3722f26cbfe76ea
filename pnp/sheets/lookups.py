"""What a sheet output's templates looked up, kept in its key: the output depends on exactly those
records, whatever the templates computed to find them.

A sheet's templates may look records up by an id they make themselves (`{{ 'ash-drake' | ref }}`,
`{{ ('unit-' ~ n) | resolve }}`), through a record they looked up (`(unit | resolve).faction |
ref`), or list a kind they compute (`records_of(kind)` in a macro): none of it can be read off the
sheet file; nor can the image file a templated `src` names (`art/{{ id }}.png`). So laying an
output out notes every lookup and every such file (pnp.sheets.templates.Templates.track), and
its key (in the manifest, and in `pnp check`'s sheet cache) carries them after its digest. The
next run digests the records those lookups give now: an output is up to date only while every
record it looked up (or did not find) and every kind it listed is as it was. What an output looks
up changes only when something its digest holds changes (its sheet file, the records it shows,
the records it looked up), and then it is laid out again and its lookups noted again. An output
with no noted lookups (made by an older pnp, or never) is never up to date.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

# (id, kind scope or "") looked up; kinds listed; files drawn (as named, relative to the project)
Looked = tuple[tuple[tuple[Any, str], ...], tuple[str, ...], tuple[str, ...]]
NOTHING: Looked = ((), (), ())
SEPARATOR = " looked-up "
CARD = "\ncard"  # the scope of an id whose record a `card` block drew: its face may show the records it names
MAX_LOOKED = 200_000  # ids and kinds one key may name (a stored key past it is not trusted: laid out again)


def merged(*parts: Looked) -> Looked:
    """The lookups of several parts (planning, laying out), each once, sorted."""
    ids = {item for part in parts for item in part[0]}
    kinds = {kind for part in parts for kind in part[1]}
    files = {name for part in parts for name in part[2]}
    ordered = tuple(sorted(ids, key=lambda item: (str(type(item[0])), item[0], item[1])))
    return ordered, tuple(sorted(kinds)), tuple(sorted(files))


def compose(digest: str, looked: Looked) -> str:
    """The key of an output: its digest, then what it looked up (read back by `parse`)."""
    ids, kinds, files = looked
    return digest + SEPARATOR + orjson.dumps([[list(item) for item in ids], list(kinds), list(files)]).decode()


def parse(key: str | None) -> Looked | None:
    """The lookups a stored key carries; None for a key with none, or one this pnp did not write."""
    if not key or SEPARATOR not in key:
        return None
    try:
        ids, kinds, files = orjson.loads(key.split(SEPARATOR, 1)[1])
    except (orjson.JSONDecodeError, ValueError, TypeError):
        return None
    if (
        not all(isinstance(part, list) for part in (ids, kinds, files))
        or len(ids) + len(kinds) + len(files) > MAX_LOOKED
    ):
        return None
    found: list[tuple[Any, str]] = []
    for item in ids:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
            return None
        record_id = item[0]
        if not isinstance(record_id, (str, int)) or isinstance(record_id, bool):
            return None
        found.append((record_id, item[1]))
    if not all(isinstance(name, str) for name in (*kinds, *files)):
        return None
    return merged((tuple(found), tuple(kinds), tuple(files)))


def looked_records(
    looked: Looked,
    lookup: Callable[[Any, str | None], dict[str, Any] | None],
    records_of: Callable[[str], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """What `looked` gives in the project as it is now, for the output's digest: each id's record
    (or that there is none), each kind's records in order."""
    found: list[dict[str, Any]] = []
    for record_id, kind in looked[0]:
        if kind == CARD:
            found.append({"drawn": record_id, "record": lookup(record_id, None)})
            continue
        found.append({"looked up": record_id, "in": kind, "record": lookup(record_id, kind or None)})
    for kind in looked[1]:
        found.append({"listed": kind, "records": records_of(kind)})
    return found


def looked_files(looked: Looked, root: Path) -> tuple[list[Path], list[str]]:
    """The files `looked` names that are regular files inside the project (hashed into the digest),
    and what is wrong with each of the others (a file that appears later changes the digest). A
    name from a stored key is checked as a template's is: nothing outside the project is read."""
    from pnp.core.paths import project_file

    usable: list[Path] = []
    others: list[str] = []
    for name in looked[2]:
        path, problem = project_file(root, name)
        if problem or path is None:
            others.append(f"{name}: {problem}")
        else:
            usable.append(path)
    return usable, others
