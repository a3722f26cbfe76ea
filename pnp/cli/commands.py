"""Command line: `pnp check`, `pnp check-changed`, `pnp stats`, `pnp new`, `pnp build`, `pnp export`,
`pnp translate`, `pnp watch`, `pnp schema-path`, `pnp init-schema`.

Exit status: 0 clean (warnings allowed), 1 problems found, 2 usage, configuration or environment
error, 130 interrupted (Ctrl-C).
Heavy modules (reportlab, jinja2) are imported inside the commands that draw, so `pnp check`
starts fast.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import click

from pnp import __version__
from pnp.core.problems import expand_codes, one_line
from pnp.project.config import ConfigError, Project, load_project

if TYPE_CHECKING:
    from pnp.outputs.build import BuildOptions


def _project(explicit: Path | None, fmt: str | None = None) -> Project:
    """The project; a located pnp.toml mistake is printed in the report format `fmt` (exit 2)."""
    try:
        return load_project(explicit=explicit)
    except ConfigError as err:
        if fmt is None or not err.problems:
            raise
        from pnp.rules.report import REPORTER_BY_NAME
        from pnp.rules.result import CheckResult

        REPORTER_BY_NAME[fmt](CheckResult(err.problems, 0, 0), sys.stdout)
        _exit(2)


project_option = click.option(
    "--project",
    "project_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Project folder or pnp.toml (default: the nearest pnp.toml above the working directory).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pnp")
def cli() -> None:
    """Check card and token records, and render them into print-and-play files."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option(
    "--ignore",
    default="",
    help="Comma-separated codes or groups (references, json, schema, assets, tables, render, translations) to skip.",
)
@click.option("--select", default="", help="Comma-separated codes or groups to report, and only those.")
@click.option(
    "--render/--no-render",
    default=True,
    help="Draw every card with a layout, as pnp build does, to find text that does not fit, fonts, images, "
    "colours and template errors (default; --no-render skips it, for editors).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    help="Processes to check with; 0 (default): 2 on a multi-core machine for projects over 4 MB, else 1.",
)
@project_option
def check(
    paths: tuple[Path, ...],
    fmt: str,
    strict: bool,
    ignore: str,
    select: str,
    render: bool,
    jobs: int,
    project_dir: Path | None,
) -> None:
    """Validate records against their schemas and check every cross-reference."""
    from pnp.rules.report import REPORTER_BY_NAME
    from pnp.verify.cache import checked

    for path in paths:
        if not path.exists():
            raise ConfigError(f"{path}: no such file or folder")
    try:
        ignored, selected = expand_codes(ignore), expand_codes(select)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    project = _project(project_dir, fmt)
    loaded, result = checked(project, paths, ignored, selected, strict, render, jobs)  # replayed if nothing changed
    REPORTER_BY_NAME[fmt](result, sys.stdout)
    _exit(result.exit_code)  # while `loaded` is still referenced: see _exit


@cli.command("check-changed")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
def check_changed(files: tuple[Path, ...], strict: bool) -> None:
    """Check what changing FILES can break (the pre-commit hook's command).

    Changed record files are checked as records; a changed pnp.toml, schema, layout, icons.json,
    sheet or other project data file checks the whole project. Other files are ignored.
    """
    from pnp.cli.changed import plan_checks
    from pnp.rules.report import REPORTER_BY_NAME
    from pnp.verify.run import CheckOptions, check_project

    code = 0
    for plan in plan_checks(files):
        _, result = check_project(plan.project, CheckOptions(paths=plan.records, strict=strict))
        REPORTER_BY_NAME["text"](result, sys.stdout)
        code = max(code, result.exit_code)
    sys.exit(code)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="The game's name, when PATH is not it (then PATH is the folder as given).")
def new(path: Path, name: str | None) -> None:
    """Create a project for your game: pnp new "Ember Wild" writes ember-wild/ with an example
    card kind (schema, records, layout with a back), a component list, an icon, a README and a CI workflow."""
    from pnp.outputs.scaffold import new_project_target, scaffold

    directory, title = new_project_target(path, name)
    created = scaffold(directory, title)
    click.echo(f"created {len(created)} files in {directory}; next: cd {directory} && pnp check && pnp build")


