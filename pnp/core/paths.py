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

import math
import os
import re
import stat
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


def project_file(root: Path, name: str, resolved_root: Path | None = None) -> tuple[Path | None, str]:
    """The file `name` (relative to the project folder `root`, resolved) names, and what is wrong
    with it ("" for a regular file inside the project): a name the system refuses (a NUL byte, a
    part over 255 bytes), a path out of the project, nothing there, or something that is not a
    regular file, said as what it is (a folder, a named pipe), never as "does not exist".
    `resolved_root`: `root` resolved (resolve_root), when a caller checks many names."""
    try:
        path = (root / name).resolve()
        if not path.is_relative_to(root.resolve() if resolved_root is None else resolved_root):
            return path, "is outside the project"
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None, "does not exist"
    except (OSError, ValueError) as err:  # a NUL byte, a name too long, a loop of links
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return None, f"is not a usable path: {reason}"
    if stat.S_ISDIR(info.st_mode):
        return path, "is a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return path, f"is {kind_of(info.st_mode)}, not a regular file"
    return path, ""


def project_files(root: Path, names: list[str]) -> list[tuple[Path | None, str]]:
    """`project_file` of each of `names` (the same answers), for many files in few folders (the
    images of icons.json): each folder is resolved once, then a name that is no link is its
    resolved folder joined with it, where `Path.resolve` would look at every part of every path."""
    inside = resolve_root(root)
    folders: dict[str, str] = {}
    within: dict[str, bool] = {}  # a resolved folder -> whether it is inside (then so is each file in it)
    answers: list[tuple[Path | None, str]] = []
    for name in names:
        try:
            joined = os.path.join(root, name)
            folder, leaf = os.path.split(joined)
            real = folders.get(folder)
            if real is None:
                real = folders[folder] = os.path.realpath(folder)
            if leaf in ("", ".", "..") or inside is None:
                raise ValueError(leaf)  # the general path
            path = Path(real, leaf)
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            answers.append(project_file(root, name, inside))  # its own words for what is missing
            continue
        except (OSError, ValueError):
            answers.append(project_file(root, name, inside))
            continue
        folder_within = within.get(real)
        if folder_within is None:
            folder_within = within[real] = Path(real).is_relative_to(inside)
        if stat.S_ISLNK(info.st_mode):
            answers.append(project_file(root, name, inside))  # where the link leads: resolved in full
        elif not (folder_within or path.is_relative_to(inside)):  # (the root itself, named from outside)
            answers.append((path, "is outside the project"))
        elif stat.S_ISDIR(info.st_mode):
            answers.append((path, "is a folder, not a file"))
        elif not stat.S_ISREG(info.st_mode):
            answers.append((path, f"is {kind_of(info.st_mode)}, not a regular file"))
        else:
            answers.append((path, ""))
    return answers


def resolve_root(root: Path) -> Path | None:
    """`root` resolved once for many project_file calls; None when it cannot be (each call then
    resolves it, and fails, as it would alone)."""
    try:
        return root.resolve()
    except Exception:  # noqa: BLE001 - project_file meets the same failure and handles it as it always did
        return None


def asset_code(problem: str) -> str:
    """The problem code of a `project_file` problem."""
    if problem == "is outside the project":
        return "asset-outside-project"
    return "missing-asset" if problem == "does not exist" or problem.startswith("is not a usable") else "bad-asset"


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
        want = min(left, info.st_size + 1)  # the whole file at once; os.read allocates what it asks for
        while left > 0:
            chunk = os.read(descriptor, want)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            want = min(left, 1 << 20 if len(chunk) == want else 4096)  # a short read: most likely the end
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


def image_problem(path: Path) -> str:
    """Why the image at `path` cannot be drawn ("" when it can): not a regular file, too many
    pixels (a decompression bomb), or content that does not decode. Decoded once while the file
    is unchanged (pnp.core.filefacts: across runs too, where the command keeps the facts)."""
    from pnp.core.filefacts import fact

    return fact(path, image_fact(), lambda: _image_problem(path))


def image_fact() -> str:
    """The name of `image_problem`'s verdict among a file's facts (the limit it was made under)."""
    return f"image {current().image_pixels}"


PLAIN_PNG_MAX_BYTES = 64 * 1024 * 1024  # a bigger PNG is checked by decoding it, as any other image


def _image_problem(path: Path) -> str:
    if path.suffix.lower() == ".png":
        problem = _plain_png_problem(path)
        if problem is not None:
            return problem
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


def _plain_png_problem(path: Path) -> str | None:
    """`_image_problem` of a PNG the PDF takes as it is (pnp.core.pngfile), without PIL: its rows
    inflated and their filter types checked, not undone (half the time of decoding it); None for
    any other file (PIL decodes it)."""
    from pnp.core.pngfile import plain_png, plain_png_problem

    try:
        png = plain_png(read_regular(path, PLAIN_PNG_MAX_BYTES, None))
    except RefusedFile:
        return None  # not a regular file, or a big one: the general path says what it says
    if png is None:
        return None
    if png.width * png.height > current().image_pixels:
        return exceeded("image_pixels", f"has {png.width} x {png.height} pixels")
    return plain_png_problem(png)


SVG_MAX_BYTES = 5 * 1024 * 1024  # an icon is a few kilobytes of paths
_SVG_NUMBER = re.compile(r"\s*([-+]?(?:inf(?:inity)?|nan|[0-9.]+(?:e[-+]?[0-9]+)?))", re.IGNORECASE)


def svg_problem(path: Path, project_root: Path | None) -> str:
    """Why the SVG icon at `path` cannot be drawn ("" when it can): not a readable regular file,
    not XML, not an <svg>, or a width, height or viewBox that is no finite positive number
    (`width="inf"`, `viewBox="0 0 1e400 10"`). XML entities are never fetched; expat bounds
    their expansion."""
    from xml.etree import ElementTree

    try:
        raw = read_regular(path, SVG_MAX_BYTES, project_root)
    except RefusedFile as refused:
        return refused.message
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as err:
        return f"is not a valid SVG file (XML: {err}); export it again"
    if root.tag.rsplit("}", 1)[-1] != "svg":
        return "is not an SVG file (its first element is not <svg>); export it again"
    for attribute in ("width", "height", "viewBox"):
        value = root.get(attribute)
        if value is None:
            continue
        parts = value.replace(",", " ").split() if attribute == "viewBox" else [value]
        numbers = [_SVG_NUMBER.match(part) for part in parts]
        if attribute == "viewBox" and len(parts) != 4:
            return f"has a viewBox of {value!r}, not four numbers; fix the file's <svg> element"
        for found in numbers:
            if found is None:
                continue
            try:
                number = float(found.group(1))
            except ValueError:
                continue
            if not math.isfinite(number) or (
                number <= 0 and (attribute != "viewBox" or found is numbers[2] or found is numbers[3])
            ):
                return f"has {attribute}={value!r}, not a finite size above 0; fix the file's <svg> element"
    return ""
