"""One diagnostic pipeline: `pnp check` finds what `pnp build` finds, at the same places.

Also: combined PDFs stay duplex-correct after a kind without backs, an asset field declared in
the schema drives rebuilds, a repeated check reuses its render cache, and SARIF output
validates against the SARIF 2.1.0 schema with a real location for every result.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from casekit import CASES, ROOT, case_names, generate, load_expected, make_project
from pypdf import PdfReader

from pnp.core.problems import Problem
from pnp.outputs.build import BuildOptions, BuildResult, run_build
from pnp.project.config import ConfigError, Project, load_project
from pnp.verify import run as pnp_verify_run
from pnp.verify.run import CheckOptions, check_project
from pnp.verify.run import check_loaded as real_check_loaded
from tests.runpnp import run as pnp

BUILD_PROJECT = ROOT / "tests" / "build_project"
# The OASIS SARIF 2.1.0 schema (errata01), vendored from github.com/oasis-tcs/sarif-spec,
# sarif-2.1/schema/sarif-schema-2.1.0.json: the tests validate offline.
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json"
CASE_NAMES = case_names(CASES)
# Cases whose static check (--no-render) finds no error, so that `pnp build` really draws, and
# whose problems only drawing finds: here the check's drawing (pnp.drawing.findings, with its
# cache) and the build's (the PDF writer) are two paths that must agree.
DRAWN_ONLY = {
    "bad-colour",
    "missing-font-style",
    "missing-glyph",
    "short-of-bleed",
    "template-copies",
    "template-work-layout",
    "template-work-sheet",
    "text-overflow",
    "translation-overflow",
}
# Cases with static errors whose cards or sheets a build draws once those errors are let
# through: the build's drawing must find nothing the check did not report.
DRAWN_DESPITE_ERRORS = {
    "count-expand",
    "hostile-asset-paths",
    "hostile-svg-icons",
    "inconsistent-value",
    "layout-bad-image",
    "layout-cycle",
    "layout-missing-image",
    "layout-unknown-kind",
    "layout-yaml",
    "limit-covers-range",
    "record-image-not-decoding",
    "render-missing-font",
    "sheet-cycle",
    "sheet-error",
    "sheet-unknown-kind",
    "template-unknown-filter",
    "translation-problems",
    "unknown-layout-field",
    "unknown-palette",
    "unknown-sheet-field",
}


def case_project(name: str, tmp_path: Path) -> Path:
    folder = CASES / name
    spec = load_expected(folder)
    target = tmp_path / "project"
    target.mkdir()
    make_project(folder, target, spec.get("base", "repo"))
    generate(target, spec)
    return target


def where(problems: Iterable[Problem]) -> set[tuple[str, int, int, str]]:
    return {(p.file, p.line, p.column, p.code) for p in problems}


def spot(problem: Problem) -> tuple[str, str | None]:
    """The record a problem is in (file, index), or (file, None) for one about a whole file."""
    first = problem.pointer.split("/")[1] if problem.pointer.count("/") else ""
    return problem.file, first if first.isdigit() else None


def build_letting_static_errors_through(
    project: Project, options: BuildOptions, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Problem], BuildResult]:
    """`pnp build` as it is, but for its static check (rules only, no drawing), whose errors are
    recorded and then dropped, so that the build goes on to draw what it can. Answers the static
    problems and the build's result (whose problems are then the static warnings and what drawing found)."""
    static: list[Problem] = []
    seen: list[CheckOptions] = []

    def lenient(loaded: object, options: CheckOptions, *args: object, **kwargs: object) -> list[Problem]:
        problems = real_check_loaded(loaded, options, *args, **kwargs)  # type: ignore[arg-type]
        if options.render:
            return problems
        seen.append(options)
        static.extend(problems)
        return [p for p in problems if p.severity != "error"]

    with monkeypatch.context() as patch:
        patch.setattr(pnp_verify_run, "check_loaded", lenient)
        result = run_build(project, options)
    # the build asks pnp.verify.run.check_loaded for its static problems: if it no longer does,
    # nothing is let through and the comparison below would compare check with itself again
    assert len(seen) == 1, "the build's static check (pnp.verify.run.check_loaded, render=False) was not seen"
    return static, result


