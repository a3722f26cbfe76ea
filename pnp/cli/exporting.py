"""`pnp export`: print-shop files, images, Tabletop Simulator sheets, the proof gallery and
records as tables (pnp.outputs.export does the work; this module parses and reports)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from pnp.cli.common import cli, language_runs, project_for, project_option, report_problems
from pnp.core.problems import Problem
from pnp.project.config import Project


@cli.group()
def export() -> None:
    """Export for print shops, image files, Tabletop Simulator and an HTML proof gallery.

    Every export checks the project first: with errors it writes nothing and exits 1 (the gallery
    can be written anyway with --with-errors). Files are written atomically and only when their
    inputs changed (--force rewrites them). See `pnp docs export`.
    """


export_format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="How to print problems.",
)
force_option = click.option("--force", is_flag=True, help="Rewrite even the files whose inputs did not change.")


def _report_export(project: Project, name: str, result: object, fmt: str, note: str = "") -> None:
    """Problems on stdout (like pnp build), what was written on stderr, then exit 0 or 1."""
    sys.exit(_print_export(project, name, result, fmt, note))


def export_lang_options(command: Any) -> Any:
    """--lang and --fallback of the picture exports (`pnp docs translations`)."""
    command = click.option(
        "--fallback", is_flag=True, help="With --lang: draw the source text where a translation is missing."
    )(command)
    return click.option(
        "--lang",
        "langs",
        multiple=True,
        help="Export a translation into output/LANG/ (repeatable; 'all': every one of [build] languages).",
    )(command)


def _export_languages(
    project: Project, name: str, langs: tuple[str, ...], options: Any, run: Any, fmt: str, with_errors: bool = False
) -> None:
    """One export per language (--lang; see `pnp docs translations`), each reported as if run alone."""
    codes = []
    seen: set[Problem] = set()  # each problem printed once, by the first language that finds it
    for lang, back in language_runs(project, langs, options.fallback):
        result = run(project, replace(options, lang=lang, fallback=back))
        label = f"{name} --lang {lang}" if lang else name
        note = " (written with the errors shown on the page)" if with_errors and result.written else ""
        codes.append(_print_export(project, label, result, fmt, note, seen))
    sys.exit(max(codes))


def _print_export(
    project: Project, name: str, result: object, fmt: str, note: str = "", seen: set[Problem] | None = None
) -> int:
    from pnp.outputs.export import ExportResult

    if not isinstance(result, ExportResult):
        raise TypeError(f"not an export result: {result!r}")
    if result.problems:
        report_problems(result.problems, fmt, seen)
    by_folder: dict[Path, list[Path]] = {}
    for path in result.written:
        by_folder.setdefault(path.parent, []).append(path)
    for folder, paths in by_folder.items():
        if len(paths) == 1:
            click.echo(f"wrote {project.display(paths[0])}", err=True)
        else:
            click.echo(f"wrote {len(paths)} files in {project.display(folder)}", err=True)
    stopped = " (stopped: fix the errors above; previous outputs are untouched)"
    click.echo(
        f"pnp export {name}: {len(result.written)} written, {len(result.skipped)} up to date"
        + ((note or stopped) if result.exit_code else ""),
        err=True,
    )
    return result.exit_code


@export.command("records")
@click.argument("kinds", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "xlsx", "json"]),
    default="json",
    show_default=True,
    help="File format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="File to write for one KIND; folder for several (default output/records/KIND.EXT).",
)
@project_option
def export_records(kinds: tuple[str, ...], fmt: str, output: Path | None, project_dir: Path | None) -> None:
    """The records of each KIND (default: every kind) as CSV, XLSX or JSON, to edit elsewhere and read back."""
    from pnp.outputs.tablewriter import export_records as run

    project = project_for(project_dir)
    _report_export(project, "records", run(project, kinds, fmt, output), "text")


@export.command("printshop")
@click.argument("kinds", nargs=-1)
@click.option(
    "--preset",
    default=None,
    metavar="NAME",
    help="A print shop's size, bleed and safe zone: poker-us, bridge-us, mini-us, tarot-us (1/8 in bleed and safe), "
    "poker, bridge, mini, tarot, square (3 mm), token-20, token-25, token-30, token-38 (2 mm); `pnp docs export`.",
)
@click.option(
    "--bleed",
    "bleed",
    default=None,
    metavar="LENGTH",
    help="Custom bleed, such as 3mm, 0.125in, 1/8in or 9pt (default: the layout's bleed).",
)
@click.option(
    "--order",
    type=click.Choice(["back-front", "front-back"]),
    default="back-front",
    show_default=True,
    help="Page order: back 1, front 1, back 2, ... or front 1, back 1, ...",
)
@force_option
@export_format_option
@export_lang_options
@project_option
def export_printshop(
    kinds: tuple[str, ...],
    preset: str | None,
    bleed: str | None,
    order: str,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    project_dir: Path | None,
) -> None:
    """One card per page at trim size plus bleed, with TrimBox and BleedBox: output/<game>/printshop/<kind>.pdf."""
    from pnp.outputs.export import ExportOptions, parse_length, run_printshop

    project = project_for(project_dir)
    options = ExportOptions(
        kinds=kinds,
        force=force,
        progress=True,
        preset=preset,
        bleed=parse_length(bleed) if bleed is not None else None,
        order=order,  # type: ignore[arg-type]  # click.Choice checked it
        fallback=fallback,
    )
    _export_languages(project, "printshop", langs, options, run_printshop, fmt)


@export.command("png")
@click.argument("kinds", nargs=-1)
@click.option("--dpi", type=click.IntRange(10, 1200), default=300, show_default=True, help="Resolution of the images.")
@click.option("--bleed", "with_bleed", is_flag=True, help="Keep the layout's bleed around each image.")
@force_option
@export_format_option
@export_lang_options
@project_option
def export_png(
    kinds: tuple[str, ...],
    dpi: int,
    with_bleed: bool,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    project_dir: Path | None,
) -> None:
    """One PNG per card face: output/<game>/png/<kind>/<record-id>[-<n>]-front.png and -back.png."""
    from pnp.outputs.export import ExportOptions, run_png

    project = project_for(project_dir)
    options = ExportOptions(kinds=kinds, force=force, progress=True, dpi=dpi, with_bleed=with_bleed, fallback=fallback)
    _export_languages(project, "png", langs, options, run_png, fmt)


@export.command("tts")
@click.argument("kinds", nargs=-1)
@click.option(
    "--dpi",
    type=click.IntRange(10, 1200),
    default=300,
    show_default=True,
    help="Resolution the cards are drawn at before they are scaled to fit 4096 px sheets.",
)
@force_option
@export_format_option
@export_lang_options
@project_option
def export_tts(
    kinds: tuple[str, ...],
    dpi: int,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    project_dir: Path | None,
) -> None:
    """Tabletop Simulator deck sheets: output/<game>/tts/<kind>-<n>.png, -<n>.json and <kind>-back.png."""
    from pnp.outputs.export import ExportOptions, run_tts

    project = project_for(project_dir)
    options = ExportOptions(kinds=kinds, force=force, progress=True, dpi=dpi, fallback=fallback)
    _export_languages(project, "tts", langs, options, run_tts, fmt)


@export.command("gallery")
@click.option(
    "--dpi", type=click.IntRange(10, 600), default=100, show_default=True, help="Resolution of the card images."
)
@click.option(
    "--with-errors",
    is_flag=True,
    help="Write the page even when there are errors, showing them on their cards (exit status still 1).",
)
@force_option
@export_format_option
@export_lang_options
@project_option
def export_gallery(
    dpi: int,
    with_errors: bool,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    project_dir: Path | None,
) -> None:
    """A static HTML proof page of every card, searchable by name: output/gallery/index.html."""
    from pnp.outputs.export import ExportOptions, run_gallery

    project = project_for(project_dir)
    options = ExportOptions(force=force, progress=True, dpi=dpi, with_errors=with_errors, fallback=fallback)
    _export_languages(project, "gallery", langs, options, run_gallery, fmt, with_errors)