@cli.command("init-schema")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--kind", default=None, help="The kind, GAME.KIND (default: the file's kind column, if it has one value)."
)
@click.option("--sheet", default=None, help="The workbook sheet to read (default: the first visible one).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Write here instead of stdout.")
def init_schema(file: Path, kind: str | None, sheet: str | None, output: Path | None) -> None:
    """Propose a kind schema from a spreadsheet's headers and values (CSV, TSV, XLSX, ODS), to edit."""
    from pnp.outputs.initschema import propose_schema, schema_text
    from pnp.project.config import DEFAULT_MAX_FILE_MB

    text = schema_text(propose_schema(file, kind, sheet, DEFAULT_MAX_FILE_MB * 1024 * 1024))
    if output is None:
        sys.stdout.write(text)
    elif output.exists():
        raise ConfigError(f"{output}: already exists; choose another name or remove it")
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}; edit it (ranges, x-ref references, x-text), then run pnp check", err=True)


@cli.command("schema-path")
@click.argument("name", required=False)
@click.option("--all", "list_all", is_flag=True, help="Print every published schema's path, one a line.")
def schema_path(name: str | None, list_all: bool) -> None:
    """Print the folder of pnp's JSON Schemas (layout, ...), or the file of schema NAME.

    For editors and `$schema` keys: "$schema": "<this folder>/layout.schema.json".
    """
    from pnp.core.published import SCHEMA_DIR, published_schemas

    schemas = published_schemas()
    if list_all:
        click.echo("\n".join(str(path) for path in schemas.values()))
    elif name is None:
        click.echo(str(SCHEMA_DIR))
    elif name.removesuffix(".schema.json") in schemas:
        click.echo(str(schemas[name.removesuffix(".schema.json")]))
    else:
        raise ConfigError(f"no published schema {name!r}; there are: {', '.join(schemas)}")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@project_option
def stats(fmt: str, project_dir: Path | None) -> None:
    """Records per game and kind, against the component lists."""
    from pnp.rules.stats import collect_stats, render_stats

    project = _project(project_dir)
    rows = collect_stats(project)
    sys.stdout.write(render_stats(rows, fmt))


@cli.command()
@click.argument("kinds", nargs=-1)
@click.option(
    "--paper", default=None, help="a4, letter, a3, legal or WIDTHxHEIGHTmm (default: pnp.toml [build] paper)."
)
@click.option(
    "--duplex",
    type=click.Choice(["long", "short", "fold", "none"]),
    default=None,
    help="Backs mirrored for long-edge or short-edge flipping, beside their fronts to fold and glue, or none.",
)
@click.option(
    "--cutting",
    type=click.Choice(["butted", "gutter"]),
    default=None,
    help="Cards sharing cut lines, or a gutter with each card's own bleed (default: pnp.toml [build] cutting; a layout's own \"cutting\" wins).",
)
@click.option("--force", is_flag=True, help="Rebuild even the files whose inputs did not change.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="How to print problems that stop the build.",
)
@click.option(
    "--lang",
    "langs",
    multiple=True,
    help="Build a translation into output/LANG/ (repeatable; 'all': every one of [build] languages).",
)
@click.option("--fallback", is_flag=True, help="With --lang: draw the source text where a translation is missing.")
@project_option
def build(
    kinds: tuple[str, ...],
    paper: str | None,
    duplex: str | None,
    cutting: str | None,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    project_dir: Path | None,
) -> None:
    """Check, then render every kind (or only KINDS) into print-ready PDFs in output/."""
    from pnp.core.limits import exceeded
    from pnp.drawing.impose import MM, Cutting, Duplex, ImpositionError, parse_paper
    from pnp.outputs.build import BuildOptions

    project = _project(project_dir, fmt)
    paper_name = paper or project.paper
    try:
        longer = max(parse_paper(paper_name)) / MM
    except ImpositionError as err:
        raise ConfigError(str(err)) from None
    if longer > project.limits.paper_mm:
        raise ConfigError(exceeded("paper_mm", f"paper {paper_name} is {longer:.0f} mm long"))
    options = BuildOptions(
        paper=paper_name,
        duplex=cast(Duplex, duplex or project.duplex),
        cutting=cast(Cutting, cutting) if cutting else None,
        kinds=kinds,
        force=force,
        progress=True,
        fallback=fallback,
    )
    runs = _language_runs(project, langs, fallback)
    if len(runs) > 1:  # one build per language, each reported as if run alone
        codes = [_build_one(project, replace(options, lang=lang, fallback=back), fmt) for lang, back in runs]
        sys.exit(max(codes))
    sys.exit(_build_one(project, replace(options, lang=runs[0][0], fallback=runs[0][1]), fmt))