@pytest.mark.parametrize("name", CASE_NAMES)
def test_check_reports_what_the_build_draws(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pnp check` promises what `pnp build` delivers, where the two take different paths.

    Both run the same rules first; then check draws every card and sheet into nothing (with a
    cache, skipping records the rules found broken) while build draws them into PDFs. A build
    stops at the rules' errors and reports check's own result, so comparing the two there would
    compare a function with itself. Instead: without static errors, the build draws, and its
    problems are the check's, at the same places; with static errors, the build is let past them
    (in this process) and must find, drawing, everything check's drawing found, and nothing more
    but in a record or file the rules already found broken. In the source language: a language
    build of a catalog with errors would draw text the check already called undrawable."""
    target = case_project(name, tmp_path)
    monkeypatch.chdir(target)
    try:
        project = load_project(explicit=target)
    except ConfigError as err:  # both commands stop here, at a located pnp.toml line
        assert load_expected(CASES / name)["exit"] == 2
        assert err.problems and all(p.line >= 1 and p.file == "pnp.toml" for p in err.problems)
        return
    _, checked = check_project(project, CheckOptions(jobs=1))
    for problem in checked.problems:
        assert problem.file and problem.line >= 1 and not problem.file.startswith("output"), problem
    # --jobs 1: the static check in this process, where it can be let through (elsewhere a forked
    # child runs it while the build imports drawing: tests/test_build_check_elsewhere.py)
    options = BuildOptions(paper=project.paper, duplex="long", jobs=1)
    static, built = build_letting_static_errors_through(project, options, monkeypatch)
    drawn_by_check = where(checked.problems) - where(static)
    drawn_by_build = where(built.problems) - where(static)
    if not any(p.severity == "error" for p in static):  # the build draws: every language, as check covers them
        built_problems = list(built.problems)
        for lang in project.languages[1:]:
            language = replace(options, lang=lang, fallback=True)
            built_problems += build_letting_static_errors_through(project, language, monkeypatch)[1].problems
        assert where(built_problems) == where(checked.problems)
        assert (name in DRAWN_ONLY) == bool(drawn_by_check), (name, drawn_by_check)
        return
    assert name not in DRAWN_ONLY
    assert drawn_by_check <= drawn_by_build, drawn_by_check - drawn_by_build
    broken = {spot(p) for p in static if p.severity == "error"}
    unexplained = [
        p
        for p in built.problems
        if (p.file, p.line, p.column, p.code) in drawn_by_build - drawn_by_check
        and spot(p) not in broken
        and (p.file, None) not in broken
    ]
    assert not unexplained, unexplained
    # the build really drew: it wrote files, or drawing found errors (the static ones were dropped)
    drew = bool(built.written) or any(p.severity == "error" for p in built.problems)
    assert (name in DRAWN_DESPITE_ERRORS) == drew, (name, built.written)


def test_every_example_of_the_issue_is_located_in_the_file_to_edit() -> None:
    """The examples of issue 12, each a case folder: one problem, in the file the user must edit."""
    where = {
        "render-missing-font": ("layouts/test-card.json", "missing-asset", "/front/elements/0/font"),
        "template-unknown-filter": ("layouts/test-card.json", "template-error", "/front/elements/0/text"),
        "template-copies": ("layouts/test-card.json", "template-error", "/copies"),
        "layout-missing-image": ("layouts/test-card.json", "missing-asset", "/front/elements/1/src"),
        "unknown-palette": ("layouts/test-card.json", "unknown-palette", "/front/elements/0/fill/palette"),
        "bad-colour": ("layouts/test-card.json", "bad-colour", "/front/elements/0/color"),
        "icons-bad-colour": ("layouts/icons.json", "icons-error", "/icons/fire/color"),
        "icons-colour-key": ("layouts/icons.json", "icons-error", "/icons/fire/colour"),
        "config-paper": ("pnp.toml", "config-error", ""),
        "config-unknown-key": ("pnp.toml", "config-error", ""),
        "config-games-key": ("pnp.toml", "config-error", ""),
        "schema-keyword": ("schemas/test.card.schema.json", "schema-keyword", "/properties/ally/x-rfe"),
        "missing-glyph": ("cards/cards.json", "missing-glyph", "/1/name"),
        "missing-font-style": ("layouts/test-card.json", "missing-font-style", "/front/elements/0/font"),
    }
    for name, (file, code, pointer) in where.items():
        problems = [p for p in load_expected(CASES / name)["problems"] if p["code"] != "no-layouts"]
        assert [(p["file"], p["code"], p["pointer"]) for p in problems] == [(file, code, pointer)], name
        assert problems[0]["line"] >= 1


@pytest.mark.parametrize(
    ("toml", "where", "says"),
    [
        ('[project]\nmax-file-mb = "big"\n', (2, 1), '[project] max-file-mb = "big": must be a positive number'),
        ('[project]\nname = "x"\n\n[build]\nduplex = "both"\n', (5, 1), "duplex must be long, short, fold or none"),
        ('[project]\nname = "x"\n\n[build]\ncutting = "gap"\n', (5, 1), "cutting must be butted or gutter"),
        ('[project]\nname = "x"\n\n[build]\ngutter = -1\n', (5, 1), "gutter must be a number of millimetres"),
        ("[project]\nrecords = 3\n", (2, 1), "must be a string"),
        ('[projet]\nname = "x"\n', (1, 1), "unknown table [projet] (did you mean 'project'?)"),
        ('[build]\n  "papr" = "a4"  # a typo\n', (2, 3), "unknown key 'papr' in [build] (did you mean 'paper'?)"),
        ("[games.x]\ntitle = 1\n", (2, 1), "[games.x] title = 1: must be a string"),
        ('[build]\npaper = "0x0mm"\n', (2, 1), "paper width and height must be over 0"),
    ],
)
def test_every_pnp_toml_mistake_is_located(
    toml: str, where: tuple[int, int], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pnp.toml").write_text(toml)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_project(explicit=tmp_path)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.column, problem.code) == ("pnp.toml", *where, "config-error")
    assert says in problem.message


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(BUILD_PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


def rename_kind(project: Path, old: str, new: str) -> None:
    for path in [*project.glob("*/*.json")]:
        path.write_text(path.read_text().replace(old, new))
    (project / "schemas" / f"{old}.schema.json").rename(project / "schemas" / f"{new}.schema.json")


def test_combined_pdf_stays_duplex_correct_after_a_kind_without_backs(project: Path) -> None:
    """A kind whose layout has "back": null, sorted first: each of its sheets gets a blank back, so
    every later kind's fronts stay on odd pages and its backs on the even page after them."""
    rename_kind(project, "test.spell", "test.aspell")  # "back": null, now before test.card
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    tokens = PdfReader(project / "output" / "test" / "test.aspell.pdf")
    cards = PdfReader(project / "output" / "test" / "test.card.pdf")
    combined = PdfReader(project / "output" / "test.pdf")
    assert len(tokens.pages) == 1 and len(cards.pages) % 2 == 0  # fronts only; fronts and backs
    texts = [page.extract_text() for page in combined.pages]
    assert "Spell 1" in texts[0] and "Test spell 1/3, fronts" in texts[0]  # its label: the schema's title
    assert texts[1] == ""  # the token sheet's blank back: no face, no label
    assert "Card 00" in texts[2] and "card-00" in texts[3]  # card fronts on page 3, 5, ..., backs after them
    assert len(combined.pages) == 2 * len(tokens.pages) + len(cards.pages)
    fronts = [i + 1 for i, text in enumerate(texts) if "Card 00" in text or "Spell 1" in text]
    assert all(page % 2 == 1 for page in fronts)


def test_an_asset_field_declared_in_the_schema_drives_the_rebuild(project: Path) -> None:
    """A field named `picture` (no name pnp knows) declared x-asset: replacing its PNG rebuilds."""
    for path in (project / "cards" / "cards.json", project / "schemas" / "test.card.schema.json"):
        path.write_text(path.read_text().replace('"image":', '"picture":'))  # a property, not common's $defs
    layout = json.loads((project / "layouts" / "test-card.json").read_text())
    art = next(e for e in layout["front"]["elements"] if e["name"] == "art")
    art["when"], art["src"] = "picture is defined", "{{ picture }}"
    (project / "layouts" / "test-card.json").write_text(json.dumps(layout))
    assert pnp(project, "build").returncode == 0
    cards = project / "output" / "test" / "test.card.pdf"
    before = cards.read_bytes()
    again = pnp(project, "build")
    assert "0 written" in again.stderr
    from PIL import Image

    Image.new("RGB", (40, 30), (10, 200, 30)).save(project / "art" / "sun.png")
    rebuilt = pnp(project, "build")
    assert rebuilt.returncode == 0 and "wrote output/test/test.card.pdf" in rebuilt.stderr
    assert "test.spell.pdf" not in rebuilt.stderr and cards.read_bytes() != before


def test_check_renders_by_default_and_reuses_its_cache(project: Path) -> None:
    cards = json.loads((project / "cards" / "cards.json").read_text())
    cards[1]["text"] = "far too long for the rules box " * 40
    (project / "cards" / "cards.json").write_text(json.dumps(cards, indent=2))
    first = pnp(project, "check")
    assert first.returncode == 1 and "error[text-overflow]" in first.stdout
    cache = project / "output" / ".pnp-cache" / "test.card.json"
    stored = json.loads(cache.read_text())
    by_face = [found for found in stored["faces"].values() if found]  # one entry per record's faces
    assert len(stored["faces"]) == len(cards) and [[f["code"] for f in found] for found in by_face] == [
        ["text-overflow"]
    ]
    by_face[0][0]["message"] = "from the cache"  # proves the second check reads it
    cache.write_text(json.dumps(stored))
    second = pnp(project, "check")
    assert "from the cache" in second.stdout
    assert pnp(project, "check", "--render").stdout == second.stdout  # --render: accepted, the default
    assert pnp(project, "check", "--no-render").returncode == 0  # nothing drawn
    by_face[0][0]["code"] = "no-such-code"  # a cache pnp could not have written
    cache.write_text(json.dumps(stored))
    assert pnp(project, "check").stdout == first.stdout  # drawn again, not trusted, no crash
    cards[1]["text"] = "short"  # the records changed: drawn again
    (project / "cards" / "cards.json").write_text(json.dumps(cards, indent=2))
    assert pnp(project, "check", "--render").returncode == 0


SARIF_CASES = ["template-copies", "layout-missing-image", "schema-keyword", "missing-glyph", "config-unknown-key"]


@pytest.mark.parametrize("name", SARIF_CASES)
def test_sarif_validates_and_every_result_has_a_real_location(name: str, tmp_path: Path) -> None:
    target = case_project(name, tmp_path)
    done = pnp(target, "check", "--format", "sarif")
    assert done.returncode == load_expected(CASES / name)["exit"], done.stderr
    sarif = json.loads(done.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert results
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] and not location["artifactLocation"]["uri"].startswith("output")
        assert (target / location["artifactLocation"]["uri"]).is_file()
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
