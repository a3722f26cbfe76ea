"""Stage 3: what a schema cannot see. Two phases: index every record once, then look up.

Checks are generators of (file, finding) pairs; the caller locates and filters them.
Codes: duplicate-id, missing-reference, wrong-kind-reference, count-mismatch, unknown-icon,
missing-asset, asset-outside-project, bad-asset, inconsistent-value. Every check but the
duplicate ids and counts runs in one pass over each kind's records (`check_records`).
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
from collections.abc import Callable, Container, Iterator
from itertools import repeat
from operator import contains
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.markup import ICON_TOKEN
from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding
from pnp.project.facecount import record_copies
from pnp.project.index import Index, values_at
from pnp.project.jsonfile import whole_number
from pnp.project.records import RecordFile
from pnp.project.schemas import Site
from pnp.rules.assets import asset_once, asset_problems, short

if TYPE_CHECKING:
    from pnp.project.facecount import FaceCounter

Located = tuple[RecordFile, Finding]


def check_duplicates(index: Index, shown: int = 3) -> Iterator[Located]:
    """One problem per record with a used id, naming up to `shown` other places (linear in the
    number of duplicates: each place is located once)."""
    for rid, places in index.duplicates.items():
        where = [f"{f.where(f.pointer(j) + '/id')} ({k})" for k, f, j in places]
        for n, (_kind, record_file, i) in enumerate(places):
            also = _also(where, n, len(places), shown)
            yield (
                record_file,
                Finding(
                    "duplicate-id",
                    f"id {short(rid)!r} is used more than once: also at {also}; ids must be unique",
                    pointer=record_file.pointer(i) + "/id",
                ),
            )
    yield from _scoped_duplicates(index, shown)


def _also(where: list[str], n: int, count: int, shown: int) -> str:
    """The other places of a duplicate id (up to `shown` of the first), and how many more."""
    others = [w for m, w in enumerate(where[: shown + 1]) if m != n][:shown]
    more = count - 1 - len(others)
    return ", ".join(others) + (f" and {more} more" if more else "")


def _scoped_duplicates(index: Index, shown: int) -> Iterator[Located]:
    """Duplicates among a kind declared in pnp.toml [kinds]: ids are unique per kind, reported
    at the kind's id field in each file."""
    for (kind, rid), places in index.scoped_duplicates.items():
        name = escape(index.id_field(kind))
        where = [f.where(f"{f.pointer(j)}/{name}") for _, f, j in places]
        for n, (_kind, record_file, i) in enumerate(places):
            also = _also(where, n, len(places), shown)
            yield (
                record_file,
                Finding(
                    "duplicate-id",
                    f"{index.id_field(kind)} {short(rid)!r} is used by more than one {kind}: also at {also}; "
                    f"each {kind} needs its own",
                    pointer=f"{record_file.pointer(i)}/{name}",
                ),
            )


