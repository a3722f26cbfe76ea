"""A version of the project read out of git objects, without a checkout.

Git runs as a subprocess with a fixed argv (no shell), its output read up to a bound and its run
cut at a timeout. A revision's files are listed (`git ls-tree`), checked (only regular files,
paths inside the project's folder, at most MAX_FILES files and MAX_TOTAL_BYTES in all) and
streamed out of `git cat-file --batch` into a private temporary folder that pnp then loads as a
project like any other. Neither the working tree nor the index is touched; symbolic links and
submodules of the revision are left out (listed in `Extracted.refused`).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pnp.core.problems import ConfigError

GIT_TIMEOUT = 60.0  # seconds for one quick git command (rev-parse, describe, ls-tree)
EXTRACT_TIMEOUT = 600.0  # seconds for streaming a revision's files
ANSWER_CAP = 1024 * 1024  # bytes of a quick command's output
LISTING_CAP = 64 * 1024 * 1024  # bytes of a revision's file listing
STDERR_CAP = 64 * 1024
MAX_FILES = 20_000  # files of the project at one revision
MAX_FILE_BYTES = 256 * 1024 * 1024  # one file (pnp.drawing.faces' FILE_CAP)
MAX_TOTAL_BYTES = 1024 * 1024 * 1024  # every file of the project at one revision
REGULAR_MODES = {"100644", "100755"}
REVISION = re.compile(r"[^\s\x00-\x1f\x7f]{1,256}")


class GitFailed(ConfigError):
    """Git ran and answered with a non-zero status; `stderr` is its first line."""

    def __init__(self, message: str, stderr: str) -> None:
        super().__init__(message)
        self.stderr = stderr


@dataclass(frozen=True, slots=True)
class Repository:
    """The git work tree holding a project, and the project's folder inside it ("" or "sub/dir/")."""

    top: Path
    prefix: str


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a revision's project folder held: files written, and entries left out (links, submodules)."""

    files: int
    size: int
    refused: tuple[str, ...]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_EXEC_PATH",)}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_CONFIG_NOSYSTEM="1")
    return env


@contextmanager
def _spawn(args: list[str], cwd: Path, stdin: bytes, timeout: float) -> Iterator[tuple[IO[bytes], list[bytes]]]:
    """`git ARGS` in `cwd` with `stdin` fed by a thread; yields its stdout and its stderr (filled
    when it ends). Raises ConfigError when git is missing, times out or fails."""
    try:
        process = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_environment(),
        )
    except FileNotFoundError:
        raise ConfigError("git is not installed or not on PATH; pnp diff reads earlier versions through git") from None
    except OSError as err:
        raise ConfigError(f"cannot run git: {err.strerror or err}") from None
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        process.kill()

    def feed(handle: IO[bytes]) -> None:
        try:
            handle.write(stdin)
            handle.close()
        except OSError:  # git ended early (killed, or it failed): its status says why
            pass

    errors: list[bytes] = [b""]

    def drain(handle: IO[bytes]) -> None:
        while chunk := handle.read(65536):
            if len(errors[0]) < STDERR_CAP:
                errors[0] += chunk[: STDERR_CAP - len(errors[0])]

    timer = threading.Timer(timeout, expire)
    threads = [
        threading.Thread(target=feed, args=(process.stdin,)),
        threading.Thread(target=drain, args=(process.stderr,)),
    ]
    timer.start()
    for thread in threads:
        thread.start()
    try:
        yield process.stdout, errors
    except BaseException:
        process.kill()
        raise
    finally:
        process.stdout.close()
        process.wait()
        timer.cancel()
        for thread in threads:
            thread.join()
    if timed_out.is_set():
        raise ConfigError(f"git {args[0]} took longer than {timeout:g} s; stopped")
    if process.returncode:
        text = errors[0].decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(f"git {args[0]} failed: {text[0] if text else f'status {process.returncode}'}", "\n".join(text))


def run_git(args: list[str], cwd: Path, limit: int = ANSWER_CAP, timeout: float = GIT_TIMEOUT) -> bytes:
    """The output of `git ARGS` in `cwd`, at most `limit` bytes (more: ConfigError)."""
    out = bytearray()
    with _spawn(args, cwd, b"", timeout) as (stdout, _):
        while chunk := stdout.read(65536):
            out += chunk
            if len(out) > limit:
                raise ConfigError(f"git {args[0]} answered with more than {limit} bytes; stopped")
    return bytes(out)


