"""The whole check: rules first, then what drawing the cards and laying out the sheets finds,
then the catalogs of each language; one sorted list of located problems."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.problems import Finding, Problem, not_found_before
from pnp.project.config import Project
from pnp.project.loaded import LoadedProject, has_layouts
from pnp.project.namedimages import learn_images
from pnp.project.records import RecordFile
from pnp.rules.check import (
    CheckOptions,
    Validation,
    broken_records,
    finish,
    load_for_check,
    located,
    result_of,
    rule_problems,
)
from pnp.rules.result import CheckResult

if TYPE_CHECKING:
    from pnp.core.workers import Child

__all__ = [
    "CheckOptions",
    "CheckResult",
    "Validation",
    "broken_record_paths",
    "check_loaded",
    "check_project",
    "run_check",
]


def run_check(project: Project, options: CheckOptions) -> CheckResult:
    return check_project(project, options)[1]


def check_project(project: Project, options: CheckOptions) -> tuple[LoadedProject, CheckResult]:
    """The result, and the loaded records (a caller about to exit may skip freeing them)."""
    loaded, validation, checked = load_for_check(project, options)
    problems = check_loaded(loaded, options, checked, validation)
    return loaded, result_of(loaded, problems, options, checked)


def check_loaded(
    loaded: LoadedProject,
    options: CheckOptions,
    checked_paths: list[Path] | None = None,
    validation: Validation | None = None,
) -> list[Problem]:
    """Every problem of a loaded project, located, filtered and sorted."""
    checked = checked_paths or []
    if validation is None:
        validation = Validation()
        validation.loaded = loaded
    cards = options.render and has_layouts(loaded.project)
    learn_images(loaded, options.jobs)  # on every core, before the rules and the drawing both ask
    rules = _rules_elsewhere(loaded, validation, options, checked) if cards else None  # while cards are drawn
    problems = rule_problems(loaded, validation, options, checked) if rules is None else []
    sheet_errors = _sheet_errors(problems)
    sheets = options.render and not sheet_errors and not loaded.project.data_only  # broken sheet files: said
    elsewhere = _sheets_elsewhere(loaded, options) if sheets and cards else None  # laid out meanwhile
    if cards:
        from pnp.drawing.findings import render_findings
        from pnp.verify.keys import existing_key

        broken = broken_records(validation.findings())
        reserved = 0 if elsewhere is None else 1  # a core lays the sheets out
        key = existing_key(loaded.project) if options.render_cache else None  # signs the faces' keys per file
        drawn = render_findings(
            loaded, broken, options.render_cache, jobs=options.jobs, reserved=reserved, signing_key=key
        )
        if rules is not None:
            answer = rules.result()
            if answer is not None:
                from pnp.core.filefacts import take

                problems, facts = answer
                take(facts)
            else:
                problems = rule_problems(loaded, validation, options, checked)
            validation.take_digests()  # the child's are its own (pnp.verify.cache uses them)
            sheet_errors = _sheet_errors(problems)
            sheets = sheets and not sheet_errors
        problems.extend(not_found_before(problems, located(drawn, options, checked)))
    if elsewhere is not None and not sheets:
        elsewhere.result()  # laid out for nothing (a sheet file is broken): collected, not used
    if sheets:
        laid_out = None if elsewhere is None else _by_file(loaded, elsewhere.result())
        if laid_out is None:  # laid out here: no other core, or the child failed
            laid_out = sheet_render_findings(loaded, options.render_cache)
        problems.extend(not_found_before(problems, located(laid_out, options, checked)))
    if loaded.project.languages[1:]:  # catalogs per language (pnp.translation; drawn unless --no-render)
        from pnp.drawing.findings import CACHE_FOLDER
        from pnp.translation.translate import translation_findings

        sheets = options.render and not sheet_errors and not loaded.project.data_only  # laid out per language
        cache = loaded.project.output / CACHE_FOLDER / "sheets" if options.render_cache else None
        too_tall = frozenset((p.file, p.pointer) for p in problems if p.code == "text-overflow")  # in the source
        found = located(translation_findings(loaded, options.render, sheets, cache, too_tall), options, checked)
        problems.extend(found)
    return finish(problems)


def _sheet_errors(problems: list[Problem]) -> bool:
    """Whether a sheet file is broken (then no sheet is laid out: its error says what to fix)."""
    return any(p.code.startswith("sheet-") and p.severity == "error" for p in problems)


def _rules_elsewhere(
    loaded: LoadedProject, validation: Validation, options: CheckOptions, checked: list[Path]
) -> Child[tuple[list[Problem], list[list[Any]]]] | None:
    """The rules (`rule_problems`: cross-checks, project files) run in a forked child while this
    process imports the drawing stage and draws the cards, on a machine with another core (not
    with --jobs 1, nor in a process with threads: `pnp watch` checks in its own). What drawing
    skips needs only the schema findings, known once the files are read (`broken_records`)."""
    import threading

    from pnp.core.workers import Child, can_fork, usable_cores

    if options.jobs == 1 or not can_fork() or threading.active_count() > 1:
        return None
    if options.jobs == 0 and usable_cores() < 2:
        return None
    validation.findings()  # every file validated here first: what drawing skips is read from them
    return Child(_rules_in_child, loaded, validation, options, checked)


def _rules_in_child(
    loaded: LoadedProject, validation: Validation, options: CheckOptions, checked: list[Path]
) -> tuple[list[Problem], list[list[Any]]]:
    """`rule_problems`, and the file facts learned finding them (pnp.core.filefacts)."""
    from pnp.core.filefacts import learned, start_learning

    start_learning()
    validation.leave_digests()  # the forked hasher answers this process's parent, not this process
    return rule_problems(loaded, validation, options, checked), learned()


def broken_record_paths(loaded: LoadedProject, validation: Validation) -> frozenset[tuple[Path, int]]:
    """(file path, record index; -1: the whole file) of the records with parse or schema errors:
    what `pnp build --keep-going` leaves out of the drawing (pnp.project.loaded.LoadedProject.left_out)."""
    paths = {id(f): f.path for f in loaded.files}
    return frozenset((paths[file_id], i) for file_id, i in broken_records(validation.findings()) if file_id in paths)


def _sheets_elsewhere(loaded: LoadedProject, options: CheckOptions) -> Child[list[tuple[Path, Finding]]] | None:
    """The sheets laid out (`sheet_render_findings`) in a forked child while this process draws the
    cards, on a machine with another core (not with --jobs 1)."""
    from pnp.core.workers import Child, can_fork, usable_cores

    if not loaded.lays_out_sheets or options.jobs == 1 or not can_fork():
        return None
    if options.jobs == 0 and usable_cores() < 2:
        return None

    def lay_out() -> list[tuple[Path, Finding]]:
        return [(file.path, finding) for file, finding in sheet_render_findings(loaded, options.render_cache)]

    return Child(lay_out)


def _by_file(
    loaded: LoadedProject, found: list[tuple[Path, Finding]] | None
) -> list[tuple[RecordFile, Finding]] | None:
    """A child's findings with their record or sheet file again (None: the child failed)."""
    if found is None:
        return None
    files = {f.path: f for f in loaded.files}
    files.update({s.source.path: s.source for s in loaded.sheets.sheets.values()})
    if not all(path in files for path, _ in found):
        return None  # not one of this project's files: laid out here instead
    return [(files[path], finding) for path, finding in found]


def sheet_render_findings(loaded: LoadedProject, use_cache: bool = True) -> list[tuple[RecordFile, Finding]]:
    """Lay out every sheet as `pnp build` does (text that cannot fit, failing templates).

    Per output, the findings of an earlier check are reused while its inputs are unchanged
    (output/.pnp-cache/sheets/, keyed by the digest `pnp build` skips by).
    """
    if not loaded.lays_out_sheets:  # no sheet file, no kind printed on sheets: nothing to lay out
        return []
    from pnp.drawing.findings import CACHE_FOLDER
    from pnp.sheets.build import render_findings as sheet_findings

    hook: list[Any] = []

    def draw(*args: Any) -> bool:  # the card renderer is made only when a card is drawn (a cache miss)
        if not hook:
            from pnp.drawing.miniature import token_drawer

            hook.append(token_drawer(loaded)[0])
        return bool(hook[0](*args))

    cache = loaded.project.output / CACHE_FOLDER / "sheets" if use_cache else None
    return list(sheet_findings(loaded, loaded.project.paper, draw, cache))
