"""The command line (`pnp ...`): pnp.cli.commands, loaded when a command runs."""

from __future__ import annotations


def main() -> None:
    """The `pnp` console script and `python -m pnp`."""
    from pnp.cli.commands import main as run

    run()
