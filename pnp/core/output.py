"""Writing built files: atomically, all at once, and only when their inputs changed.

A build or an export is one `OutputRun` on the output folder: it takes a lock on the folder (a
second run waits for the first), removes temporary files that killed runs left, and stages every
output as a temporary file in the output folder. Only when the run ends without error are the
outputs put in place: the manifest entries of the files about to be replaced are first removed
(and the manifest saved), then every file is renamed over the old one, then the manifest is
saved with the new entries. So a failed run writes nothing, and no crash, kill or full disk can
make a stale file count as up to date. The manifest records a digest of each output's inputs;
an output whose digest is unchanged (and which still exists) is skipped, so a second build
with no change rewrites nothing.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from pnp import __version__
from pnp.core.limits import current as current_limits
from pnp.core.paths import RefusedFile, read_regular, refuse_linked_folder
from pnp.core.problems import ConfigError, Problem

MANIFEST = ".pnp-manifest.json"
TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # what tempfile names ".NAME." + 8 + ".tmp"
INPUT_CAP = 1 << 30  # inputs hashed for the manifest are read up to this size
MANIFEST_CAP = 64 << 20


@dataclass(frozen=True, slots=True)
class OutputResult:
    """What a build or an export did: files written, files up to date, problems found."""

    written: tuple[Path, ...]
    skipped: tuple[Path, ...]
    problems: tuple[Problem, ...]

    @property
    def exit_code(self) -> int:
        return 1 if any(p.severity == "error" for p in self.problems) else 0


CACHE_FOLDER = ".pnp-cache"
CACHE_IGNORE = b"# pnp's cache (pnp check, pnp build): never committed\n*\n"


def ignore_cache(path: Path) -> None:
    """A file in pnp's cache folder: the folder gets a `.gitignore` of `*` first, so that a
    `pnp check` in CI leaves `git status` clean in a repository that ignores nothing of pnp's."""
    parts = path.parts
    if CACHE_FOLDER not in parts[:-1]:
        return
    folder = Path(*parts[: parts.index(CACHE_FOLDER) + 1])
    ignore = folder / ".gitignore"
    if os.path.lexists(ignore):
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(ignore, "xb") as handle:
            handle.write(CACHE_IGNORE)
    except OSError:  # read-only, or written meanwhile by another pnp
        pass


