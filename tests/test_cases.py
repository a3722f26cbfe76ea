"""Every case folder under tests/cases/ through the real CLI, compared with expected.json."""

from __future__ import annotations

import pytest
from casekit import CASES, load_expected, run_case

CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "expected.json").exists())


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case(name: str) -> None:
    assert_case(name)


PARALLEL_CASES = [name for name in CASE_NAMES if not name.startswith("schema-")]


@pytest.mark.parametrize("name", PARALLEL_CASES)
def test_case_with_validating_children(name: str) -> None:
    """`--jobs 3` (this process and two forked validators) reports exactly the same problems."""
    assert_case(name, ["--jobs", "3"])


def assert_case(name: str, extra_args: list[str] | None = None) -> None:
    folder = CASES / name
    spec = load_expected(folder)
    if extra_args:
        spec = {**spec, "args": [*spec.get("args", []), *extra_args]}
    outcome = run_case(folder, spec)
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.exit_code == spec["exit"], outcome.stdout + outcome.stderr
    if "problems" in spec:
        assert outcome.problems == spec["problems"]
    else:
        assert outcome.stdout == spec["stdout"]
