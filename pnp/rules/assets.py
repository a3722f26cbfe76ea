"""Asset fields of records (x-asset: an image or a font named by its path): each name checked
once per pass (inside the project, a regular file, the right kind of file, an image that
decodes), then only the records naming a bad one are looked at."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from pnp.core.paths import image_problem
from pnp.core.pointers import escape
from pnp.core.problems import Finding
from pnp.project.records import RecordFile
from pnp.project.schemas import Site

Located = tuple[RecordFile, Finding]


def short(value: str, limit: int = 80) -> str:
    """A value as quoted in a message: long ones cut, so that a message stays one readable line."""
    return value if len(value) <= limit else value[: limit - 3] + "..."


def asset_problems(
    record_file: RecordFile,
    kind: str,
    sites: list[tuple[Site, str]],
    root: Path,
    one_kind: bool,
    known: dict[tuple[str, str], Finding | None],
) -> Iterator[Located]:
    """The top-level asset fields (`sites`, with their keys) of a file's records of `kind`: each
    name checked once (`known`), then only the records naming a bad one are looked at; `one_kind`:
    every record is an object of that kind."""
    for site, key in sites:
        values = record_file.column(key)
        kinds = [kind] * len(values) if one_kind else record_file.column("kind")
        named = {value for value, of in zip(values, kinds, strict=True) if type(value) is str and of == kind}
        bad = {name for name in named if asset_once(root, name, site.asset, "", known) is not None}
        for i, (value, of) in enumerate(zip(values, kinds, strict=True)):
            if value in bad and of == kind:
                finding = asset_once(root, value, site.asset, f"{record_file.pointer(i)}/{escape(key)}", known)
                if finding is not None:
                    yield record_file, finding


def asset_once(
    root: Path, value: str, asset: str, pointer: str, known: dict[tuple[str, str], Finding | None]
) -> Finding | None:
    """`asset_problem`, asked once per name and kind of asset in a pass over a file's records
    (`known`): a file of cards that all show one image checked it once a card."""
    if (value, asset) not in known:
        known[value, asset] = asset_problem(root, value, asset, "")
    found = known[value, asset]
    return None if found is None else replace(found, pointer=pointer)


IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
FONT_MAGIC = (b"\x00\x01\x00\x00", b"true", b"OTTO")


def asset_problem(root: Path, value: str, asset: str, pointer: str) -> Finding | None:
    """Whether `value` is a readable image or font inside the project (symlinks resolved)."""
    candidate = Path(value)
    if candidate.is_absolute() or value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value):
        return Finding(
            "asset-outside-project", f"{value!r} is an absolute path; use a path relative to the project root", pointer
        )
    try:
        resolved = (root / candidate).resolve()
        inside = resolved.is_relative_to(root.resolve())
        exists = inside and resolved.is_file()
    except (OSError, ValueError) as err:  # a name too long, a NUL byte
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return Finding("missing-asset", f"{asset} {short(value)!r} is not a usable path: {reason}", pointer)
    if not inside:
        return Finding(
            "asset-outside-project",
            f"{value!r} points outside the project folder (through ../ or a symlink); keep assets inside the project",
            pointer,
        )
    if not exists and resolved.exists():  # a folder, a pipe, a device: never opened
        return Finding("bad-asset", f"{asset} {value!r} is not a regular file; name a file of the project", pointer)
    if not exists:
        return Finding(
            "missing-asset",
            f"{asset} {value!r} does not exist (paths are relative to the project root); check the path or add the file",
            pointer,
        )
    try:
        with resolved.open("rb") as handle:
            head = handle.read(16)
    except OSError as err:
        return Finding("bad-asset", f"{asset} {value!r} cannot be read: {err.strerror}", pointer)
    magic = IMAGE_MAGIC if asset == "image" else FONT_MAGIC
    if asset != "image" and head.startswith(b"ttcf"):
        return Finding(
            "bad-asset", f"{value!r} is a font collection (TTC); name a single .ttf or .otf font of it instead", pointer
        )
    if not head.startswith(magic):
        wanted = "a PNG or JPEG image" if asset == "image" else "a TrueType or OpenType font"
        return Finding("bad-asset", f"{value!r} is not {wanted}; convert it or point at another file", pointer)
    broken = image_problem(resolved) if asset == "image" else ""
    if broken:  # what pnp build would find: check promises what build delivers
        return Finding("bad-asset", f"image {value!r} {broken}", pointer)
    return None
