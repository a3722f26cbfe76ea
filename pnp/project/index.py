"""The record index: every usable record indexed once by id, with its kind and place (loading; no rule).

Two phases, as frictionless does it: index every record once here, then the rules (pnp.rules.xrefs)
look references up in it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from pnp.core.pointers import escape
from pnp.core.similar import closest
from pnp.project.records import RecordFile

ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
MAX_EDITED_ID = 64  # ids longer than this get no edit-distance candidates (see Index.closest_ids)


Entry = tuple[str, RecordFile, int]  # (kind, file, record index)


def id_key(value: Any) -> str | None:
    """A declared kind's id as the index keys it: a string, or an integer's digits."""
    if type(value) is str:
        return value
    if type(value) is int:
        return str(value)
    return None


@dataclass(slots=True)
class Index:
    """Every usable record, indexed once: ids (with their kind and place) and files per kind.

    Kinds of the classic project share one id space (`first`): an id names one record whatever
    its kind. A kind declared in pnp.toml [kinds] has ids of its own, the values of its id
    field (`id_fields`), kept in `scoped[kind]`: a pack `core` and a cycle `core` do not clash.
    """

    first: dict[str, Entry] = field(default_factory=dict)
    duplicates: dict[str, list[Entry]] = field(default_factory=dict)
    id_fields: dict[str, str] = field(default_factory=dict)  # declared kind -> its id field
    scoped: dict[str, dict[str, Entry]] = field(default_factory=dict)
    scoped_duplicates: dict[tuple[str, str], list[Entry]] = field(default_factory=dict)
    files_by_kind: dict[str, list[RecordFile]] = field(default_factory=dict)
    first_kinds: set[str | None] = field(default_factory=set)  # kinds of the records in `first` (None: no kind)
    uniform: set[int] = field(default_factory=set)  # id() of files whose records all have one kind and an id
    _ids_of: dict[tuple[str, ...], set[str] | dict[str, Entry]] = field(default_factory=dict)
    _by_field: dict[tuple[tuple[str, ...], str], dict[Any, str]] = field(default_factory=dict)
    _sorted: list[str] | None = None

    def add_file(self, record_file: RecordFile, kinds: Iterable[str], one_kind: bool = False) -> None:
        """Index a file's records; `one_kind`: the caller saw that every record is an object of
        the one kind in `kinds` (spares a pass over the records). Reads the file's columns
        (`RecordFile.column`), never its records: a file another process read is not parsed."""
        kinds = tuple(kinds)
        for kind in kinds:
            self.files_by_kind.setdefault(kind, []).append(record_file)
        scoped = self.id_fields and any(kind in self.id_fields for kind in kinds)
        if not scoped and len(kinds) == 1 and self._add_uniform(record_file, kinds[0], one_kind):
            return
        first = self.first
        kind_of = record_file.column("kind")
        for index, (kind, rid) in enumerate(zip(kind_of, record_file.column("id"), strict=True)):
            if scoped and type(kind) is str and kind in self.id_fields:
                self._add_scoped(kind, record_file.column(self.id_fields[kind])[index], record_file, index)
                continue
            if type(rid) is not str:
                continue
            entry = (kind, record_file, index)
            seen = first.setdefault(rid, entry)
            if seen is not entry:
                self.duplicates.setdefault(rid, [seen]).append(entry)
            else:
                self.first_kinds.add(kind if type(kind) is str else None)

    def _add_scoped(self, kind: str, value: Any, record_file: RecordFile, index: int) -> None:
        rid = id_key(value)
        if rid is None:
            return
        entry = (kind, record_file, index)
        seen = self.scoped.setdefault(kind, {}).setdefault(rid, entry)
        if seen is not entry:
            self.scoped_duplicates.setdefault((kind, rid), [seen]).append(entry)

    def id_field(self, kind: Any) -> str:
        """The field that identifies a record of `kind`: `id`, unless pnp.toml [kinds] says."""
        return self.id_fields.get(kind, "id") if type(kind) is str else "id"

    def find(self, value: Any, kind: str | None = None) -> Entry | None:
        """The record an id names: in `kind` when given, else among the shared ids, then the
        declared kinds in order."""
        if kind is not None and kind in self.id_fields:
            key = id_key(value)
            return self.scoped.get(kind, {}).get(key) if key is not None else None
        entry = self.first.get(value) if type(value) is str else None
        if entry is not None or kind is not None or not self.scoped:
            return entry if kind is None or entry is None or entry[0] == kind else None
        key = id_key(value)
        for name in sorted(self.scoped):
            found = self.scoped[name].get(key) if key is not None else None
            if found is not None:
                return found
        return None

    def all_ids(self) -> set[str]:
        """Every id of every kind."""
        return set(self.first).union(*self.scoped.values())

    def _add_uniform(self, record_file: RecordFile, kind: str, one_kind: bool) -> bool:
        """The common file: records of one kind with string ids, none seen before. C-level loops.

        Returns False (and adds nothing) when the file is not like that; the caller then walks it.
        """
        ids = record_file.column("id")
        if set(map(type, ids)) != {str}:  # an id missing (None), of another type, or no records
            return False
        if not one_kind and record_file.column("kind").count(kind) != len(ids):
            return False
        first = self.first
        if not first.keys().isdisjoint(ids):
            return False
        before = len(first)
        first.update(zip(ids, zip(repeat(kind), repeat(record_file), range(len(ids))), strict=True))
        if len(first) - before != len(ids):  # an id twice in the file: undone (none was there before)
            for rid in ids:
                first.pop(rid, None)
            return False
        self.first_kinds.add(kind)
        self.uniform.add(id(record_file))
        return True

    def reorder(self, files: list[tuple[RecordFile, tuple[str, ...]]]) -> None:
        """Make the index what adding `files` (each with its kinds, as given to `add_file`) in this
        order makes, after they were added in another (pnp.project.loaded: the files this process
        read, as it read them, then the ones a child read). Only ids that repeat depend on the
        order: each one's first record and its list of places are put in the files' order, and
        its duplicates in the order their second record comes. Files of kinds with their own ids
        (`id_fields`) must be added in order instead. A file marked `uniform` that repeats an id
        of a file before it is no longer; a file that one found after it is left as it is (the
        cross-checks take the general path there, which finds the same)."""
        assert not self.scoped, "Index.reorder with ids of declared kinds"
        position = {id(record_file): n for n, (record_file, _) in enumerate(files)}

        def place(entry: Entry) -> tuple[int, int]:
            return position[id(entry[1])], entry[2]

        self.files_by_kind = {}
        for record_file, kinds in files:
            for kind in kinds:
                self.files_by_kind.setdefault(kind, []).append(record_file)
        if not self.duplicates:
            return
        repeated: dict[str, list[Entry]] = {}
        kinds_changed = False
        for rid, places in self.duplicates.items():
            places = sorted(places, key=place)
            kinds_changed |= places[0][0] != self.first[rid][0]
            self.first[rid] = places[0]
            repeated[rid] = places
            for entry in places[1:]:
                self.uniform.discard(id(entry[1]))
        self.duplicates = dict(sorted(repeated.items(), key=lambda item: place(item[1][1])))
        if kinds_changed:
            self.first_kinds = {kind if type(kind) is str else None for kind, _, _ in self.first.values()}

    def ids_of(self, kinds: tuple[str, ...]) -> set[str] | dict[str, Entry]:
        """Ids whose first record is one of `kinds` (what a reference to those kinds accepts), for
        `in` and set differences: the shared ids themselves when every one is of these kinds (no
        copy of 100,000 ids), else a set made on first use."""
        found = self._ids_of.get(kinds)
        if found is None:
            wanted = set(kinds)
            scoped = [self.scoped[k] for k in kinds if k in self.scoped]
            if not scoped and self.first_kinds <= wanted:
                found = self.first
            else:
                found = {rid for rid, entry in self.first.items() if entry[0] in wanted}.union(*scoped)
            self._ids_of[kinds] = found
        return found

    def records_of(self, kind: str) -> Iterator[tuple[RecordFile, int, dict[str, Any]]]:
        """(file, index, record) of every record of `kind`, in the files' order."""
        uniform = self.uniform
        for record_file in self.files_by_kind.get(kind, []):
            if id(record_file) in uniform:  # every record an object of this kind (_add_uniform): no test each
                records = record_file.records
                yield from zip(repeat(record_file), range(len(records)), records)
                continue
            for index, record in enumerate(record_file.records):
                if type(record) is dict and record.get("kind") == kind:
                    yield record_file, index, record

    def by_field(self, kinds: tuple[str, ...], name: str) -> dict[Any, str]:
        """value of `name` -> id, over records of `kinds` (built on first use)."""
        key = (kinds, name)
        table = self._by_field.get(key)
        if table is None:
            table = {}
            for kind in kinds:
                for _, _, record in self.records_of(kind):
                    value = record.get(name)
                    if isinstance(value, (str, int)) and not isinstance(value, bool):
                        table.setdefault(value, str(record.get(self.id_field(kind))))
            self._by_field[key] = table
        return table

    def closest_ids(self, wanted: str, kinds: tuple[str, ...]) -> list[str]:
        """Ids of `kinds` closest to `wanted`, best first.

        Candidates: the ids next to it in sorted order (a typo after an intact start), and
        every id one deletion, transposition, or change of the first two characters away (a
        typo at the start). Both are dictionary or bisect lookups, so a did-you-mean costs
        microseconds even among 100,000 ids; pnp.core.similar ranks the few candidates. An id longer
        than MAX_EDITED_ID gets only its sorted neighbours: the edits would grow with its square.
        """
        if any(kind in self.id_fields for kind in kinds):  # ids of their own: a small ranking
            return closest(wanted, (i for k in kinds for i in self.scoped.get(k, ())), limit=3, cutoff=60)
        if self._sorted is None:
            self._sorted = sorted(self.first)
        first = self.first
        ordered = self._sorted
        at = bisect.bisect_left(ordered, wanted)
        candidates = set(ordered[max(0, at - 6) : at + 6])
        n = len(wanted) if len(wanted) <= MAX_EDITED_ID else 0  # edits of a long id: n strings of n characters
        edits = [wanted[:i] + wanted[i + 1 :] for i in range(n)]
        edits += [wanted[:i] + wanted[i + 1] + wanted[i] + wanted[i + 2 :] for i in range(n - 1)]
        if n:
            rest = wanted[1:]
            edits += [c + rest for c in ID_CHARS]
        if n > 1:
            head, rest = wanted[0], wanted[2:]
            edits += [head + c + rest for c in ID_CHARS]
        candidates.update([edit for edit in edits if edit in first])  # a dict lookup each
        wanted_kinds = set(kinds)
        return closest(wanted, (c for c in candidates if first[c][0] in wanted_kinds), limit=3, cutoff=60)


def build_index(files: Iterable[tuple[RecordFile, Iterable[str]]], id_fields: dict[str, str] | None = None) -> Index:
    index = Index(id_fields=dict(id_fields or {}))
    for record_file, kinds in files:
        index.add_file(record_file, kinds)
    return index


def values_at(node: Any, path: tuple[str, ...], pointer: str) -> Iterator[tuple[str, Any]]:
    """(pointer, value) for every value at `path` ('*' = each item / map value)."""
    if not path:
        yield pointer, node
        return
    head, rest = path[0], path[1:]
    if head == "*":
        if isinstance(node, list):
            for i, item in enumerate(node):
                yield from values_at(item, rest, f"{pointer}/{i}")
        elif isinstance(node, dict):
            for key, item in node.items():
                yield from values_at(item, rest, f"{pointer}/{escape(key)}")
    elif isinstance(node, dict) and head in node:
        yield from values_at(node[head], rest, f"{pointer}/{escape(head)}")
