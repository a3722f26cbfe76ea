"""Writing built files: atomically, and only when their inputs changed.

Every output is written to a temporary file beside it and renamed over the old one, so a
failed or interrupted build leaves the previous file intact. A manifest in the output folder
records a digest of each output's inputs; an output whose digest is unchanged (and which still
exists) is skipped, so a second build with no change rewrites nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pnp import __version__
from pnp.problems import Problem

MANIFEST = ".pnp-manifest.json"


@dataclass(frozen=True, slots=True)
class OutputResult:
    """What a build or an export did: files written, files up to date, problems found."""

    written: tuple[Path, ...]
    skipped: tuple[Path, ...]
    problems: tuple[Problem, ...]

    @property
    def exit_code(self) -> int:
        return 1 if any(p.severity == "error" for p in self.problems) else 0


def atomic_write(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call `write` with a temporary file, then move it into place in one rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, renamed only on success
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_umask())
        os.replace(handle.name, path)
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


def digest(*parts: Any, files: Iterable[Path] = ()) -> str:
    """A stable digest of JSON-able `parts` and the bytes of `files` (plus the pnp version)."""
    hasher = hashlib.sha256()
    hasher.update(__version__.encode())
    hasher.update(json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False).encode())
    for file in sorted(set(files)):
        hasher.update(str(file).encode())
        try:
            hasher.update(hashlib.sha256(file.read_bytes()).digest())
        except OSError:
            hasher.update(b"<missing>")
    return hasher.hexdigest()


class Manifest:
    """Input digests of the files in one output folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / MANIFEST
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            self.entries: dict[str, str] = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            self.entries = {}

    def fresh(self, output: Path, input_digest: str) -> bool:
        """True when `output` exists and was built from exactly these inputs."""
        key = output.relative_to(self.folder).as_posix()
        return output.is_file() and self.entries.get(key) == input_digest

    def record(self, output: Path, input_digest: str) -> None:
        self.entries[output.relative_to(self.folder).as_posix()] = input_digest

    def save(self) -> None:
        text = json.dumps(self.entries, indent=1, sort_keys=True) + "\n"
        if self.path.is_file() and self.path.read_text(encoding="utf-8") == text:
            return
        atomic_write(self.path, lambda handle: handle.write(text.encode()))
