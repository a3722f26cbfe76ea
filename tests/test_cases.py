"""Every case folder under tests/cases/ through the real CLI, compared with expected.json."""

from __future__ import annotations

import pytest
from casekit import CASES, load_expected, run_case

CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "expected.json").exists())


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case(name: str) -> None:
    folder = CASES / name
    spec = load_expected(folder)
    outcome = run_case(folder, spec)
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.exit_code == spec["exit"], outcome.stdout + outcome.stderr
    if "problems" in spec:
        assert outcome.problems == spec["problems"]
    else:
        assert outcome.stdout == spec["stdout"]


PARALLEL_CASES = [name for name in CASE_NAMES if not name.startswith("schema-")]


@pytest.mark.parametrize("name", PARALLEL_CASES)
def test_case_with_validating_children(name: str) -> None:
    """`--jobs 3` (this process and two forked validators) reports exactly the same problems."""
    folder = CASES / name
    spec = load_expected(folder)
    spec = {**spec, "args": [*spec.get("args", []), "--jobs", "3"]}
    outcome = run_case(folder, spec)
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.exit_code == spec["exit"], outcome.stdout + outcome.stderr
    if "problems" in spec:
        assert outcome.problems == spec["problems"]
    else:
        assert outcome.stdout == spec["stdout"]
