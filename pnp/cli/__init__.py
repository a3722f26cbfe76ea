"""The command line (`pnp ...`): pnp.cli.commands, loaded when a command runs."""

from __future__ import annotations

YOUNG_COLLECTION = 10_000  # new container objects between two collections of the youngest generation (Python: 700)


def main() -> None:
    """The `pnp` console script and `python -m pnp`.

    The cyclic garbage collector ran about 100 times in a 100-card build (8 ms of its 0.26 s),
    walking mostly module objects that live to the end: the command line's imports are made with
    it off and then frozen (never walked again), and a young collection comes every 10,000 new
    objects instead of 700 (docs/performance.md). Loading records switches it off too
    (pnp.project.loaded), and so does a build while it imports the drawing stage
    (pnp.outputs.build)."""
    import gc

    gc.disable()  # before any import: the class cache's own (pathlib, typing) were 10 collections
    from pnp.core.classcache import compile_once

    compile_once()  # the dataclasses' methods compiled once, not at every start (pnp.core.classcache)
    from pnp.cli.commands import main as run

    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    gc.enable()
    run()