def _language_runs(project: Project, langs: tuple[str, ...], fallback: bool) -> list[tuple[str, bool]]:
    """(language, fallback) of each build or export: --lang as given; without --lang, the source
    language and every translation of [build] languages, drawing the source text where a
    translation is missing, which `pnp check` reports as a warning (check promises what build
    delivers); `--lang de` without `--fallback` asks for a complete translation."""
    chosen = _languages(project, langs)
    if chosen:
        return [(lang, fallback) for lang in chosen]
    return [("", fallback), *((lang, True) for lang in project.languages[1:])]


def _languages(project: Project, langs: tuple[str, ...]) -> tuple[str, ...]:
    """--lang values: 'all' is every translation; the source language is "" (the plain output/)."""
    if "all" in langs:
        if not project.languages[1:]:
            raise ConfigError('--lang all: pnp.toml lists no translations; add [build] languages = ["en", "de"]')
        langs = project.languages[1:]
    return tuple(dict.fromkeys("" if project.languages and lang == project.languages[0] else lang for lang in langs))


def _build_one(project: Project, options: BuildOptions, fmt: str) -> int:
    from pnp.core.output import OutputResult
    from pnp.project import stamp

    key = f"{options.paper}|{options.duplex}|{options.lang}|{options.fallback}"
    digest = None if options.kinds else stamp.input_digest(project, key)  # --force rebuilds, and stamps
    fresh = stamp.fresh_outputs(project, key, digest) if digest and not options.force else None
    if fresh is not None:  # nothing changed since a clean build: nothing to load, nothing to draw
        result = OutputResult((), fresh, ())
    else:
        from pnp.outputs.build import run_build

        result = run_build(project, options)
        if digest and not result.problems:
            stamp.record(project, key, digest, result.written + result.skipped)
    if result.problems:
        from pnp.rules.report import REPORTER_BY_NAME
        from pnp.rules.result import CheckResult

        REPORTER_BY_NAME[fmt](CheckResult(result.problems, 0, 0), sys.stdout)
    sheets = dict(getattr(result, "sheets", ()))  # the fast path (nothing to build) counts none
    for path in result.written:
        count = f" ({sheets[path]} sheet{'s' if sheets[path] != 1 else ''})" if path in sheets else ""
        click.echo(f"wrote {project.display(path)}{count}", err=True)
    label = f" --lang {options.lang}" if options.lang else ""
    fell_back = getattr(result, "fallbacks", 0)  # --fallback: how many source texts this language drew
    if fell_back:
        source = project.languages[0] if project.languages else "the source language"
        click.echo(f"pnp build{label}: {fell_back} text{'s' if fell_back != 1 else ''} fell back to {source}", err=True)
    click.echo(
        f"pnp build{label}: {len(result.written)} written, {len(result.skipped)} up to date"
        + (" (stopped: fix the errors above; previous outputs are untouched)" if result.exit_code else ""),
        err=True,
    )
    return result.exit_code


