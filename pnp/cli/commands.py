"""Command line: `pnp check`, `pnp check-changed`, `pnp stats`, `pnp new`, `pnp adopt`, `pnp build`, `pnp export`,
`pnp translate`, `pnp diff`, `pnp watch`, `pnp schema-path`, `pnp init-schema`.

Exit status: 0 clean (warnings allowed), 1 problems found, 2 usage, configuration or environment
error, 130 interrupted (Ctrl-C).
Heavy modules (reportlab, jinja2) are imported inside the commands that draw, so `pnp check`
starts fast.
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from pnp.cli import common
from pnp.cli.common import cli, exit_now, flush_and_exit, language_runs, project_for, project_option, report_problems
from pnp.core.problems import Problem, expand_codes, one_line
from pnp.project.config import ConfigError, Project

if TYPE_CHECKING:
    from pnp.outputs.build import BuildOptions


MAX_JOBS = 64  # --jobs: processes forked at most (a typo of 1000 is a usage error, not 1000 processes)


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
    type=click.IntRange(min=0, max=MAX_JOBS),
    default=0,
    help="Processes to check with: reading (0, the default: one per core, up to 4, for projects over 4 MB), "
    "drawing the cards (0: one per core for a kind with enough faces) and laying out the sheets; 1: one process.",
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
    project = project_for(project_dir, fmt)
    loaded, result = checked(project, paths, ignored, selected, strict, render, jobs)  # replayed if nothing changed
    REPORTER_BY_NAME[fmt](result, sys.stdout)
    exit_now(result.exit_code)  # while `loaded` is still referenced: see _exit


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


@cli.command()
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False), default=".")
def adopt(directory: Path) -> None:
    """Write a starting pnp.toml for an existing card-data repository (DIRECTORY, default here):
    kinds, schemas, id fields and references guessed from its files, each with its reason, for
    you to review (`pnp docs adopting`). Nothing else is written; an existing pnp.toml is kept."""
    from pnp.outputs.adopt import adopt as guess_kinds

    if not directory.is_dir():
        raise ConfigError(f"{directory}: no such folder")
    target = directory / "pnp.toml"
    if target.exists() or target.is_symlink():
        raise ConfigError(f"{target}: already exists; pnp adopt never overwrites it (remove it to start again)")
    text, guesses, notes = guess_kinds(directory)
    if not guesses:
        raise ConfigError(f"{directory}: no record files found (JSON or YAML arrays of objects); nothing to adopt")
    for guess in guesses:
        click.echo(f"{guess.name}: {', '.join(guess.files)}", err=True)
        for reason in guess.reasons:
            click.echo(f"  {reason}", err=True)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    try:
        with target.open("x", encoding="utf-8", newline="\n") as handle:  # never over a file made meanwhile
            handle.write(text)
    except FileExistsError:
        raise ConfigError(f"{target}: already exists; pnp adopt never overwrites it") from None
    except OSError as err:
        raise ConfigError(f"{target}: cannot write it: {err.strerror or err}") from None
    click.echo(f"wrote {target} ({len(guesses)} kinds); review it, then: pnp check", err=True)


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
@click.argument("topic", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print where the page (or the folder) is, not its text.")
def docs(topic: str | None, show_path: bool) -> None:
    """Print pnp's documentation page TOPIC (adopting, layouts, sheets, ...); without TOPIC, the topics.

    The same pages as docs/ in pnp's repository, shipped in the package: `pnp docs layouts | less`.
    """
    from pnp.core.published import docs_folder, published_docs

    pages = published_docs()
    if not pages:
        raise ConfigError("this installation of pnp has no documentation pages (pnp/docs/ is missing)")
    if topic is None:
        if show_path:
            click.echo(str(docs_folder()))
            return
        for name, path in pages.items():
            first = path.read_text(encoding="utf-8").split("\n", 1)[0].lstrip("# ").strip()
            click.echo(f"{name:<14} {first}")
        return
    name = topic.removesuffix(".md").removeprefix("docs/")
    if name not in pages:
        import difflib

        close = difflib.get_close_matches(name, list(pages), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(f"no documentation page {topic!r}; {hint}pages: {', '.join(pages)}")
    click.echo(str(pages[name]) if show_path else pages[name].read_text(encoding="utf-8"))


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@project_option
def stats(fmt: str, project_dir: Path | None) -> None:
    """Records per game and kind, against the component lists."""
    from pnp.rules.stats import collect_stats, render_stats

    project = project_for(project_dir)
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
@click.option(
    "--orientation",
    type=click.Choice(["portrait", "landscape", "auto"]),
    default=None,
    help="Turn the paper; auto: the orientation holding more faces of each kind (default: pnp.toml [paper] orientation).",
)
@click.option(
    "--margin",
    type=click.FloatRange(0, 100),
    default=None,
    help="Millimetres from the paper's edge to the nearest ink (default: pnp.toml [paper] margin, or its printer's minimum).",
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
@click.option(
    "--keep-going",
    is_flag=True,
    help="On errors, build all the same, leaving out the records with parse or schema errors (a proof; exit status 1).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0, max=MAX_JOBS),
    default=0,
    help="Processes to draw a kind's faces with; 0 (default): one per core for a kind with enough faces to draw. "
    "The files are the same bytes whatever the number.",
)
@project_option
def build(
    kinds: tuple[str, ...],
    paper: str | None,
    duplex: str | None,
    cutting: str | None,
    orientation: str | None,
    margin: float | None,
    force: bool,
    fmt: str,
    langs: tuple[str, ...],
    fallback: bool,
    keep_going: bool,
    jobs: int,
    project_dir: Path | None,
) -> None:
    """Check, then render every kind (or only KINDS) into print-ready PDFs in output/."""
    from pnp.core.limits import exceeded
    from pnp.core.units import PRINTERS
    from pnp.drawing.impose import MM, Cutting, Duplex, ImpositionError, parse_paper
    from pnp.outputs.build import BuildOptions

    project = project_for(project_dir, fmt)
    paper_name = paper or project.paper
    try:
        longer = max(parse_paper(paper_name)) / MM
    except ImpositionError as err:
        raise ConfigError(str(err)) from None
    if longer > project.limits.paper_mm:
        raise ConfigError(exceeded("paper_mm", f"paper {paper_name} is {longer:.6g} mm long"))
    least = PRINTERS[project.sheet.printer]
    if margin is not None and margin < least:
        raise ConfigError(
            f"--margin {margin:g} is inside the {least:g} mm a {project.sheet.printer} printer cannot print "
            f'(pnp.toml [paper] printer); use --margin {least:g} or more, or printer = "borderless"'
        )
    if margin is not None and 2 * margin >= min(parse_paper(paper_name)) / MM:
        raise ConfigError(f"--margin {margin:g} leaves nothing of {paper_name} paper; use smaller margins")
    options = BuildOptions(
        orientation=orientation,
        margin_mm=margin,
        paper=paper_name,
        duplex=cast(Duplex, duplex or project.duplex),
        cutting=cast(Cutting, cutting) if cutting else None,
        kinds=kinds,
        force=force,
        progress=True,
        fallback=fallback,
        keep_going=keep_going,
        jobs=jobs,
    )
    runs = language_runs(project, langs, fallback)
    if len(runs) > 1:  # one build per language, each reported as if run alone
        seen: set[Problem] = set()  # each problem printed once, by the first run that finds it
        codes = [_build_one(project, replace(options, lang=lang, fallback=back), fmt, seen) for lang, back in runs]
        sys.exit(max(codes))
    sys.exit(_build_one(project, replace(options, lang=runs[0][0], fallback=runs[0][1]), fmt))


def _build_one(project: Project, options: BuildOptions, fmt: str, seen: set[Problem] | None = None) -> int:
    from pnp.core.output import OutputResult
    from pnp.project import stamp

    key = (
        f"{options.paper}|{options.duplex}|{options.lang}|{options.fallback}|{options.orientation}|{options.margin_mm}"
    )
    digest = None if options.kinds else stamp.input_digest(project, key)  # --force rebuilds, and stamps
    fresh = stamp.fresh_outputs(project, key, digest) if digest and not options.force else None
    if fresh is not None:  # nothing changed since a clean build: nothing to load, nothing to draw
        result = OutputResult((), fresh, ())
    else:
        from pnp.outputs.build import run_build

        try:
            result = run_build(project, options)
        except ConfigError as err:  # a face the paper cannot hold as asked: located at [paper]
            if not err.problems:
                raise
            report_problems(err.problems, fmt)
            return 2
        if digest and not result.problems:
            stamp.record(project, key, digest, result.written + result.skipped)
    if result.problems:
        report_problems(result.problems, fmt, seen)
    sheets = dict(getattr(result, "sheets", ()))  # the fast path (nothing to build) counts none
    for path in result.written:
        count = f" ({sheets[path]} sheet{'s' if sheets[path] != 1 else ''})" if path in sheets else ""
        click.echo(f"wrote {project.display(path)}{count}", err=True)
    for kind, holds in getattr(result, "holds", ()):  # how many faces a sheet holds, and why no more
        click.echo(f"{kind}: {holds}", err=True)
    label = f" --lang {options.lang}" if options.lang else ""
    fell_back = getattr(result, "fallbacks", 0)  # --fallback: how many source texts this language drew
    if fell_back:
        source = project.languages[0] if project.languages else "the source language"
        click.echo(f"pnp build{label}: {fell_back} text{'s' if fell_back != 1 else ''} fell back to {source}", err=True)
    if not result.exit_code:
        note = ""
    elif options.keep_going:
        note = " (--keep-going: records with the errors above are left out; fix them and build again)"
    else:
        note = " (stopped: fix the errors above; previous outputs are untouched)"
    for path in getattr(result, "removed", ()):  # outputs this build no longer makes (pnp.outputs.stale)
        click.echo(f"removed {project.display(path)} (no longer made)", err=True)
    click.echo(f"pnp build{label}: {len(result.written)} written, {len(result.skipped)} up to date{note}", err=True)
    return result.exit_code


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
    """Re-check and rebuild after every save; with --serve, a proof page that follows (see `pnp docs preview`)."""
    from pnp.live.watch import WatchOptions, run_watch

    project = project_for(project_dir)
    options = WatchOptions(serve=serve, host=host or "127.0.0.1", port=port, build=not no_build, dpi=dpi)
    sys.exit(run_watch(project.root / "pnp.toml", options))


DEVICE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}


def main() -> None:
    """Entry point: every failure is one line on stderr, never a traceback. See _exit."""
    common.ending_process = True
    try:
        _run()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if done.code is not None and not isinstance(done.code, int):
            print(done.code, file=sys.stderr)
    else:
        code = 0
    flush_and_exit(code)


def _run() -> None:
    common.Running.report_format = "text"  # until the command says (project_for)
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
        if err.problems:  # located in pnp.toml: its own line (FILE:LINE:COL: error[config-error]: ...)
            report_problems(err.problems, common.Running.report_format)
            sys.exit(2)
        click.echo(f"pnp: error: {one_line(str(err))}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - the promise is: never a traceback
        if os.environ.get("PNP_DEBUG"):
            raise
        if isinstance(err, OSError) and err.errno in DEVICE_ERRORS:
            # the disk or the device pnp writes to (`pnp check > /dev/full`): the environment, not pnp
            where = f" {err.filename}" if err.filename else " to standard output"
            click.echo(f"pnp: error: cannot write{where}: {err.strerror}", err=True)
            sys.exit(2)
        click.echo(
            f"pnp: internal error: {type(err).__name__}: {one_line(str(err))} "
            "(set PNP_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(2)
