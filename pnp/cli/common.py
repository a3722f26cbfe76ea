"""What every command shares: the `pnp` group, the --project option, opening the project,
printing problems, and ending the process (exit status: 0 clean, warnings allowed; 1 problems
found; 2 usage, configuration or environment error; 130 interrupted)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from pnp import __version__
from pnp.core import classcache
from pnp.core.problems import ConfigError, Problem
from pnp.project.config import Project, load_project


class Running:
    """What the running command asked for that its last words need: a configuration problem
    found after loading (a face the [paper] cannot hold) is printed in its report format too."""

    report_format = "text"


def project_for(explicit: Path | None, fmt: str | None = "text") -> Project:
    """The project; a located pnp.toml mistake is printed in the report format `fmt` (exit 2)."""
    if fmt is not None:
        Running.report_format = fmt
    try:
        return load_project(explicit=explicit)
    except ConfigError as err:
        if fmt is None or not err.problems:
            raise
        report_problems(err.problems, fmt)
        exit_now(2)


project_option = click.option(
    "--project",
    "project_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Project folder or pnp.toml (default: the nearest pnp.toml above the working directory).",
)


class CommandsOnDemand(click.Group):
    """pnp's command group: the modules of `export`, `translate` and `diff` are imported when one
    of those commands (or the list of commands, for help) is asked for, not by every `pnp build`."""

    elsewhere = {"diff": "pnp.cli.diffing", "export": "pnp.cli.exporting", "translate": "pnp.cli.translating"}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        import importlib

        if cmd_name not in self.commands:  # one of those, or a typo: click then suggests among them all
            for name, module in self.elsewhere.items():
                if name == cmd_name or cmd_name not in self.elsewhere:
                    importlib.import_module(module)  # its decorators add the command to this group
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.elsewhere})


@click.group(cls=CommandsOnDemand, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pnp")
def cli() -> None:
    """Check card and token records, and render them into print-and-play files."""


def report_problems(problems: tuple[Problem, ...], fmt: str, seen: set[Problem] | None = None) -> None:
    """Problems without counts (a build's, an export's, pnp.toml's) on stdout, in the format `fmt`.
    `seen`: what the runs before of the same command printed (one build per language checks the
    same catalogs): each problem is printed once."""
    from pnp.rules.report import REPORTER_BY_NAME
    from pnp.rules.result import CheckResult

    if seen is not None:
        problems = tuple(p for p in problems if p not in seen)
        seen.update(problems)
        if not problems:
            return
    REPORTER_BY_NAME[fmt](CheckResult(problems), sys.stdout)


def language_runs(project: Project, langs: tuple[str, ...], fallback: bool) -> list[tuple[str, bool]]:
    """(language, fallback) of each build or export: --lang as given; without --lang, the source
    language and every translation of [build] languages, drawing the source text where a
    translation is missing, which `pnp check` reports as a warning (check promises what build
    delivers); `--lang de` without `--fallback` asks for a complete translation."""
    chosen = languages(project, langs)
    if chosen:
        return [(lang, fallback) for lang in chosen]
    return [("", fallback), *((lang, True) for lang in project.languages[1:])]


def languages(project: Project, langs: tuple[str, ...]) -> tuple[str, ...]:
    """--lang values: 'all' is every translation; the source language is "" (the plain output/)."""
    if "all" in langs:
        if not project.languages[1:]:
            raise ConfigError('--lang all: pnp.toml lists no translations; add [build] languages = ["en", "de"]')
        langs = project.languages[1:]
    return tuple(dict.fromkeys("" if project.languages and lang == project.languages[0] else lang for lang in langs))


ending_process = False  # set by main(): the process ends when the command does


def exit_now(code: int) -> NoReturn:
    """End the command with `code`; when it ends the process, end it at once.

    Freeing hundreds of thousands of loaded records one by one, as unwinding the stack and
    interpreter shutdown would, takes longer than checking them; the operating system reclaims
    the memory in one go. Called as a library (not through main), this is sys.exit.
    """
    if ending_process:
        flush_and_exit(code)
    sys.exit(code)


def flush_and_exit(code: int) -> NoReturn:
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `pnp check | head`: the reader left early; that is not an error
        pass
    except OSError as err:  # `pnp check > /dev/full`: the report was not written, so no success
        code = max(code, 2)
        with contextlib.suppress(OSError):
            sys.stderr.write(f"pnp: error: cannot write to standard output: {err.strerror}\n")
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    classcache.keep()  # what this run compiled, for the next start
    os._exit(code)
