"""The build's check, found by a forked child while the build imports the drawing stage (pnp build
waits for its answer before it draws anything: a build with errors writes nothing); the garbage
collector held off while the build draws (`collections_deferred`)."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pnp.core.problems import Problem

if TYPE_CHECKING:
    from pnp.project.loaded import LoadedProject


def checked_meanwhile(
    loaded: LoadedProject, jobs: int, keep_going: bool, meanwhile: Callable[[], None] | None = None
) -> list[Problem] | None:
    """What the build's check finds (`check_loaded` without drawing), found by a forked child
    while this process imports the drawing stage, which a build that passes needs next: the
    rules, the schema validation and the cross-checks (and their imports) leave the start-up
    path of a small build. The answer is waited for before anything is drawn, so a build with
    errors still writes nothing. None: to check here (one core, --jobs 1, --keep-going, which
    needs the check's own reading for the records it leaves out; a process that imported the
    drawing stage already, such as `pnp watch`'s; or the child failed)."""
    from pnp.core.workers import Child, can_fork, usable_cores

    if jobs == 1 or keep_going or not can_fork() or (jobs == 0 and usable_cores() < 2):
        return None
    if jobs == 0 and "pnp.drawing.render" in sys.modules:  # imported already (pnp watch):
        return None  # nothing to do meanwhile, unless --jobs asks for more processes
    loaded.layouts  # noqa: B018 - read once, before the fork: both processes need them
    with _imported_for_good():  # and PIL: the check decodes images with it, reportlab imports it too
        import PIL.Image  # noqa: F401 - its readers are not: drawing takes a PNG or JPEG as it is
    from pnp.project.namedimages import learn_images

    learn_images(loaded, jobs)  # the images records name, decoded on every core before the check forks
    child = Child(_static_problems, loaded)
    with _imported_for_good():
        import pnp.drawing.combine
        import pnp.drawing.findings
        import pnp.drawing.render
        import pnp.outputs.readmefile  # noqa: F401 - imported while the child checks
    if meanwhile is not None:  # what the build needs next, made while the child still checks
        meanwhile()
    answer = child.result()
    if answer is None:
        return None
    from pnp.core.filefacts import take

    problems, facts = answer
    take(facts)  # what the child learned of files (the images it decoded): drawing does not decode them again
    return problems


@contextlib.contextmanager
def _imported_for_good() -> Iterator[None]:
    """Modules live to the end: imported without collections, then frozen (never walked again,
    as pnp.cli does for its own); before a fork, the child starts with no young collection due."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


@contextlib.contextmanager
def collections_deferred() -> Iterator[None]:
    """The cyclic garbage collector off while the kinds are drawn and their faces kept: its young
    collections walked what drawing makes (10,000 faces, 2,000 pages), 12 of them, 20 to 27 ms of
    a one-card edit of 10,000 cards, 90 ms of their cold build; a PDF document is no cycle (it is
    freed as it goes), and what lives on is walked once, after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _static_problems(loaded: LoadedProject) -> tuple[list[Problem], list[list[Any]]]:
    """In the forked child: what the check finds, and what it learned of files (pnp.core.filefacts)."""
    from pnp.core.filefacts import learned, start_learning
    from pnp.verify.run import CheckOptions, check_loaded

    start_learning()
    return list(check_loaded(loaded, CheckOptions(render=False))), learned()
