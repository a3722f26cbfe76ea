"""Every case folder under tests/cases/ through the CLI, compared with expected.json
(tests/test_cases_jobs.py runs them again with validating children).

The cases run through the command line's entry in this process (tests/runpnp.py); REAL_PROCESS
runs a sample again as the real `python -m pnp` process, held to the same expected.json: each
report format, a configuration error (exit 2), a clean project (exit 0), a --strict exit status,
a case found only by drawing, a spreadsheet, a translation catalog and a lone UTF-16 surrogate."""

from __future__ import annotations

import pytest
from casekit import CASES, assert_case, case_names

CASE_NAMES = case_names(CASES)
REAL_PROCESS = [
    "format-text",
    "format-github",
    "format-sarif",
    "table-format-text",
    "config-paper",
    "valid-project",
    "count-partial-strict",
    "text-overflow",
    "table-xlsx-sources",
    "translation-problems",
    "json-syntax-lone-surrogate",
]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case(name: str) -> None:
    assert_case(CASES / name)


@pytest.mark.parametrize("name", REAL_PROCESS)
def test_case_in_the_real_process(name: str) -> None:
    assert_case(CASES / name, real_process=True)
