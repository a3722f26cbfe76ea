"""The one place that checks paths: what pnp reads stays inside the project and is a regular
file of bounded size; what it writes or deletes in the output folder is never reached through a
symbolic link.

Reading: `read_regular` opens without blocking (a FIFO or a device never hangs pnp), checks the
opened file is a regular one and reads at most `max_bytes`. Links inside the project are
followed; a link whose target leaves the project is refused (`leaves_project`).

Every reader names the project root it reads for (`root`; None only for files that are pnp's
own): a file named inside the project that is a link leading out of it is refused by every
reader, whichever stage asks (schemas, layouts, icons.json, sheets, caches), as record files are.
There is no module-global project: two projects may be read in one process.

Writing: the output folder is resolved by `pnp.toml` loading, so any link on the way from it to
a file pnp writes or deletes lies inside output/; `refuse_linked_folder` refuses such a path,
so a link there can never make pnp write or delete files elsewhere.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path

from pnp.core.limits import current, exceeded
from pnp.core.problems import ConfigError

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class RefusedFile(Exception):
    """A file pnp will not read: `code` is a problem code, `message` says why and what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class UnsafeOutput(ConfigError):
    """A file in the output folder reached through a symbolic link: never written or deleted."""


def leaves_project(path: Path | str, root: Path) -> bool:
    """True when `path`, links resolved, lies outside `root` (itself resolved)."""
    return not Path(os.path.realpath(path)).is_relative_to(root)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder that cannot be listed"  # the records walk lists every folder it can
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refuse_unless_regular(path: Path | str, root: Path | None) -> None:
    """RefusedFile unless `path` is a regular file (and, with `root`, not a link out of it): for
    files another library opens by name (workbooks), checked before it is handed the path."""
    if root is not None and os.path.islink(path) and leaves_project(path, root):
        raise RefusedFile(
            "unreadable-file",
            f"a symbolic link to {os.path.realpath(path)}, outside the project; "
            "pnp reads only files inside the project: copy the file into the project instead",
        )
    try:
        info = os.stat(path)
    except (OSError, ValueError) as err:
        raise RefusedFile("unreadable-file", f"cannot read file: {getattr(err, 'strerror', None) or err}") from None
    if not stat.S_ISREG(info.st_mode):
        raise RefusedFile(
            "unreadable-file", f"{kind_of(info.st_mode)}, not a regular file; pnp reads only regular files"
        )


def read_regular(path: Path | str, max_bytes: int, root: Path | None) -> bytes:
    """The bytes of a regular file; RefusedFile for anything else (never blocks, never reads more
    than `max_bytes`). With `root`, a symbolic link whose target is outside `root` is refused."""
    if root is not None and os.path.islink(path) and leaves_project(path, root):
        target = os.path.realpath(path)
        raise RefusedFile(
            "unreadable-file",
            f"a symbolic link to {target}, outside the project; pnp reads only files inside the project: "
            "copy the file into the project instead of linking to it",
        )
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise RefusedFile("unreadable-file", f"cannot read file: {err.strerror}") from None
    except ValueError as err:  # a NUL byte in the name
        raise RefusedFile("unreadable-file", f"cannot read file: {err}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(
                "unreadable-file", f"{kind_of(info.st_mode)}, not a regular file; pnp reads only regular files"
            )
        if info.st_size > max_bytes:
            raise RefusedFile(
                "file-too-large",
                f"file is {info.st_size / 1048576:.1f} MB, over the {max_bytes / 1048576:.0f} MB limit; "
                "split it into smaller files (or raise max-file-mb in pnp.toml)",
            )
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as err:
        raise RefusedFile("unreadable-file", f"cannot read file: {err.strerror}") from None
    finally:
        os.close(descriptor)
    if left <= 0:  # grew while being read
        raise RefusedFile("file-too-large", f"file is over the {max_bytes / 1048576:.0f} MB limit")
    return b"".join(chunks)


def refuse_linked_folder(path: Path) -> None:
    """UnsafeOutput when a folder on the way to `path` is a symbolic link (`path` itself may be
    one: replacing or deleting a link touches only the link)."""
    folder = os.path.abspath(path.parent)
    if os.path.realpath(folder) != folder:
        raise UnsafeOutput(
            f"{path}: a folder on the way to this output is a symbolic link; pnp never writes or deletes "
            "through links in the output folder: remove the link (or point 'output' in pnp.toml elsewhere)"
        )


@lru_cache(maxsize=1024)
def image_problem(path: Path) -> str:
    """Why the image at `path` cannot be drawn ("" when it can): not a regular file, too many
    pixels (a decompression bomb), or content that does not decode. Decoded once per build."""
    from PIL import Image

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "is not a regular file; point at an image file"
        with Image.open(path) as image:
            pixels = image.width * image.height
            if pixels > current().image_pixels:
                return exceeded("image_pixels", f"has {image.width} x {image.height} pixels")
            image.load()
    except Image.DecompressionBombError:
        return exceeded("image_pixels", "has too many pixels")
    except (OSError, ValueError, SyntaxError) as err:  # UnidentifiedImageError is an OSError
        return f"cannot be decoded ({err}); export it again as PNG or JPEG"
    return ""
