"""The no-change fast path of `pnp check`: the last check's result, replayed when nothing it read changed.

After a check of the whole project (no PATHS given), pnp stores its result in
output/.pnp-cache/check/results.json under a digest of everything the result depends on: the
options that change what is printed (--ignore, --select, --strict, --render), the working
folder and the project folder (file names are shown relative to them), Python's version and
the installed distributions, pnp's own files, the content of every file of the project (but the
output folder, `.git`, virtual environments and other tools' caches: see `skipped_by_check`)
and the content of the render caches beside this one. The next check that computes the same
digest prints the stored result without importing the schemas, records or drawing stages.

A hostile pull request can commit a forged results file, and anyone can compute the digest of
public files; so each stored result is signed (HMAC-SHA256) with a random key that pnp makes in
the output folder (output/.pnp-cache/check/key) and with that key file's identity on this disk
(device, inode and change time in nanoseconds, which no one can choose or predict: a checkout or
a copy gives a committed key file a new inode and change time). A forged results file and key,
committed together, therefore never verify, and pnp checks everything. Nothing is written
outside the project. See docs/security.md. Without a usable key there is no fast path.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.problems import Problem
from pnp.project import stamp
from pnp.project.config import ConfigError, Project
from pnp.rules.result import CheckResult
from pnp.verify.keys import existing_key, project_key

if TYPE_CHECKING:
    from pnp.project.loaded import LoadedProject

CACHE_FOLDER = ".pnp-cache"  # pnp.drawing.findings.CACHE_FOLDER (not imported: it loads the records module)
RESULTS = Path("check") / "results.json"  # inside CACHE_FOLDER; a kind's render cache is KIND.json there
FACTS = Path("check") / "facts.json"  # inside CACHE_FOLDER: what pnp.core.filefacts keeps across runs, signed
MAX_FACTS_BYTES = 64 * 2**20
MAX_ENTRIES = 8  # option sets remembered (text and --no-render, --strict, ...): the oldest goes first
MAX_RESULTS_BYTES = 64 * 2**20
MAX_CACHE_BYTES = 64 * 2**20  # render caches hashed; beyond it, no fast path
NOT_INPUTS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}
)


@dataclass(frozen=True, slots=True)
class Ticket:
    """A check that may be replayed or remembered: where, with which options and inputs.

    `inputs` is None when no result is stored for these options: then nothing can be replayed,
    and the digest waits until the result is remembered, made from the record files' bytes the
    check read rather than by reading every file twice.
    """

    project: Project
    options: str
    inputs: str | None
    key: bytes
    seen: tuple[tuple[str, int, int, int], ...]  # each input file's size, time and inode, as digested
    files: tuple[tuple[str, os.stat_result], ...] = ()


def checked(
    project: Project,
    paths: tuple[Path, ...],
    ignore: frozenset[str],
    select: frozenset[str],
    strict: bool,
    render: bool,
    jobs: int,
) -> tuple[LoadedProject | None, CheckResult]:
    """`pnp check`'s result: replayed when nothing changed, else checked (and remembered).

    The loaded project comes back too (None when replayed), for the caller's exit: see cli._exit.
    """
    options = json.dumps([sorted(ignore), sorted(select), strict, render])
    ticket = None if paths else open_ticket(project, options)
    replayed = replay(ticket) if ticket else None
    if replayed is not None:
        return None, replayed
    from pnp.verify.run import CheckOptions, check_project

    check_options = CheckOptions(paths=paths, ignore=ignore, select=select, strict=strict, render=render, jobs=jobs)
    restore_facts(project)  # which images decode, as an earlier run found them (pnp.core.filefacts)
    loaded, result = check_project(project, check_options)
    keep_facts(project)
    if ticket:
        remember(ticket, result, loaded)
    return loaded, result


def open_ticket(project: Project, options: str) -> Ticket | None:
    """The ticket of a whole-project check with `options`; None when it cannot be replayed."""
    if not _all_inputs_walked(project):
        return None
    key = project_key(project)
    files = stamp.project_files(project, skipped_by_check) if key else None
    if not key or files is None:
        return None
    seen = _seen(files)
    entry = _stored(project).get(options)
    if not isinstance(entry, dict) or entry.get("seen") != _seen_digest(seen):
        # nothing to replay, or a file's size, time or inode changed since (an edit): no replay,
        # so no input is read twice; the inputs are digested when remembered, from what was checked
        return Ticket(project, options, None, key, seen, tuple(files))
    inputs = _inputs_digest(project, options, files)
    return Ticket(project, options, inputs, key, seen, tuple(files)) if inputs else None


def _seen_digest(seen: tuple[tuple[str, int, int, int], ...]) -> str:
    """The files' names, sizes, times and inodes, digested: a hint stored beside a result (not
    signed: it can only make a check run in full, never replay one)."""
    return hashlib.sha256(repr(seen).encode("utf-8", "surrogateescape")).hexdigest()


def replay(ticket: Ticket) -> CheckResult | None:
    """The stored result of these options and inputs, if its signature verifies; else None."""
    if ticket.inputs is None:
        return None
    entry = _stored(ticket.project).get(ticket.options)
    if not isinstance(entry, dict) or entry.get("inputs") != ticket.inputs:  # a hint: the mac decides
        return None
    caches = _caches_digest(ticket.project)
    if not caches or not isinstance(entry.get("payload"), str):
        return None
    payload = entry["payload"]
    if not hmac.compare_digest(str(entry.get("mac")), _mac(ticket, caches or "", payload)):
        return None  # forged, edited, or written with another key or for other inputs: check again
    try:
        data = json.loads(payload)
        problems = tuple(Problem(*fields) for fields in data["problems"])
        return CheckResult(problems, int(data["files"]), int(data["records"]), bool(data["strict"]))
    except (ValueError, TypeError, KeyError):
        return None


def remember(ticket: Ticket, result: CheckResult, loaded: LoadedProject | None = None) -> None:
    """Store `result`, signed, unless an input changed while it was checked. `loaded`: the
    project as checked, whose record files' bytes are digested without reading them again."""
    after = stamp.project_files(ticket.project, skipped_by_check)
    if after is None or _seen(after) != ticket.seen:
        return  # a file changed while it was checked: what was checked may not be what was digested
    caches = _caches_digest(ticket.project)  # as this check left them (it may have drawn)
    if caches is None:
        return
    if ticket.inputs is None:
        inputs = _inputs_digest(ticket.project, ticket.options, list(ticket.files), _hashed(loaded))
        if inputs is None:
            return
        ticket = replace(ticket, inputs=inputs)
    payload = _compact(
        {
            "files": result.files,
            "records": result.records,
            "strict": result.strict,
            "problems": [
                [p.file, p.line, p.column, p.pointer, p.code, p.severity, p.message, p.cell] for p in result.problems
            ],
        }
    )
    entries = _stored(ticket.project)
    entries.pop(ticket.options, None)
    entries[ticket.options] = {
        "mac": _mac(ticket, caches, payload),
        "inputs": ticket.inputs,
        "seen": _seen_digest(ticket.seen),
        "payload": payload,
    }
    kept = dict(list(entries.items())[-MAX_ENTRIES:])
    from pnp.core.output import atomic_write

    path = ticket.project.output / CACHE_FOLDER / RESULTS
    text = _compact(kept).encode("utf-8", "surrogatepass")
    with contextlib.suppress(OSError, ConfigError):  # read-only, a linked folder: only slower next time
        atomic_write(path, lambda handle: handle.write(text))


