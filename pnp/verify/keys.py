"""The project's signing key: a random key pnp makes in the output folder, together with that key
file's identity on this disk (see pnp.verify.cache and docs/security.md). It signs the stored
check result, the file facts, the faces' keys per record file and the build's face store."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from pnp.project.config import ConfigError, Project

CACHE_FOLDER = ".pnp-cache"  # pnp.drawing.findings.CACHE_FOLDER (not imported: it loads the records module)
KEY = Path("check") / "key"  # inside CACHE_FOLDER, beside the stored results
KEY_BYTES = 32


def project_key(project: Project) -> bytes | None:
    """The signing key: the key file's bytes and its identity on this disk, made on first use;
    None when the output folder cannot hold one (then there is no fast path)."""
    path = project.output / CACHE_FOLDER / KEY
    key = _read_key(path)
    if key is None:
        from pnp.core.output import atomic_write

        with contextlib.suppress(OSError, ConfigError):  # read-only, a linked folder: no fast path
            atomic_write(path, lambda handle: handle.write(os.urandom(KEY_BYTES)))
        key = _read_key(path)
    return key


def existing_key(project: Project) -> bytes | None:
    """The signing key when there is one already (none is made)."""
    return _read_key(project.output / CACHE_FOLDER / KEY)


def _read_key(path: Path) -> bytes | None:
    """The key's bytes and (device, inode, change time): a regular file only, never a link."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        data = os.read(descriptor, KEY_BYTES + 1) if stat.S_ISREG(info.st_mode) else b""
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if len(data) != KEY_BYTES or info.st_ctime_ns % 1_000_000_000 == 0:
        return None  # not a key pnp made, or a disk whose whole-second times a forger could guess
    return data + f"\0{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}".encode()