def check_records(
    index: Index,
    kind: str,
    sites: tuple[Site, ...],
    icons: frozenset[str],
    root: Path,
    texts_elsewhere: Container[Path] = (),
    only: Callable[[RecordFile], bool] | None = None,
) -> Iterator[Located]:
    """One pass over a kind's records: references, inline icons, asset paths, consistency rules.

    Top-level id references and text fields (nearly all of them) take an inline fast path: a
    dict lookup or a C-level regex per record, with a message built only on a failure. The
    top-level text fields of the files in `texts_elsewhere` were checked as they were read
    (`file_checks`, pnp.rules.validation). `only`: the files to look at (the rest are another
    process's part).
    """
    if not sites:
        return
    first = index.first
    fast_refs = [(s, s.path[0]) for s in sites if _fast_ref(s)]
    fast_texts = [s.path[0] for s in sites if s.what == "text" and len(s.path) == 1]
    fast_assets = [(s, s.path[0]) for s in sites if s.what == "asset" and len(s.path) == 1 and s.path[0] != "*"]
    slow = [s for s in sites if not (_fast_ref(s) or (len(s.path) == 1 and s.what in ("text", "asset")))]
    assets: dict[tuple[str, str], Finding | None] = {}  # each asset's name checked once in this pass
    for record_file in index.files_by_kind.get(kind, []):
        if only is not None and not only(record_file):
            continue
        uniform = id(record_file) in index.uniform
        # columns, comprehensions and set operations keep the clean case's per-record cost at C
        # level, and a file another process read unparsed (pnp.project.recordfile.RecordFile.column)
        for site, key in fast_refs:
            values = record_file.column(key)
            unresolved = _unresolved(values, index.ids_of(site.kinds)) if uniform else None
            if unresolved is not None:
                if not unresolved:
                    continue
                suspects = [i for i, value in enumerate(values) if value in unresolved]
            else:
                kind_of = record_file.column("kind")
                if any(k in index.id_fields for k in site.kinds):
                    suspects = [
                        i
                        for i, (v, k) in enumerate(zip(values, kind_of, strict=True))
                        if v is not None and k == kind and not any(index.find(v, t) for t in site.kinds)
                    ]
                else:
                    targets = frozenset(site.kinds)
                    suspects = [
                        i
                        for i, (v, k) in enumerate(zip(values, kind_of, strict=True))
                        if v is not None
                        and not (type(v) is str and (e := first.get(v)) is not None and e[0] in targets)
                        and k == kind
                    ]
            for i in suspects:
                pointer = f"{record_file.pointer(i)}/{escape(key)}"
                finding = _reference_problem(index, site, values[i], pointer)
                if finding is not None:
                    yield record_file, finding
        if fast_texts and record_file.path not in texts_elsewhere:
            yield from _text_problems(record_file, kind, fast_texts, icons, uniform)
        yield from asset_problems(record_file, kind, fast_assets, root, uniform, assets)
        if slow:
            for i, record in enumerate(record_file.records):
                if type(record) is not dict or record.get("kind") != kind:
                    continue
                for site in slow:
                    if site.path and site.path[0] not in record:
                        continue
                    yield from _site_problems(index, site, record_file, i, record, icons, root, assets)


def _fast_ref(site: Site) -> bool:
    """A top-level reference by id: checked from the file's column of that key."""
    return site.what == "ref" and len(site.path) == 1 and site.by == "id"


def column_keys(sites: tuple[Site, ...]) -> list[str]:
    """The keys whose columns `check_records` reads for these sites, besides `kind` and the ids
    (what a process that reads a file sends of it: pnp.rules.validation)."""
    return [s.path[0] for s in sites if _fast_ref(s)]


def _text_problems(
    record_file: RecordFile, kind: str, keys: list[str], icons: frozenset[str], one_kind: bool
) -> Iterator[Located]:
    """Unknown inline icons in the top-level text fields `keys` of a file's records of `kind`;
    `one_kind`: every record is an object of that kind (one regex over all texts at once)."""
    records = record_file.records
    for key in keys:
        if one_kind and _all_icons_known(records, key, icons):
            continue
        suspects = [
            i
            for i, r in enumerate(records)
            if type(r) is dict
            and type(v := r.get(key)) is str
            and "{" in v
            and not icons.issuperset(ICON_TOKEN.findall(v))
            and r.get("kind") == kind
        ]
        for i in suspects:
            pointer = f"{record_file.pointer(i)}/{escape(key)}"
            yield from _icon_problems(record_file, pointer, records[i][key], icons)


def file_checks(
    record_file: RecordFile,
    kinds: set[str],
    one_kind: bool,
    sites_of: Callable[[str], tuple[Site, ...]],
    icons: frozenset[str],
) -> Iterator[Located]:
    """What a file's records show on their own, without the index: unknown inline icons in
    top-level text fields and copies over the limit. Whichever process reads a file for a check
    runs this on it (pnp.rules.validation), so the cross-checks skip those files
    (`texts_elsewhere`, `check_copies`'s `elsewhere`); `kinds`, `one_kind` as
    pnp.project.loaded.file_kinds gives them."""
    for kind in sorted(kinds):
        keys = [s.path[0] for s in sites_of(kind) if s.what == "text" and len(s.path) == 1]
        if keys:
            yield from _text_problems(record_file, kind, keys, icons, one_kind and len(kinds) == 1)
    for kind in sorted(kinds):
        yield from _copies_problems(record_file, kind, current_limits().copies)


def _unresolved(values: list[Any], accepted: set[str] | dict[str, Any]) -> set[Any] | None:
    """The values (where present) that name no accepted id: one set difference.

    None when a value cannot be put in a set; the caller then looks record by record.
    """
    try:
        named = set(values)
    except TypeError:  # an unhashable value: the schema reports it
        return None
    named.discard(None)
    return named.difference(accepted)


