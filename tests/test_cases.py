"""Every case folder under tests/cases/ through the real CLI, compared with expected.json
(tests/test_cases_jobs.py runs them again with validating children)."""

from __future__ import annotations

import pytest
from casekit import CASES, assert_case, case_names

CASE_NAMES = case_names(CASES)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case(name: str) -> None:
    assert_case(CASES / name)