def atomic_write(path: Path, write: Callable[[IO[bytes]], object], durable: bool = True) -> None:
    """Call `write` with a temporary file, then move it into place in one rename (during an
    OutputRun on the folder: when the run is committed). Never through a linked folder.
    `durable` False: not flushed to the disk first (a file whose readers ignore one cut short,
    as every file of the caches' folder is)."""
    refuse_linked_folder(path)
    if _active is not None and path.is_relative_to(_active.folder):
        _active.stage(path, write)  # the cache's .gitignore too is written at the commit
        return
    ignore_cache(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_temporary(path.parent, path, write, lambda name: os.replace(name, path), durable)


def rewrite_cache(path: Path, pieces: Sequence[bytes | memoryview]) -> None:
    """Write `pieces` over a file of the caches' folder, in place: cheaper than a new file renamed
    over it, which frees the old one's blocks (10 ms for the 14 MB of 10,000 kept faces). For a
    file whose readers verify it whole (a signature) and ignore it otherwise, as they would one
    that a crash or another pnp cut short. Only a regular file with no other link is written
    over; anything else (none yet, a link, a pipe) is replaced as `atomic_write` replaces it."""
    import stat

    refuse_linked_folder(path)
    if CACHE_FOLDER not in path.parts:
        raise ValueError(f"not a cache file: {path}")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        descriptor = -1
    if descriptor >= 0:
        try:
            info = os.fstat(descriptor)
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                os.ftruncate(descriptor, _write_pieces(descriptor, pieces))
                return
        finally:
            os.close(descriptor)
    atomic_write(path, lambda handle: handle.writelines(pieces))


def _write_pieces(descriptor: int, pieces: Sequence[bytes | memoryview]) -> int:
    """Write `pieces` one after the other from the file's start, a few hundred a call; their length."""
    views = [memoryview(piece) for piece in pieces if len(piece)]
    at = first = 0
    while first < len(views):
        done = os.pwritev(descriptor, views[first : first + 512], at)
        at += done
        while first < len(views) and done >= len(views[first]):
            done -= len(views[first])
            first += 1
        if done:  # a piece written in part: the rest of it next
            views[first] = views[first][done:]
    return at


def unwrapped(handle: IO[bytes]) -> IO[bytes]:
    """The file an `atomic_write` callback writes, without the temporary file's wrapper: a writer
    that writes in many small pieces (pikepdf: a million for a 10,000-card combined file) pays the
    wrapper's call on each."""
    return cast(IO[bytes], getattr(handle, "file", handle))


def _write_temporary(
    folder: Path,
    path: Path,
    write: Callable[[IO[bytes]], object],
    done: Callable[[str], None],
    durable: bool = True,
    sync: Callable[[int], None] = os.fsync,
) -> None:
    """`write` into a new temporary `.NAME.xxxxxxxx.tmp` in `folder`, flushed to the disk by `sync`
    (when `durable`, and not a file of the caches' folder), then `done(its name)`; the temporary
    file is removed when either fails."""
    import tempfile  # here: with shutil and random, it costs a no-change build's start-up ~5 ms

    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, renamed only on success
        dir=folder, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            write(handle)
            handle.flush()
            if durable and CACHE_FOLDER not in path.parts:  # a cache cut short is ignored (checked when read)
                sync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_umask())
        done(handle.name)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically replace `path` with `data`."""
    atomic_write(path, lambda handle: handle.write(data))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def digest(
    *parts: Any, files: Iterable[Path] = (), root: Path | None = None, hashed: Callable[[Path], str] | None = None
) -> str:
    """A stable digest of JSON-able `parts` and the bytes of `files` (plus the pnp version and the
    project's [limits], which decide what drawing refuses); `files` are read as the project at
    `root` reads them (a link out of it counts as missing). `hashed`: a file's SHA-256 in hex when
    the caller has it already (pnp.drawing.faces.FileDigests), anything else to read it here."""
    hasher = hashlib.sha256()
    hasher.update(__version__.encode())
    hasher.update(repr(current_limits()).encode())
    hasher.update(json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False).encode())
    for file in sorted(set(files)):
        hasher.update(str(file).encode())
        known = hashed(file) if hashed is not None else ""
        if len(known) == 64:  # the same SHA-256 of the same bytes
            hasher.update(bytes.fromhex(known))
            continue
        try:
            hasher.update(hashlib.sha256(read_regular(file, INPUT_CAP, root)).digest())
        except RefusedFile as err:  # why, too: a link out and a pipe in its place are found otherwise
            hasher.update(f"<refused:{err.code}:{err.message}>".encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()


class Manifest:
    """Input digests of the files in one output folder."""

    def __init__(self, folder: Path, root: Path | None = None) -> None:
        """`root`: the project's, when `folder` is its output (a manifest linking out is not read)."""
        self.folder = folder
        self.root = root
        self.path = folder / MANIFEST
        try:
            loaded = json.loads(read_regular(self.path, MANIFEST_CAP, root))
            self.entries: dict[str, str] = loaded if isinstance(loaded, dict) else {}
        except (RefusedFile, ValueError):
            self.entries = {}
        if _active is not None and folder == _active.folder:
            _active.manifests.append(self)

    def fresh(self, output: Path, input_digest: str) -> bool:
        """True when `output` exists (a file, not a link) and was built from exactly these inputs."""
        key = output.relative_to(self.folder).as_posix()
        return output.is_file() and not output.is_symlink() and self.entries.get(key) == input_digest

    def stored(self, output: Path) -> str | None:
        """The digest `output` was last recorded with (None: none)."""
        return self.entries.get(output.relative_to(self.folder).as_posix())

    def record(self, output: Path, input_digest: str) -> None:
        self.entries[output.relative_to(self.folder).as_posix()] = input_digest

    def forget(self, output: Path) -> None:
        self.entries.pop(output.relative_to(self.folder).as_posix(), None)

    def save(self) -> None:
        """Write the manifest now, or (during an OutputRun on its folder) when the run commits."""
        if _active is None or self.folder != _active.folder:
            self.write(self.entries)

    def write(self, entries: dict[str, str]) -> None:
        text = json.dumps(entries, indent=1, sort_keys=True) + "\n"
        try:
            if read_regular(self.path, MANIFEST_CAP, self.root) == text.encode():
                return
        except RefusedFile:
            if not entries and not os.path.lexists(self.path):
                return  # none written yet, none to write: a missing manifest reads as an empty one
        self.folder.mkdir(parents=True, exist_ok=True)
        _write_temporary(self.folder, self.path, lambda h: h.write(text.encode()), lambda n: os.replace(n, self.path))


class _Flusher:
    """Staged files flushed to the disk one after another on one thread while the run goes on (the
    call waits for the disk, not for Python: 10 to 15 ms for a 4 MB PDF). At most `PENDING` wait,
    each holding a duplicate of its descriptor; past that (an export of thousands of images) a file
    is flushed on the caller's thread, as it was before."""

    PENDING = 16

    def __init__(self) -> None:
        import queue
        import threading

        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(self.PENDING)
        self._failed: list[OSError] = []
        self._thread = threading.Thread(target=self._run, name="pnp-fsync", daemon=True)
        self._thread.start()

    def flush(self, descriptor: int) -> None:
        if self._slots.acquire(blocking=False):
            try:
                self._queue.put(os.dup(descriptor))  # the temporary file's handle is closed meanwhile
                return
            except OSError:  # no descriptor left to duplicate: flushed here
                self._slots.release()
        os.fsync(descriptor)

    def _run(self) -> None:
        while (own := self._queue.get()) is not None:
            try:
                os.fsync(own)
            except OSError as err:
                self._failed.append(err)
            finally:
                os.close(own)
                self._slots.release()

    def finish(self) -> None:
        """Wait for every flush asked for; raise the first that failed."""
        self._queue.put(None)
        self._thread.join()
        if self._failed:
            raise self._failed[0]


_active: OutputRun | None = None
_DISK_ERRORS = {
    errno.ENOSPC,
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.ENOTDIR,
    errno.EISDIR,
    errno.EDQUOT,
    errno.EEXIST,  # a plain file where the output folder (or one of its folders) should be
}


class OutputError(ConfigError):
    """The output folder cannot be written (full, read-only, not a folder): exit status 2."""


def _cannot_write(path: Path, err: OSError, replacing: bool = False) -> str:
    where = err.filename or path
    done = (
        "some outputs may have been replaced; none counts as up to date, so the next build redoes them"
        if replacing
        else "nothing was changed in the output folder"
    )
    why = (
        "a file stands where a folder should be" if err.errno in (errno.EEXIST, errno.ENOTDIR) else err.strerror or err
    )
    return f"cannot write {where}: {why}; {done} (free some space, or make it a writable folder)"


class OutputRun:
    """One build or export writing into `folder`: locked, staged, then committed or discarded.

    Used as a context manager: leaving it normally commits (unless `discard` was called),
    leaving it by an exception discards. One run at a time per process.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.staged: dict[Path, str] = {}  # target -> its temporary file in `folder`
        self.removals: dict[Path, None] = {}
        self.manifests: list[Manifest] = []
        self.discarded = False
        self._created = False
        self._lock: int | None = None
        self._flusher: _Flusher | None = None  # flushes the staged files on a thread of its own

    def __enter__(self) -> OutputRun:
        global _active
        if _active is not None:
            raise RuntimeError("one output run at a time")
        self._created = not self.folder.exists()
        self._lock = _lock_folder(self.folder)
        clean_temporaries(self.folder)
        _active = self
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        global _active
        try:
            if error is None and not self.discarded:
                try:
                    self.commit()
                except OSError as err:
                    self.discard()
                    raise OutputError(_cannot_write(self.folder, err, replacing=True)) from None
                except BaseException:  # a link found at the last moment, Ctrl-C: no temporary stays
                    self.discard()
                    raise
            else:
                self.discard()
        finally:
            _active = None
            if self._created and self.folder.is_dir() and not any(self.folder.iterdir()):
                self.folder.rmdir()  # a run that wrote nothing leaves no empty output folder
            if self._lock is not None:
                os.close(self._lock)  # releases the lock

    def stage(self, path: Path, write: Callable[[IO[bytes]], object]) -> None:
        """Write `path`'s new content to a temporary file, to be put in place by `commit`."""
        self.removals.pop(path, None)

        def keep(name: str) -> None:
            old = self.staged.get(path)
            if old is not None:
                os.unlink(old)
            self.staged[path] = name

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_temporary(self.folder, path, write, keep, sync=self._sync_meanwhile)
        except OSError as err:
            if err.errno not in _DISK_ERRORS:
                raise
            raise OutputError(_cannot_write(path, err)) from None

    def current(self, path: Path) -> Path:
        """Where `path`'s newest content is now: its staged temporary file, or the file itself."""
        staged = self.staged.get(path)
        return Path(staged) if staged else path

    def remove(self, path: Path) -> None:
        """Delete `path` (a stale output) when the run commits."""
        refuse_linked_folder(path)
        self.removals[path] = None

    def _sync_meanwhile(self, descriptor: int) -> None:
        """Flush a staged file to the disk on the run's flushing thread; `commit` waits for it."""
        if self._flusher is None:
            self._flusher = _Flusher()
        self._flusher.flush(descriptor)

    def _synced(self) -> None:
        """Wait for the staged files' flushes; the first that failed (a full disk) is raised."""
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            flusher.finish()

    def discard(self) -> None:
        """Throw every staged file away: the output folder stays as it was."""
        self.discarded = True
        with contextlib.suppress(OSError):
            self._synced()
        for name in self.staged.values():
            Path(name).unlink(missing_ok=True)
        self.staged.clear()
        self.removals.clear()

    def commit(self) -> None:
        """Forget the entries of what changes, replace the files, then record the new entries."""
        self._synced()  # every staged file on the disk before any is put in place
        changing = [*self.staged, *self.removals]
        for path in changing:
            refuse_linked_folder(path)
        if not changing:
            return
        for manifest in self.manifests:
            keys = {p.relative_to(manifest.folder).as_posix() for p in changing}
            manifest.write({k: v for k, v in manifest.entries.items() if k not in keys})
        crash_after = int(os.environ.get("PNP_TEST_KILL_AFTER_REPLACING", "-1"))  # test-only: see tests
        staged = sorted(self.staged.items(), key=lambda item: CACHE_FOLDER in item[0].parts)  # outputs, then caches
        for count, (path, name) in enumerate(staged):
            if count == crash_after:
                import signal

                os.kill(os.getpid(), signal.SIGKILL)
            path.parent.mkdir(parents=True, exist_ok=True)
            refuse_linked_folder(path)
            ignore_cache(path)
            os.replace(name, path)
            del self.staged[path]
        for path in self.removals:
            if path.is_file() or path.is_symlink():
                path.unlink()
                _prune_empty(path.parent, self.folder)
        for manifest in self.manifests:
            manifest.write(manifest.entries)


def _prune_empty(folder: Path, top: Path) -> None:
    """Remove `folder` and its parents up to (not including) `top` while they are empty: a stale
    game's files removed leave no empty folder behind that looks like a game."""
    while folder != top and folder.is_relative_to(top) and not folder.is_symlink():
        try:
            folder.rmdir()  # only an empty folder: anything the user put there keeps it
        except OSError:
            return
        folder = folder.parent


def _lock_folder(folder: Path) -> int | None:
    """An exclusive lock on the folder holding `folder` (so that taking it creates no file),
    waiting for another run that holds it."""
    try:
        import fcntl
    except ImportError:  # not on this platform: runs are not serialised
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(folder.parent, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"pnp: waiting for another pnp run writing to {folder} ...", file=sys.stderr, flush=True)
        fcntl.flock(descriptor, fcntl.LOCK_EX)
    return descriptor


def clean_temporaries(folder: Path) -> None:
    """Remove `.NAME.xxxxxxxx.tmp` files that killed runs left (only called under the lock)."""
    for parent, folders, files in os.walk(folder):  # links to folders are not followed
        folders[:] = [f for f in folders if not os.path.islink(os.path.join(parent, f))]
        for name in files:
            if TEMPORARY.match(name):
                Path(parent, name).unlink(missing_ok=True)


def current(path: Path) -> Path:
    """Where the newest content of an output is (staged during a run, else the file)."""
    return _active.current(path) if _active is not None else path


def remove_output(path: Path) -> None:
    """Delete a stale output: at commit during a run, at once otherwise; never through a link."""
    refuse_linked_folder(path)
    ignore_cache(path)
    if _active is not None and path.is_relative_to(_active.folder):
        _active.remove(path)
    else:
        path.unlink(missing_ok=True)
