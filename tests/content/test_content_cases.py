"""The bundled content's schemas, one case folder per kind (tests/content/cases/), through the real CLI."""

from __future__ import annotations

import pytest
from casekit import CONTENT_CASES, assert_case, case_names


@pytest.mark.parametrize("name", case_names(CONTENT_CASES))
def test_content_case(name: str) -> None:
    assert_case(CONTENT_CASES / name)
