"""Every case folder under tests/cases/ through the real CLI, compared with expected.json."""

from __future__ import annotations

import pytest
from casekit import CASES, assert_case, case_names

CASE_NAMES = case_names(CASES)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case(name: str) -> None:
    assert_case(CASES / name)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_with_validating_children(name: str) -> None:
    """`--jobs 3` (this process and two forked validators) reports exactly the same problems."""
    assert_case(CASES / name, ["--jobs", "3"])
