"""A progress bar on standard error for long drawing runs (build, export); nothing off a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable


def progress_bar(enabled: bool, total: int) -> Callable[[int], None]:
    """A progress bar on a terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty() or total == 0:
        return lambda n: None
    import click

    bar = click.progressbar(length=total, label="rendering", file=sys.stderr)
    bar.__enter__()
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        bar.update(n)
        if done[0] >= total:
            bar.__exit__(None, None, None)

    return tick