@cli.group()
def export() -> None:
    """Export for print shops, image files, Tabletop Simulator and an HTML proof gallery.

    Every export checks the project first: with errors it writes nothing and exits 1 (the gallery
    can be written anyway with --with-errors). Files are written atomically and only when their
    inputs changed (--force rewrites them). See docs/export.md.
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
    """--lang and --fallback of the picture exports (docs/translations.md#exports-in-a-language)."""
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
    """One export per language (--lang; see docs/translations.md), each reported as if run alone."""
    codes = []
    for lang, back in _language_runs(project, langs, options.fallback):
        result = run(project, replace(options, lang=lang, fallback=back))
        label = f"{name} --lang {lang}" if lang else name
        note = " (written with the errors shown on the page)" if with_errors and result.written else ""
        codes.append(_print_export(project, label, result, fmt, note))
    sys.exit(max(codes))


def _print_export(project: Project, name: str, result: object, fmt: str, note: str = "") -> int:
    from pnp.outputs.export import ExportResult
    from pnp.rules.report import REPORTER_BY_NAME
    from pnp.rules.result import CheckResult

    if not isinstance(result, ExportResult):
        raise TypeError(f"not an export result: {result!r}")
    if result.problems:
        REPORTER_BY_NAME[fmt](CheckResult(result.problems, 0, 0), sys.stdout)
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

    project = _project(project_dir)
    _report_export(project, "records", run(project, kinds, fmt, output), "text")


@export.command("printshop")
@click.argument("kinds", nargs=-1)
@click.option(
    "--preset",
    default=None,
    metavar="NAME",
    help="A print shop's size, bleed and safe zone: poker-us, bridge-us, mini-us, tarot-us (1/8 in bleed and safe), "
    "poker, bridge, mini, tarot, square (3 mm), token-20, token-25, token-30, token-38 (2 mm); docs/export.md.",
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

    project = _project(project_dir)
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

    project = _project(project_dir)
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

    project = _project(project_dir)
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

    project = _project(project_dir)
    options = ExportOptions(force=force, progress=True, dpi=dpi, with_errors=with_errors, fallback=fallback)
    _export_languages(project, "gallery", langs, options, run_gallery, fmt, with_errors)


@cli.group()
def translate() -> None:
    """Translation catalogs translations/<lang>.po for [build] languages (see docs/translations.md)."""


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

    project = _project(project_dir)
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
    from pnp.rules.report import REPORTER_BY_NAME
    from pnp.rules.result import CheckResult
    from pnp.translation.translate import import_sheet

    project = _project(project_dir)
    problems, written = import_sheet(load_project_records(project), file, lang)
    if problems:
        REPORTER_BY_NAME["text"](CheckResult(tuple(problems), 0, 0), sys.stdout)
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

    project = _project(project_dir)
    rows = status(load_project_records(project))
    sys.stdout.write(render_status(rows, fmt))
    sys.exit(1 if any(row.error for row in rows) else 0)  # a catalog pnp cannot read is a mistake


@cli.command()
@click.option("--serve", is_flag=True, help="Also serve the live proof page (on 127.0.0.1 unless --host is given).")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port of the proof page (0: any free port).",
)
@click.option("--host", default=None, help="Interface to serve on (default 127.0.0.1: this machine only).")
@click.option("--no-build", is_flag=True, help="Check and preview only; write no outputs.")
@click.option(
    "--dpi", type=click.IntRange(10, 300), default=100, show_default=True, help="Resolution of the preview images."
)
@project_option
def watch(serve: bool, port: int, host: str | None, no_build: bool, dpi: int, project_dir: Path | None) -> None:
    """Re-check and rebuild after every save; with --serve, a proof page that follows (see docs/preview.md)."""
    from pnp.live.watch import WatchOptions, run_watch

    project = _project(project_dir)
    options = WatchOptions(serve=serve, host=host or "127.0.0.1", port=port, build=not no_build, dpi=dpi)
    sys.exit(run_watch(project.root / "pnp.toml", options))


_ending_process = False  # set by main(): the process ends when the command does


def _exit(code: int) -> NoReturn:
    """End the command with `code`; when it ends the process, end it at once.

    Freeing hundreds of thousands of loaded records one by one, as unwinding the stack and
    interpreter shutdown would, takes longer than checking them; the operating system reclaims
    the memory in one go. Called as a library (not through main), this is sys.exit.
    """
    if _ending_process:
        _flush_and_exit(code)
    sys.exit(code)


def _flush_and_exit(code: int) -> NoReturn:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # e.g. `pnp check | head`: the reader left early; that is not an error
        pass
    os._exit(code)


def main() -> None:
    """Entry point: every failure is one line on stderr, never a traceback. See _exit."""
    global _ending_process
    _ending_process = True
    try:
        _run()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if done.code is not None and not isinstance(done.code, int):
            print(done.code, file=sys.stderr)
    else:
        code = 0
    _flush_and_exit(code)


def _run() -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.exceptions.Abort as err:
        click.echo("pnp: aborted", err=True)
        sys.exit(130 if isinstance(err.__context__, KeyboardInterrupt) else 1)  # click turns Ctrl-C into Abort
    except click.ClickException as err:
        err.show()
        sys.exit(2)
    except ConfigError as err:
        click.echo(f"pnp: error: {one_line(str(err))}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - the promise is: never a traceback
        if os.environ.get("PNP_DEBUG"):
            raise
        click.echo(
            f"pnp: internal error: {type(err).__name__}: {one_line(str(err))} "
            "(set PNP_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(2)