def repository(root: Path) -> Repository:
    """The git work tree holding the project at `root` (ConfigError: not a git repository)."""
    try:
        answer = run_git(["rev-parse", "--show-toplevel", "--show-prefix"], root).decode("utf-8", "surrogateescape")
    except GitFailed as err:
        said = err.stderr.splitlines()[0] if err.stderr else ""
        raise ConfigError(
            f"{root}: not in a git repository; pnp diff compares versions of a project kept in git (git init)"
            if "not a git repository" in said.lower() or not said
            else f"{root}: git cannot read the repository: {said}"
        ) from None
    lines = answer.split("\n")
    if len(lines) < 2:
        raise ConfigError(f"{root}: git did not say where the repository is")
    return Repository(Path(lines[0]), lines[1])


def resolve(repo: Repository, revision: str) -> str:
    """The commit `revision` names (a tag, branch, HEAD~2, an id), as its full id."""
    if not REVISION.fullmatch(revision) or revision.startswith("-"):
        raise ConfigError(f"{revision!r} is not a revision; give a tag, branch or commit (v1.2, main, HEAD~1)")
    try:
        answer = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], repo.top)
    except GitFailed:
        raise ConfigError(f"no revision {revision!r} in {repo.top} (see git log and git tag)") from None
    return answer.decode("ascii", "replace").strip()


def latest_tag(repo: Repository) -> str:
    """The latest tag reachable from HEAD (`git describe --tags --abbrev=0`)."""
    try:
        answer = run_git(["describe", "--tags", "--abbrev=0"], repo.top)
    except GitFailed as err:
        raise ConfigError(
            f"--since-tag: no release tag reachable from HEAD in {repo.top} ({err.stderr.splitlines()[0] if err.stderr else 'git describe failed'}); "
            "tag a release first (git tag v1.0) or name a revision"
        ) from None
    return answer.decode("utf-8", "replace").strip()


def extract(repo: Repository, commit: str, target: Path) -> Extracted:
    """Write the project's folder as it was at `commit` into the empty folder `target`."""
    tree = f"{commit}:{repo.prefix.rstrip('/')}" if repo.prefix else f"{commit}^{{tree}}"
    try:
        listing = run_git(["ls-tree", "-r", "-z", "--long", "--end-of-options", tree], repo.top, LISTING_CAP)
    except GitFailed:
        raise ConfigError(f"the project's folder {repo.prefix or './'} did not exist at {commit[:12]}") from None
    wanted: list[tuple[str, str, int]] = []  # (object id, path, size)
    refused: list[str] = []
    total = 0
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        head, _, raw_path = entry.partition(b"\t")
        fields = head.split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if len(fields) != 4:
            raise ConfigError(f"git ls-tree gave an entry pnp cannot read: {head[:80]!r}")
        mode, kind, oid, size_text = (f.decode("ascii", "replace") for f in fields)
        if kind != "blob" or mode not in REGULAR_MODES:
            refused.append(path)  # a symbolic link or a submodule: never followed
            continue
        if not _inside(path):
            refused.append(path)
            continue
        size = int(size_text)
        if size > MAX_FILE_BYTES:
            raise ConfigError(f"{commit[:12]}:{path}: {size} bytes, over {MAX_FILE_BYTES} bytes a file; pnp diff stops")
        total += size
        wanted.append((oid, path, size))
        if len(wanted) > MAX_FILES or total > MAX_TOTAL_BYTES:
            raise ConfigError(
                f"the project at {commit[:12]} has over {MAX_FILES} files or {MAX_TOTAL_BYTES // 2**20} MB; "
                "pnp diff compares projects below that"
            )
    _stream_blobs(repo, wanted, target)
    return Extracted(len(wanted), total, tuple(sorted(refused)))


def _inside(path: str) -> bool:
    """A relative path of plain names (no '..', '.', '.git', empty or absolute parts)."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..", ".git") for p in parts)


def _stream_blobs(repo: Repository, wanted: list[tuple[str, str, int]], target: Path) -> None:
    """Each blob of `wanted` from one `git cat-file --batch`, straight into its file under `target`."""
    if not wanted:
        return
    request = b"".join(oid.encode("ascii") + b"\n" for oid, _, _ in wanted)
    made: set[Path] = {target}
    with _spawn(["cat-file", "--batch"], repo.top, request, EXTRACT_TIMEOUT) as (stdout, _):
        for oid, path, size in wanted:
            header = stdout.readline(256).split()
            if len(header) != 3 or header[0].decode("ascii", "replace") != oid or int(header[2]) != size:
                raise ConfigError(
                    f"git cat-file gave {b' '.join(header)[:80]!r} for {path}; the repository may be damaged"
                )
            destination = target / path
            if destination.parent not in made:
                destination.parent.mkdir(parents=True, exist_ok=True)
                made.add(destination.parent)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
            descriptor = os.open(destination, flags, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                left = size
                while left:
                    chunk = stdout.read(min(left, 1024 * 1024))
                    if not chunk:
                        raise ConfigError(f"git cat-file ended early in {path}")
                    handle.write(chunk)
                    left -= len(chunk)
            stdout.read(1)  # the newline after each object
