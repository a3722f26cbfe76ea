"""`pnp translate`: extract the catalogs, import a translator's sheet, show each language's status."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pnp.cli.common import cli, project_for, project_option, report_problems


@cli.group()
def translate() -> None:
    """Translation catalogs translations/<lang>.po for [build] languages (see `pnp docs translations`)."""


@translate.command("extract")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["po", "xlsx", "csv"]),
    default="po",
    show_default=True,
    help="Also write translations/<lang>.xlsx or .csv for translators who work in spreadsheets.",
)
@project_option
def translate_extract(fmt: str, project_dir: Path | None) -> None:
    """Write translations/messages.pot and update every language's catalog from the source texts."""
    from pnp.project.loaded import load_project_records
    from pnp.translation.translate import extract

    project = project_for(project_dir)
    written = extract(load_project_records(project), fmt)
    for path in written:
        click.echo(f"wrote {project.display(path)}", err=True)
    click.echo(f"pnp translate extract: {len(written)} written", err=True)


@translate.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--lang", required=True, help="The language the sheet translates into.")
@project_option
def translate_import(file: Path, lang: str, project_dir: Path | None) -> None:
    """Take a translator's FILE (.xlsx or .csv, as extract writes it) into translations/LANG.po."""
    from pnp.project.loaded import load_project_records
    from pnp.translation.translate import import_sheet

    project = project_for(project_dir)
    problems, written = import_sheet(load_project_records(project), file, lang)
    if problems:
        report_problems(tuple(problems), "text")
        click.echo("pnp translate import: nothing written (fix the rows above)", err=True)
        sys.exit(1)
    click.echo(f"wrote {project.display(written)}" if written else "pnp translate import: catalog unchanged", err=True)


@translate.command("status")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@project_option
def translate_status(fmt: str, project_dir: Path | None) -> None:
    """Per language: texts translated, missing, stale (source changed since) and unknown."""
    from pnp.project.loaded import load_project_records
    from pnp.translation.translate import render_status, status

    project = project_for(project_dir)
    rows = status(load_project_records(project))
    sys.stdout.write(render_status(rows, fmt))
    sys.exit(1 if any(row.error for row in rows) else 0)  # a catalog pnp cannot read is a mistake