def _all_icons_known(records: list[dict[str, Any]], key: str, icons: frozenset[str]) -> bool:
    """Whether every {icon} in the records' `key` texts is known: one regex search over all of them.

    The texts are joined by newlines, which an icon name cannot contain, so no match spans two.
    """
    try:
        texts = list(map(dict.get, records, repeat(key)))
    except TypeError:  # an item that is no object
        return False
    if set(map(type, texts)) - {str, type(None)}:
        return False
    return _unknown_icon(icons).search("\n".join(filter(None, texts))) is None


MAX_TRIE_DEPTH = 8


@functools.lru_cache(maxsize=8)
def _unknown_icon(icons: frozenset[str]) -> re.Pattern[str]:
    """A token ICON_TOKEN matches whose name is none of `icons`: searching for it allocates
    nothing per token, where finding every token and comparing the names did."""
    if not icons:
        return ICON_TOKEN
    return re.compile(r"\{(?!" + _any_of(sorted(icons)) + r"\})[^{}\s]*\}")


def _any_of(names: list[str], at: int = 0, depth: int = 0) -> str:
    """A regex matching exactly `names` (sorted, all sharing their first `at` characters), shaped
    as a trie: the engine tries alternatives one by one, so 62 icon names made each "{" cost up to
    62 attempts; branching on one character at a time makes it a few (a third of the time). Past
    MAX_TRIE_DEPTH branchings the rest is a plain alternation (the regex's nesting stays bounded)."""
    first, last = names[0], names[-1]
    common = at  # the characters every name shares (sorted: the first and the last share them)
    while common < len(first) and first[common] == last[common]:
        common += 1
    if len(names) == 1 or depth == MAX_TRIE_DEPTH:
        return "(?:" + "|".join(re.escape(name[at:]) for name in names) + ")"
    ends = len(first) == common  # a name that ends here sorts first
    branches = [""] if ends else []
    for char, group in itertools.groupby(names[ends:], key=lambda name: name[common]):
        branches.append(re.escape(char) + _any_of(list(group), common + 1, depth + 1))
    return re.escape(first[at:common]) + "(?:" + "|".join(branches) + ")"


def _site_problems(
    index: Index,
    site: Site,
    record_file: RecordFile,
    i: int,
    record: dict[str, Any],
    icons: frozenset[str],
    root: Path,
    assets: dict[tuple[str, str], Finding | None] | None = None,
) -> Iterator[Located]:
    prefix = record_file.pointer(i)
    for pointer, value in values_at(record, site.path, ""):
        finding: Finding | None = None
        if site.what == "ref":
            finding = _reference_problem(index, site, value, prefix + pointer)
        elif site.what == "text":
            if isinstance(value, str) and "{" in value:
                yield from _icon_problems(record_file, prefix + pointer, value, icons)
        elif site.what == "asset":
            if isinstance(value, str):
                finding = asset_once(root, value, site.asset, prefix + pointer, {} if assets is None else assets)
        elif site.what == "max":
            finding = _max_problem(record, pointer.split("/")[1:], site, value, prefix + pointer)
        elif site.what == "covers":
            finding = _covers_problem(record, pointer.split("/")[1:], site, value, prefix + pointer)
        if finding is not None:
            yield record_file, finding


def _icon_problems(record_file: RecordFile, pointer: str, value: str, icons: frozenset[str]) -> Iterator[Located]:
    for match in ICON_TOKEN.finditer(value):
        name = match.group(1)
        if name in icons:
            continue
        close = difflib.get_close_matches(name, sorted(icons), n=1, cutoff=0.6)
        hint = f"did you mean {{{close[0]}}}? " if close else ""
        yield (
            record_file,
            Finding(
                "unknown-icon",
                f"unknown icon {match.group()} in text; {hint}"
                f"icons are defined in layouts/icons.json: {', '.join(sorted(icons)) or 'none'}",
                pointer,
                offset=record_file.offset_in_value(pointer, match.group()),
            ),
        )


def kinds_phrase(kinds: tuple[str, ...]) -> str:
    """'game.spell', 'game.spell or game.ability', or 'one of 13 kinds (game.unit, ...)'."""
    if len(kinds) <= 3:
        return " or ".join(kinds)
    return f"one of {len(kinds)} kinds ({', '.join(kinds[:3])}, ...)"


