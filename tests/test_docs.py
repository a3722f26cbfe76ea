"""docs/checks.md against the code registry and the real output recorded in tests/cases/.

(a) every code in CODES has a heading in docs/checks.md;
(b) every code has a case whose expected.json expects it, except the allow-listed ones below;
(c) every output line quoted in docs/checks.md is one that a case really expects, so the docs
    cannot drift from what `pnp check` prints.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from casekit import CASES, CONTENT_CASES, ROOT, load_expected

from pnp.core.problems import CODES

DOC = ROOT / "docs" / "checks.md"

# Codes that no tests/cases/*/expected.json expects yet. Remove a code from here as soon as a
# case covers it (test_allow_list_is_exact fails until you do). docs/checks.md marks their
# examples "(example output to be added)" instead of quoting an output line.
# Codes no `pnp check` case can show: outside-safe-zone is reported by `pnp export printshop`
# and is tested on real exports in tests/test_export.py.
NOT_YET_COVERED: frozenset[str] = frozenset()

# FILE:LINE:COL (or FILE:Sheet!C12): severity[code]: MESSAGE, as printed by --format text
TEXT_LINE = re.compile(r"^\S+:(?:\d+:\d+|\S+![A-Z]+\d+): (?:error|warning)\[[a-z0-9-]+\]: .+$")
GITHUB_LINE = re.compile(r"^::(?:error|warning) file=.+$")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def text_line(problem: dict[str, object]) -> str:
    """The line `pnp check --format text` prints for one problem of an expected.json."""
    where = f" (at {problem['pointer']})" if problem["pointer"] else ""
    place = problem.get("cell") or f"{problem['line']}:{problem['column']}"
    return f"{problem['file']}:{place}: {problem['severity']}[{problem['code']}]: {problem['message']}{where}"


@cache
def expectations() -> dict[str, dict[str, object]]:
    return {
        folder.name: load_expected(folder)
        for cases in (CASES, CONTENT_CASES)
        for folder in sorted(cases.iterdir())
        if (folder / "expected.json").is_file()
    }


@cache
def expected_lines() -> frozenset[str]:
    """Every output line some case expects: problems rendered as text, and stdout lines."""
    lines: set[str] = set()
    for spec in expectations().values():
        for problem in spec.get("problems", []):  # type: ignore[union-attr]
            lines.add(text_line(problem))
        lines.update(str(spec.get("stdout", "")).splitlines())
    return frozenset(lines)


def codes_in_stdout(stdout: str) -> set[str]:
    codes = set(re.findall(r"^\S+:(?:\d+:\d+|\S+![A-Z]+\d+): (?:error|warning)\[([a-z0-9-]+)\]: ", stdout, re.M))
    codes.update(re.findall(r"^::(?:error|warning) [^:]*?title=([a-z0-9-]+)::", stdout, re.M))
    try:
        sarif = json.loads(stdout)
    except ValueError:
        sarif = None
    if isinstance(sarif, dict):
        for run in sarif.get("runs", []):
            codes.update(result["ruleId"] for result in run.get("results", []))
    return codes


@cache
def covered_codes() -> frozenset[str]:
    codes: set[str] = set()
    for spec in expectations().values():
        codes.update(problem["code"] for problem in spec.get("problems", []))  # type: ignore[union-attr]
        codes.update(codes_in_stdout(str(spec.get("stdout", ""))))
    return frozenset(codes)


@cache
def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def doc_headings() -> set[str]:
    headings: set[str] = set()
    in_fence = False
    for line in doc_text().splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        match = None if in_fence else HEADING.match(line)
        if match:
            headings.add(match.group(1).replace("`", "").strip())
    return headings


def quoted_lines(pattern: re.Pattern[str]) -> list[str]:
    """Lines of the doc's fenced blocks, and inline `code` spans, in the shape of `pattern`."""
    found: list[str] = []
    in_fence = False
    for line in doc_text().splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        spans = [line] if in_fence else re.findall(r"`([^`]+)`", line)
        candidates = [span.strip() for span in spans]
        found.extend(c for c in candidates if pattern.match(c))
    return found


def sections() -> dict[str, str]:
    """Heading text -> the text up to the next heading of any level."""
    out: dict[str, str] = {}
    current: str | None = None
    in_fence = False
    for line in doc_text().splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            current = match.group(1).replace("`", "").strip()
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return out


# (a) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_heading(code: str) -> None:
    assert code in doc_headings(), f"docs/checks.md has no heading for {code!r}"


# (b) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(set(CODES) - NOT_YET_COVERED))
def test_every_code_has_a_case(code: str) -> None:
    assert code in covered_codes(), (
        f"no tests/cases/*/expected.json expects {code!r}: add a case folder (tests/cases/regen.py "
        "writes its expected.json), or, if it really cannot have one yet, allow-list it"
    )


def test_allow_list_is_exact() -> None:
    unknown = NOT_YET_COVERED - set(CODES)
    assert not unknown, f"allow-listed codes that are not in CODES: {sorted(unknown)}"
    stale = NOT_YET_COVERED & covered_codes()
    assert not stale, f"now covered by a case, remove from NOT_YET_COVERED: {sorted(stale)}"


def test_uncovered_codes_say_so() -> None:
    """Every allow-listed code's section says where it is tested (the list may be empty: every
    code has its case)."""
    silent = [
        code
        for code in sorted(NOT_YET_COVERED)
        if not (
            "tests/test_export.py" in (section := sections().get(code, "")) or "(example output to be added)" in section
        )
    ]
    assert not silent, (
        f"the sections of {silent} in docs/checks.md should say where they are tested, or mark their example "
        "'(example output to be added)'"
    )


# (c) ---------------------------------------------------------------------------------------


def test_doc_quotes_output_lines() -> None:
    assert len(quoted_lines(TEXT_LINE)) >= len(CODES) - len(NOT_YET_COVERED)


def line_id(line: str) -> str:
    return line.split(": ", 1)[0] if TEXT_LINE.match(line) else line[:60]


@pytest.mark.parametrize("line", quoted_lines(TEXT_LINE), ids=line_id)
def test_quoted_text_line_is_real(line: str) -> None:
    real = line in expected_lines()
    assert real, (
        "docs/checks.md quotes a line that no tests/cases/*/expected.json expects; copy it from "
        f"the case's expected.json:\n{line}"
    )


@pytest.mark.parametrize("line", quoted_lines(GITHUB_LINE), ids=line_id)
def test_quoted_github_line_is_real(line: str) -> None:
    real = line in expected_lines()
    assert real, f"docs/checks.md quotes a GitHub annotation no case expects:\n{line}"


@pytest.mark.parametrize("code", sorted(set(CODES) - NOT_YET_COVERED))
def test_covered_code_section_quotes_its_output(code: str) -> None:
    section = sections().get(code, "")
    assert any(f"[{code}]: " in line for line in section.splitlines() if TEXT_LINE.match(line.strip())), (
        f"the {code!r} section of docs/checks.md quotes no output line with that code"
    )


def test_quoted_lines_parse() -> None:
    # the shape regex must not silently miss lines: every "severity[code]:" in a fence is caught
    missed = [
        line
        for line in doc_text().splitlines()
        if re.search(r"\b(?:error|warning)\[[a-z0-9-]+\]: ", line)
        and not TEXT_LINE.match(line.strip())
        and not line.lstrip().startswith(("::", "FILE:"))
    ]
    assert not missed, f"lines that look like output but are not in the FILE:LINE:COL shape: {missed}"


def test_doc_exists() -> None:
    assert Path(DOC).is_file()
