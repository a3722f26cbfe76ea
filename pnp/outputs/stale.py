"""Outputs an earlier build made that this build no longer makes: a kind taken off the cut sheets,
a layout deleted, a sheet file removed, a game renamed. Left in output/, such a file looks current
and gets printed; so a whole build removes them.

Each whole build of one output folder (the project's paper and duplex, another paper, another
language) lists what it made in output/.pnp-cache/built/<variant>.json. The next whole build of
that folder removes the files of that list it did not make again, and only those that the output
manifest records (files pnp wrote and nobody replaced by a link): a file the user put in output/,
an export, another folder's build are never touched. A build of some kinds only (`--kind`) removes
nothing and keeps the list as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import orjson

from pnp.core.output import CACHE_FOLDER, Manifest, atomic_write, remove_output
from pnp.core.paths import RefusedFile, read_regular

LIST_MAX_BYTES = 16 * 1024 * 1024


def _list_file(output: Path, out_root: Path) -> Path:
    relative = out_root.relative_to(output).as_posix() if out_root != output else ""
    name = re.sub(r"[^a-z0-9.]+", "-", relative.lower()).strip("-.") or "default"
    return output / CACHE_FOLDER / "built" / f"{name}.json"


def _made_before(path: Path, root: Path) -> list[str]:
    try:
        names = orjson.loads(read_regular(path, LIST_MAX_BYTES, root))
    except (RefusedFile, ValueError):
        return []
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def drop_stale(output: Path, out_root: Path, made: Iterable[Path], manifest: Manifest, root: Path) -> list[Path]:
    """Remove what the last whole build into `out_root` made and this one (`made`) did not;
    record `made` for the next build. Returns the files removed (at the commit of the build's run)."""
    made_now = sorted({path.relative_to(output).as_posix() for path in made if path.is_relative_to(output)})
    listing = _list_file(output, out_root)
    removed = []
    for name in _made_before(listing, root):
        if name in made_now or name.startswith("/") or ".." in Path(name).parts:
            continue
        path = output / name
        if name in manifest.entries and path.is_file() and not path.is_symlink():
            remove_output(path)
            manifest.forget(path)
            removed.append(path)
    data = orjson.dumps(made_now)
    atomic_write(listing, lambda handle: handle.write(data))
    return removed
