"""The images a project's records name (top-level x-asset image fields), checked on every core
before a check forks (pnp.verify.run, pnp.outputs.buildcheck): where the rules and the drawing
would each decode every image in their own process, both then find each verdict known
(pnp.core.filefacts). 100 cards with photographs of their own spent most of a cold check there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.paths import image_fact, image_problem

if TYPE_CHECKING:
    from pnp.project.loaded import LoadedProject

MIN_SHARED_IMAGES = 8  # fewer images: each is decoded where it is asked about (a fork costs more)
MAX_IMAGE_WORKERS = 8  # processes that decode images at once


def learn_images(loaded: LoadedProject, jobs: int) -> None:
    """Whether each image the records name (top-level x-asset image fields) decodes, found on
    every core at once before a check forks: the rules and the drawing then both know it
    (pnp.core.filefacts), where each of them would decode every image itself. Nothing on one
    core, with --jobs 1, in a process with threads (a fork may inherit a lock one holds: `pnp
    watch`), or where fewer than MIN_SHARED_IMAGES images are not known yet."""
    import threading

    from pnp.core.filefacts import known, take
    from pnp.core.workers import Child, can_fork, usable_cores

    if jobs == 1 or not can_fork() or threading.active_count() > 1 or (jobs == 0 and usable_cores() < 2):
        return
    unknown = _unknown_images(loaded, known)
    if len(unknown) < MIN_SHARED_IMAGES:
        return
    cores = jobs if jobs > 1 else usable_cores()
    shares = max(2, min(cores, MAX_IMAGE_WORKERS, len(unknown) // MIN_SHARED_IMAGES))
    helpers = [Child(_images_in_child, unknown[k::shares]) for k in range(1, shares)]
    for path in unknown[0::shares]:
        image_problem(path)
    for helper in helpers:
        answer = helper.result()
        if answer is not None:  # else the images it had are decoded when asked about, as before
            take(answer)


def _unknown_images(loaded: LoadedProject, known: Callable[[Path, str], bool]) -> list[Path]:
    """The PNG and JPEG files inside the project that records name in top-level image fields
    and whose verdict is not known yet, each once, resolved as the check's asset_problem resolves
    them (a name that is no such file is left to the check, which says what is wrong with it).
    Where the first SAMPLED names are nearly all known (a check after an edit), none: the few new
    ones are decoded when asked about, and a deck of 10,000 images is not looked at twice a run."""
    root = loaded.project.root
    inside = root.resolve()
    names: set[str] = set()
    for kind, files in loaded.index.files_by_kind.items():
        for site in loaded.schemas.sites(kind):
            if site.what == "asset" and site.asset == "image" and len(site.path) == 1 and site.path[0] != "*":
                for record_file in files:
                    names.update(v for v in record_file.column(site.path[0]) if type(v) is str)
    unknown: dict[Path, None] = {}
    for looked, name in enumerate(sorted(names)):
        if looked == SAMPLED and len(unknown) < MIN_SHARED_IMAGES:
            return []
        try:
            resolved = (root / name).resolve()
            if not (resolved.is_relative_to(inside) and resolved.suffix.lower() in IMAGE_SUFFIXES):
                continue
            if not known(resolved, image_fact()) and resolved.is_file():
                unknown[resolved] = None
        except (OSError, ValueError):
            continue
    return list(unknown)


SAMPLED = 32  # names looked at before deciding whether the images are known already
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def _images_in_child(paths: list[Path]) -> list[list[Any]]:
    """In a forked child: each image's verdict (image_problem), as the facts it learned."""
    from pnp.core.filefacts import learned, start_learning

    start_learning()
    for path in paths:
        image_problem(path)
    return learned()