def _compact(value: Any) -> str:
    """`value` as compact JSON: orjson's (several times faster for thousands of problems), or the
    standard library's where a string holds what orjson refuses (a lone surrogate of a file name)."""
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"))


def _mac(ticket: Ticket, caches: str, payload: str) -> str:
    message = f"{ticket.options}\0{ticket.inputs}\0{caches}\0{payload}".encode("utf-8", "surrogateescape")
    return hmac.new(ticket.key, message, hashlib.sha256).hexdigest()


def _stored(project: Project) -> dict[str, Any]:
    from pnp.core.paths import RefusedFile, read_regular

    try:  # a regular file only: a pipe planted as the results must not block pnp
        data = json.loads(read_regular(project.output / CACHE_FOLDER / RESULTS, MAX_RESULTS_BYTES, project.root))
    except (RefusedFile, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def skipped_by_check(folder: str, name: str) -> bool:
    """Folders that are no project's input: version control, Python's caches and virtual environments."""
    return name in NOT_INPUTS or os.path.isfile(os.path.join(folder, name, "pyvenv.cfg"))


def _all_inputs_walked(project: Project) -> bool:
    """Every folder the check reads lies where the digest walks: inside the project, outside the
    output folder and the skipped folders."""
    output = os.path.realpath(project.output)
    folders = [project.records, project.schemas, project.layouts, project.sheets or project.root / "sheets"]
    folders += [project.root / name for name in project.sources]
    for folder in folders:
        real = os.path.realpath(folder)
        if real == output or real.startswith(output + os.sep) or output.startswith(real + os.sep):
            return False
        relative = os.path.relpath(real, os.path.realpath(project.root))
        if relative.startswith(os.pardir) or any(part in NOT_INPUTS for part in Path(relative).parts):
            return False
    return True


def _inputs_digest(
    project: Project,
    options: str,
    files: list[tuple[str, os.stat_result]],
    hashed: dict[str, tuple[int, bytes]] | None = None,
) -> str | None:
    """The digest of the options, the environment, pnp's files and the project's files."""
    context = [options, os.getcwd(), str(project.root), sys.version, *_distributions()]
    return stamp.input_digest(project, "\0".join(["check", *context]), files=files, hashed=hashed)


def _hashed(loaded: LoadedProject | None) -> dict[str, tuple[int, bytes]] | None:
    """The size and SHA-256 of the JSON record files as the check read them, by path, so that
    stamp.input_digest need not read them again (a validating child hashed the ones it read; YAML
    and table files are read again, their `raw` is no copy of the file)."""
    if loaded is None:
        return None
    return {
        str(f.path): (f.size, f.digest or hashlib.sha256(f.raw).digest())
        for f in loaded.files
        if f.locator is None and f.path.suffix.lower() == ".json"
    }


def _seen(files: list[tuple[str, os.stat_result]] | None) -> tuple[tuple[str, int, int, int], ...]:
    return tuple((name, info.st_size, info.st_mtime_ns, info.st_ino) for name, info in files or ())


def _distributions() -> list[str]:
    """The installed distributions with their versions (from the names of their metadata folders)."""
    found: list[str] = []
    for entry in sys.path[1:]:  # not the script's folder or the working folder (`python -m`)
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found += sorted(name for name in names if name.endswith((".dist-info", ".egg-info")))
    return found


def _caches_digest(project: Project) -> str | None:
    """The digest of the render caches (what a check read besides the inputs); None beyond bounds."""
    hasher = hashlib.sha256()  # in the processor's SHA instructions: twice BLAKE2b's speed here
    root = project.output / CACHE_FOLDER
    total = 0
    if os.path.islink(root):
        return None
    for folder, dirs, names in os.walk(root):
        if any(os.path.islink(os.path.join(folder, d)) for d in dirs):
            return None  # a linked folder: not walked here; the full check decides
        dirs[:] = sorted(d for d in dirs if folder != str(root) or d != RESULTS.parts[0])
        for name in sorted(names):
            path = os.path.join(folder, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    return None  # a link or a special file: the full check decides
                with open(path, "rb") as handle:
                    data = handle.read(MAX_CACHE_BYTES - total + 1)
            except OSError:
                return None
            total += len(data)
            if total > MAX_CACHE_BYTES:
                return None
            hasher.update(f"{os.path.relpath(path, root)}\0{len(data)}\n".encode("utf-8", "surrogateescape"))
            hasher.update(data)
    return hasher.hexdigest()


def restore_facts(project: Project) -> None:
    """Take back the file facts an earlier run kept (pnp.core.filefacts: which images decode, file
    digests), when their signature verifies: a forged file could call a decompression bomb sound."""
    from pnp.core.filefacts import restore
    from pnp.core.paths import RefusedFile, read_regular

    key = existing_key(project)
    if key is None:
        return
    try:
        data = json.loads(read_regular(project.output / CACHE_FOLDER / FACTS, MAX_FACTS_BYTES, project.root))
    except (RefusedFile, ValueError):
        return
    if not isinstance(data, dict) or not isinstance(data.get("facts"), str) or not isinstance(data.get("mac"), str):
        return
    if not hmac.compare_digest(data["mac"], _facts_mac(key, data["facts"])):
        return
    try:
        entries = json.loads(data["facts"])
    except ValueError:
        return
    if isinstance(entries, list):
        restore(project.root, entries)
        _KEPT[str(project.root)] = data["facts"]


def keep_facts(project: Project) -> None:
    """Keep the file facts this run learned for the next (see `restore_facts`), signed."""
    from pnp.core.filefacts import kept, learned
    from pnp.core.output import atomic_write

    if not learned():
        return
    key = project_key(project)
    if key is None:
        return
    payload = json.dumps(kept(project.root), separators=(",", ":"))
    if _KEPT.get(str(project.root)) == payload:
        return  # what is kept already: not written again (a render cache's time is its identity)
    _KEPT[str(project.root)] = payload
    text = json.dumps({"mac": _facts_mac(key, payload), "facts": payload}, separators=(",", ":")).encode()
    with contextlib.suppress(OSError, ConfigError):  # read-only, a linked folder: only slower next time
        atomic_write(project.output / CACHE_FOLDER / FACTS, lambda handle: handle.write(text))


_KEPT: dict[str, str] = {}  # project root -> the facts payload stored in its output folder, as last read or written


def _facts_mac(key: bytes, payload: str) -> str:
    return hmac.new(key, b"facts\0" + payload.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