def _reference_problem(index: Index, site: Site, value: Any, pointer: str) -> Finding | None:
    kinds_text = kinds_phrase(site.kinds)
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return None  # the schema reports the wrong type
    if site.by != "id":
        table = index.by_field(site.kinds, site.by)
        if value in table:
            return None
        known = ", ".join(short(str(v), 40) for v in sorted(table, key=str)[:20])
        return Finding(
            "missing-reference",
            f"{(short(value) if isinstance(value, str) else value)!r} names no {kinds_text} by {site.by}; "
            f"existing: {known or 'none'}",
            pointer,
        )
    if any(kind in index.id_fields for kind in site.kinds):
        return _scoped_reference_problem(index, site, value, pointer)
    if not isinstance(value, str):
        return None  # the schema reports the wrong type
    entry = index.first.get(value)
    if entry is None:
        close = index.closest_ids(value, site.kinds)
        hint = f"; did you mean {close[0]!r}?" if close else "; add that record, or correct the id"
        return Finding("missing-reference", f"{short(value)!r} names no {kinds_text} record{hint}", pointer)
    if entry[0] not in site.kinds:
        return Finding(
            "wrong-kind-reference",
            f"{value!r} is a {entry[0]} (in {entry[1].display}), but this field takes a {kinds_text}",
            pointer,
        )
    return None


def _scoped_reference_problem(index: Index, site: Site, value: str | int, pointer: str) -> Finding | None:
    """A reference to kinds with ids of their own (pnp.toml [kinds]): found in one of them, or missing."""
    if any(index.find(value, kind) for kind in site.kinds):
        return None
    kinds_text = kinds_phrase(site.kinds)
    close = index.closest_ids(str(value), site.kinds)
    hint = f"; did you mean {close[0]!r}?" if close else f"; add that {kinds_text}, or correct the value"
    shown = short(value) if isinstance(value, str) else value
    fields = sorted({index.id_field(kind) for kind in site.kinds})
    return Finding("missing-reference", f"{shown!r} names no {kinds_text} (by {' or '.join(fields)}){hint}", pointer)


def check_counts(index: Index, faces: FaceCounter | None = None) -> Iterator[Located]:
    """Component lists against the records: exact where complete, a warning where partial.
    `faces`: the faces a kind's layout with `expand` makes of each record (a project with layouts)."""
    for record_file, i, n, component in component_lines(index):
        finding = _count_problem(index, component, f"{record_file.pointer(i)}/components/{n}/count", faces)
        if finding is not None:
            yield record_file, finding


def check_copies(index: Index, elsewhere: Container[Path] = ()) -> Iterator[Located]:
    """Records whose `copies` is over the limit: pnp build would refuse to draw them, so pnp
    check says so first. The files in `elsewhere` are checked by another process (`file_checks`)."""
    limit = current_limits().copies
    for kind in sorted(index.files_by_kind):
        for record_file in index.files_by_kind[kind]:
            if record_file.path not in elsewhere:
                yield from _copies_problems(record_file, kind, limit)


def _copies_problems(record_file: RecordFile, kind: str, limit: int) -> Iterator[Located]:
    records = record_file.records  # most records have no `copies`: one C-level pass says whether any does
    try:
        if not any(map(contains, records, repeat("copies"))):
            return
    except TypeError:  # an item that is no container: looked at one by one
        pass
    marked = [i for i, r in enumerate(records) if type(r) is dict and "copies" in r and r.get("kind") == kind]
    for i in marked:
        record = records[i]
        copies = whole_number(record.get("copies"))
        if copies is None or copies <= limit:
            continue
        message = exceeded("copies", f"{copies} copies of record {short(str(record.get('id')))!r}")
        yield record_file, Finding("limit-exceeded", message, record_file.pointer(i) + "/copies")


def count_present(index: Index, component: dict[str, Any], faces: FaceCounter | None = None) -> int:
    """Physical items of a component line's kind (sum of copies), narrowed by its `where`; with
    `faces`, the faces a kind's layout with `expand` makes of each record (pnp.project.facecount)."""
    where = component.get("where") or {}
    if not isinstance(where, dict):
        return 0
    kind = component["kind"]
    present = 0
    for _, _, record in index.records_of(kind):
        if all(record.get(k) == v for k, v in where.items()):
            present += faces(kind, record) if faces is not None else record_copies(record)
    return present


