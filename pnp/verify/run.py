"""The whole check: rules first, then what drawing the cards and laying out the sheets finds,
then the catalogs of each language; one sorted list of located problems."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pnp.core.problems import Finding, Problem, not_found_before
from pnp.project.config import Project
from pnp.project.loaded import LoadedProject, has_layouts
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
    problems = rule_problems(loaded, validation, options, checked)
    if options.render and has_layouts(loaded.project):
        from pnp.drawing.findings import render_findings

        drawn = render_findings(loaded, broken_records(validation.findings()), options.render_cache)
        problems.extend(not_found_before(problems, located(drawn, options, checked)))
    sheet_errors = any(p.code.startswith("sheet-") and p.severity == "error" for p in problems)
    if (
        options.render and not sheet_errors and not loaded.project.data_only
    ):  # broken sheet files: laying them out only repeats that
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


def broken_record_paths(loaded: LoadedProject, validation: Validation) -> frozenset[tuple[Path, int]]:
    """(file path, record index; -1: the whole file) of the records with parse or schema errors:
    what `pnp build --keep-going` leaves out of the drawing (pnp.project.loaded.LoadedProject.left_out)."""
    paths = {id(f): f.path for f in loaded.files}
    return frozenset((paths[file_id], i) for file_id, i in broken_records(validation.findings()) if file_id in paths)


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
