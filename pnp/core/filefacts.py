"""Facts about files (whether an image decodes, a content digest) remembered by the file's
identity on disk: its size, modification and change times, inode and device.

Within a process a fact is made once per file as it is now; across runs the facts are kept in
the output folder (pnp.verify.cache keeps them signed with the project's key), so that after an
edit of one card a check does not decode every image of the deck again (300 cards with art of
their own: 3 s a check). A fact is taken only while the file's identity is what it was when the
fact was made: any write changes the change time, which no tool can set back. A fact about a
file changed within the last seconds is not kept across runs: a second write within the file
system's time step would leave its identity as it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Identity = tuple[int, int, int, int, int]  # size, modification and change times (ns), inode, device
SETTLED_NS = 2_000_000_000  # a file unchanged for this long keeps its facts across runs
MAX_KEPT = 100_000  # facts kept across runs at most (the oldest made are left out)

_FACTS: dict[str, tuple[Identity, dict[str, str]]] = {}  # path -> (identity, fact name -> fact)
_LEARNED: set[str] = set()  # paths whose facts this process made (not taken from a stored run)


def identity(info: os.stat_result) -> Identity:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def fact(path: str | Path, name: str, make: Callable[[], str]) -> str:
    """What `make()` says of the file at `path` (named by `name`), made once while the file is
    as it is now. A file that cannot be looked at is asked every time (`make` says why)."""
    key = str(path)
    try:
        now = identity(os.stat(key))
    except (OSError, ValueError):
        return make()
    entry = _FACTS.get(key)
    if entry is None or entry[0] != now:
        entry = _FACTS[key] = (now, {})
    known = entry[1].get(name)
    if known is None:
        known = entry[1][name] = make()
        _LEARNED.add(key)
    return known


def known(path: str | Path, name: str) -> bool:
    """Whether the fact `name` about the file at `path`, as it is now, is known already."""
    entry = _FACTS.get(str(path))
    if entry is None or name not in entry[1]:
        return False
    try:
        return entry[0] == identity(os.stat(str(path)))
    except (OSError, ValueError):
        return False


def learned() -> list[list[Any]]:
    """The facts this process made since `start_learning` (or its start), as `take` takes them:
    what a forked child sends its parent, and what tells a run whether to keep its facts again."""
    return [[path, list(_FACTS[path][0]), dict(_FACTS[path][1])] for path in sorted(_LEARNED) if path in _FACTS]


def start_learning() -> None:
    """Count as learned only the facts made from now on (a forked child: its parent's are known)."""
    _LEARNED.clear()


def take(entries: list[list[Any]], learned_here: bool = True) -> None:
    """Facts made elsewhere (a forked child's `learned`, or a stored run's, see `restore`), checked
    for shape; each is used only while its file's identity is the one it was made with.
    `learned_here`: as if made in this process (kept again at the end of this run)."""
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            continue
        path, ident, facts = entry
        if not (isinstance(ident, list) and len(ident) == 5 and all(type(n) is int for n in ident)):
            continue
        if not (isinstance(facts, dict) and all(isinstance(v, str) for v in facts.values())):
            continue
        now = (ident[0], ident[1], ident[2], ident[3], ident[4])
        held = _FACTS.get(path)
        _FACTS[path] = (now, {**held[1], **facts} if held is not None and held[0] == now else dict(facts))
        if learned_here:
            _LEARNED.add(path)


def kept(root: Path) -> list[list[Any]]:
    """The facts to keep across runs, named from `root`: those of files inside it unchanged for
    SETTLED_NS (a stored run's taken back included), the most recently changed files last."""
    base = str(root) + os.sep
    settled = time.time_ns() - SETTLED_NS
    chosen = sorted(
        (ident[2], path)
        for path, (ident, _) in _FACTS.items()
        if path.startswith(base) and max(ident[1], ident[2]) <= settled
    )[-MAX_KEPT:]
    return [[path[len(base) :], list(_FACTS[path][0]), _FACTS[path][1]] for _, path in chosen]


def restore(root: Path, entries: list[list[Any]]) -> None:
    """Take a stored run's `kept` facts (named from `root`) as facts of this process's files."""
    base = str(root) + os.sep
    take([[base + e[0], *e[1:]] for e in entries if isinstance(e, list) and e and isinstance(e[0], str)], False)
