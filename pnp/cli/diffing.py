"""`pnp diff`: what changed between two versions of the project (docs/diff.md).

Exit status: 0 nothing changed, 1 something did (for CI), 2 an error (no such revision, not a git
repository, git missing, a version that cannot be read: its problems labelled with the version).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from pnp.cli.common import cli, exit_now, project_for, project_option, report_problems
from pnp.core.problems import Problem, one_line, text_line


@cli.command()
@click.argument("revisions", nargs=-1, metavar="[REV [REV2]]")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@click.option(
    "--since-tag", is_flag=True, help="Compare the latest release tag (git describe --tags) with the working tree."
)
@click.option("--no-files", is_flag=True, help="Print the report only; draw nothing and leave output/diff/ as it is.")
@click.option(
    "--dpi", type=click.IntRange(30, 300), default=100, show_default=True, help="Resolution of the report's images."
)
@project_option
def diff(
    revisions: tuple[str, ...], fmt: str, since_tag: bool, no_files: bool, dpi: int, project_dir: Path | None
) -> None:
    """Compare the project at REV (default HEAD) with the working tree, or REV with REV2: records
    added, removed and changed (each field), and the faces to reprint; writes
    output/diff/index.html (before and after) and output/diff/errata.pdf (the changed faces on
    cut sheets). Exit status 0: no change; 1: changes; 2: an error."""
    from pnp.outputs.diff.compare import compare
    from pnp.outputs.diff.report import REPORTERS
    from pnp.outputs.diff.versions import BrokenVersion, Request, opened_versions

    project = project_for(project_dir, fmt if fmt != "github" else "text")
    try:
        with opened_versions(project.root, Request(revisions, since_tag)) as (old, new):
            result = compare(old, new)
            if not no_files:
                from pnp.outputs.diff.visual import write_report

                written, drawn = write_report(project.output, old, new, result, dpi)
                for problem in drawn:  # what drawing the errata found in the new version
                    click.echo(text_line(problem), err=True)
                for path in written:
                    click.echo(f"wrote {project.display(path)}", err=True)
    except BrokenVersion as broken:
        _report_broken(broken.label, broken.problems, fmt)
        click.echo(f"pnp diff: {one_line(str(broken))}", err=True)
        exit_now(2)
    REPORTERS[fmt](result, sys.stdout, not no_files)
    exit_now(1 if result.changed else 0)


def _report_broken(label: str | None, problems: tuple[Problem, ...], fmt: str) -> None:
    """The problems of a version with errors; an earlier version's labelled `REV:` before each file."""
    if fmt == "text" or fmt == "github":
        for problem in problems:
            sys.stdout.write((f"{one_line(label)}:" if label else "") + text_line(problem) + "\n")
        return
    report_problems(tuple(replace(p, file=f"{label}:{p.file}") if label else p for p in problems), "json")
