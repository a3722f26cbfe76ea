"""The no-change fast path of `pnp build`: one digest of every input, compared before anything is loaded.

A build that found no problem leaves a stamp in the output folder: a digest of its options, of
pnp's own files (name, size, time) and of the content of every file of the project (records,
schemas, layouts, sheets, fonts, images: every regular file outside the output folder and hidden
folders), with the outputs it wrote or found up to date. The next `pnp build` (not --force, not
of some kinds only) that computes the same digest and finds those outputs still there has nothing
to do, and says so without loading a record or importing the drawing stages. Anything else, and
the full build decides file by file from its manifest, as before. Projects whose files exceed the
bounds below get no stamp. Only the standard library is imported here (start-up time).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pnp.project.config import Project

STAMP = ".pnp-stamp.json"
MAX_FILES = 20_000
MAX_BYTES = 64 * 2**20
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})


def skipped_by_build(folder: str, name: str) -> bool:
    """Folders the build's digest leaves out: hidden ones, caches of other tools."""
    return name.startswith(".") or name in SKIPPED_FOLDERS


def input_digest(
    project: Project,
    options: str,
    skipped: Callable[[str, str], bool] = skipped_by_build,
    files: list[tuple[str, os.stat_result]] | None = None,
    hashed: dict[str, tuple[int, bytes]] | None = None,
) -> str | None:
    """The digest of `options`, pnp's files and the content of the project's `files` (default:
    `project_files`); None beyond the bounds. Each file counts by its SHA-256, so `hashed` (size
    and SHA-256 of files a caller already read, by path: the project root joined with the
    relative path) spares reading those again where the size is the file's.

    SHA-256: tens of megabytes of records are hashed here, and it runs in the processor's SHA
    instructions (twice BLAKE2b's speed in CPython)."""
    hasher = hashlib.sha256(options.encode("utf-8", "surrogateescape"))
    hasher.update(package_digest().encode())
    listed = project_files(project, skipped) if files is None else files
    if listed is None:
        return None
    total = 0
    known = hashed or {}
    for relative, info in listed:
        path = os.path.join(project.root, relative)
        size, digest = known.get(path, (-1, b""))
        if size != info.st_size:
            with open(path, "rb") as handle:
                data = handle.read(min(info.st_size, MAX_BYTES - total) + 1)  # not a 64 MB buffer per file
            size, digest = len(data), hashlib.sha256(data).digest()
            if size > info.st_size:
                return None  # a file that grew since it was listed
        total += size
        if total > MAX_BYTES:
            return None  # beyond the bounds
        hasher.update(f"{relative}\0{size}\n".encode("utf-8", "surrogateescape"))
        hasher.update(digest)
    return hasher.hexdigest()


def project_files(project: Project, skipped: Callable[[str, str], bool]) -> list[tuple[str, os.stat_result]] | None:
    """Every file of the project (relative path, lstat), but the output folder and the folders
    `skipped(parent, name)` names, in a fixed order; None for a link or a special file anywhere
    (the full run decides) or more than MAX_FILES."""
    found: list[tuple[str, os.stat_result]] = []
    output = os.path.realpath(project.output)
    root = os.path.realpath(project.root)  # below it, no links (or None): joined paths are real
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            return None
        folders = []
        for entry in entries:
            if entry.is_symlink():
                return None  # a link: not followed here; the full run reads (or refuses) it
            if entry.is_dir(follow_symlinks=False):
                if not skipped(folder, entry.name) and entry.path != output:
                    folders.append((entry.path, f"{prefix}{entry.name}{os.sep}"))
                continue
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode) or len(found) >= MAX_FILES:
                return None  # a pipe, a device, a socket; or too many files
            found.append((prefix + entry.name, info))
        stack.extend(reversed(folders))  # files of a folder, then its folders in order
    return found


@cache
def package_digest() -> str:
    """pnp's own files (its code, schemas, fonts, templates) by path, size and modification time,
    as Python's bytecode cache knows a source changed: a new pnp version, or an edit of pnp, draws
    everything again. Once a process: the code running does not change under it."""
    hasher = hashlib.sha256()
    for relative, info in _package_files():
        hasher.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()


def _package_files() -> list[tuple[str, os.stat_result]]:
    """pnp's own files (not compiled ones), by relative path, with their size and time."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    found: list[tuple[list[str], os.stat_result]] = []
    for folder, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        parts = os.path.relpath(folder, package).split(os.sep) if folder != package else []
        found += [([*parts, name], os.stat(os.path.join(folder, name))) for name in names]
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), info) for parts, info in found if stat.S_ISREG(info.st_mode)]


def _read(project: Project) -> dict[str, Any]:
    from pnp.core.paths import RefusedFile, read_regular

    try:  # a regular file only: a pipe planted as the stamp must not block pnp
        data = json.loads(read_regular(project.output / STAMP, 16 * 1024 * 1024, project.root))
    except (RefusedFile, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def fresh_outputs(project: Project, options: str, digest: str) -> tuple[Path, ...] | None:
    """The outputs of the last clean build with this digest, when all are still there; else None."""
    entry = _read(project).get(options)
    if not isinstance(entry, dict) or entry.get("digest") != digest or not isinstance(entry.get("outputs"), list):
        return None
    if not _clean_output(project.output):
        return None
    outputs = tuple(project.output / str(name) for name in entry["outputs"])
    seen = entry.get("seen")
    if not isinstance(seen, list) or len(seen) != len(outputs):
        return None
    # each output as that clean build left it: one a later (perhaps killed) build replaced is not fresh
    return outputs if all(_seen(path) == stored for path, stored in zip(outputs, seen, strict=True)) else None


def _clean_output(output: Path) -> bool:
    """No temporaries of a killed run to clean up, and a manifest that is a regular file."""
    from pnp.core.output import MANIFEST

    if _seen(output / MANIFEST) is None:
        return False
    for _folder, _dirs, names in os.walk(output):
        if any(name.startswith(".") and name.endswith(".tmp") for name in names):
            return False
    return True


def _seen(path: Path) -> list[int] | None:
    """A regular file's size and modification time (ns), or None (missing, a link, not a file)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns] if stat.S_ISREG(info.st_mode) else None


def record(project: Project, options: str, digest: str, outputs: tuple[Path, ...]) -> None:
    """Remember a clean build's digest and outputs (paths inside the output folder only)."""
    from pnp.core.output import atomic_write

    inside = [path for path in outputs if path.is_relative_to(project.output)]
    if len(inside) != len(outputs):
        return
    data = _read(project)
    names = sorted(p.relative_to(project.output).as_posix() for p in inside)
    data[options] = {"digest": digest, "outputs": names, "seen": [_seen(project.output / name) for name in names]}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    # not flushed to the disk: one cut short by a crash does not parse, one lost names other
    # digests or sizes and times, and either way the next build simply builds
    atomic_write(project.output / STAMP, lambda handle: handle.write(text.encode()), durable=False)
