"""The case folders whose problems lie in record files again, with `--jobs 3`: forked children
validate the record files, so these are the cases where it could differ (configuration, layout
and schema cases never reach the children). The children are forked from the test's own process
(the CLI runs in process: tests/runpnp.py)."""

from __future__ import annotations

import pytest
from casekit import CASES, assert_case, case_names, load_expected


def validated_in_children(name: str) -> bool:
    spec = load_expected(CASES / name)
    problems = spec.get("problems") or []
    return spec["exit"] != 2 and any(str(p["file"]).startswith("cards/") for p in problems)


JOB_CASES = [name for name in case_names(CASES) if validated_in_children(name)]


def test_the_record_cases_are_most_cases() -> None:
    """The filter keeps the cases it is meant to keep (a broken filter would test nothing)."""
    assert len(JOB_CASES) >= 40 and "duplicate-id" in JOB_CASES and "table-csv-type-error" in JOB_CASES


@pytest.mark.parametrize("name", JOB_CASES)
def test_case_with_validating_children(name: str) -> None:
    """`--jobs 3` (this process and two forked validators) reports exactly the same problems."""
    assert_case(CASES / name, ["--jobs", "3"])
