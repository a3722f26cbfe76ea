"""Every case folder again with `--jobs 3`: a module of its own, so that under pytest-xdist
(--dist loadfile) it runs beside tests/test_cases.py rather than after it."""

from __future__ import annotations

import pytest
from casekit import CASES, assert_case, case_names


@pytest.mark.parametrize("name", case_names(CASES))
def test_case_with_validating_children(name: str) -> None:
    """`--jobs 3` (this process and two forked validators) reports exactly the same problems."""
    assert_case(CASES / name, ["--jobs", "3"])
