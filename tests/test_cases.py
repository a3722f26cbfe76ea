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