def component_lines(index: Index) -> Iterator[tuple[RecordFile, int, int, dict[str, Any]]]:
    """(file, record index, line number, component) for every component line that names a kind."""
    for list_kind in sorted(k for k in index.files_by_kind if k.endswith(".component-list")):
        for record_file, i, record in index.records_of(list_kind):
            components = record.get("components")
            if not isinstance(components, list):
                continue
            for n, component in enumerate(components):
                if isinstance(component, dict) and isinstance(component.get("kind"), str):
                    yield record_file, i, n, component


def _count_problem(
    index: Index, component: dict[str, Any], pointer: str, faces: FaceCounter | None = None
) -> Finding | None:
    kind = component["kind"]
    expected = component.get("count")
    where = component.get("where") or {}
    if not isinstance(expected, int) or not isinstance(where, dict):
        return None  # the schema reports the wrong type
    present = count_present(index, component, faces)
    if present == expected:
        return None
    subset = f" with {', '.join(f'{k}={v}' for k, v in where.items())}" if where else ""
    name = component.get("name", kind)
    note = f" ({component['note']})" if component.get("note") else ""
    counted = "faces the layout's expand makes" if faces and faces.expands(kind) else "sum of copies"
    if component.get("transcription") == "partial" and present < expected:
        return Finding(
            "count-mismatch",
            f"{name}: the component list counts {expected}, {present} {kind} entered{subset}; "
            f"{expected - present} not entered yet (the line is marked partial){note}",
            pointer,
            severity="warning",
        )
    return Finding(
        "count-mismatch",
        f"{name}: the component list counts {expected}, but there are {present} {kind}{subset} "
        f"({counted}); add or remove records, or fix the count{note}",
        pointer,
    )


def resolve_relative(record: Any, parts: list[str], relative: str) -> Any:
    """Relative JSON pointer ('2/player_counts') from the value at `parts` inside `record`."""
    up, _, rest = relative.partition("/")
    if not up.isdigit() or int(up) > len(parts):
        return None
    node: Any = record
    for part in [*parts[: len(parts) - int(up)], *(p for p in rest.split("/") if p)]:
        if isinstance(node, dict):
            node = node.get(unescape(part))
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _allowed_values(value: Any) -> list[Any]:
    """A list of values, or every integer of a {min, max} range."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("min"), int) and isinstance(value.get("max"), int):
        return list(range(value["min"], value["max"] + 1))
    return []


def _max_problem(record: Any, parts: list[str], site: Site, value: Any, pointer: str) -> Finding | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    limits = [n for relative in site.kinds for n in _numbers(resolve_relative(record, parts, relative))]
    if not limits or value <= max(limits):
        return None
    names = " / ".join(r.split("/", 1)[1] for r in site.kinds)
    return Finding(
        "inconsistent-value",
        f"{value} is beyond {max(limits):g}, the largest {names} of this record; fix the number or the length",
        pointer,
    )


def _covers_problem(record: Any, parts: list[str], site: Site, value: Any, pointer: str) -> Finding | None:
    if not isinstance(value, list):
        return None
    allowed = resolve_relative(record, parts, site.kinds[0])
    if isinstance(allowed, dict) and _ints(allowed.get("min"), allowed.get("max")):
        span = allowed["max"] - allowed["min"] + 1
        if span > current_limits().covers_range:
            what = f"the range {allowed['min']}..{allowed['max']} that {site.kinds[0].split('/', 1)[1]} gives"
            return Finding("limit-exceeded", exceeded("covers_range", what), pointer)
    wanted = _allowed_values(allowed)
    present: set[Any] = set()
    for item in value:
        got = item.get(site.by) if isinstance(item, dict) else None
        present.update(got if isinstance(got, list) else [got])
    missing = [v for v in wanted if v not in present]
    if not missing:
        return None
    target = site.kinds[0].split("/", 1)[1]
    return Finding(
        "inconsistent-value",
        f"no entry for {site.by} {', '.join(map(str, missing[:20]))}{' ...' if len(missing) > 20 else ''}, "
        f"which {target} allows; add one per {site.by} value",
        pointer,
    )
