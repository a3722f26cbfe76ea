"""The property-based suite (tests/test_fuzz.py) on the repository's own schemas and records:
pnp's hardest user, so generated and mutated records of its 46 kinds must never make pnp check
fail unlocated.

Example counts: 8 per test in the default profile (each draws one kind, derandomized; each check
draws the cards too, about 1.5 s), 300
with HYPOTHESIS_PROFILE=long. Budgets per example as in tests/fuzzkit.py (10 s, 512 MB).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import ROOT, check_within_budget, mutated, record_schemas, replaced
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

SCHEMAS = record_schemas(ROOT / "schemas")
EXAMPLES = 300 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 8
REAL_FILES = sorted((ROOT / "cards").rglob("*.json"))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("fuzz-content") / "project"
    target.mkdir()
    shutil.copy(ROOT / "pnp.toml", target / "pnp.toml")
    shutil.copytree(ROOT / "schemas", target / "schemas")
    shutil.copytree(ROOT / "layouts", target / "layouts")
    (target / "cards").mkdir()
    return target


@settings(max_examples=EXAMPLES)
@given(
    st.sampled_from(sorted(SCHEMAS)).flatmap(lambda name: st.lists(from_schema(SCHEMAS[name]), min_size=1, max_size=2))
)
def test_generated_records_of_every_kind(project: Path, records: list[Any]) -> None:
    with replaced(project / "cards" / "fuzz.json", records):
        check_within_budget(project)


def _real(index: int) -> Any:
    return json.loads(REAL_FILES[index].read_text(encoding="utf-8"))


@settings(max_examples=EXAMPLES)
@given(st.integers(0, len(REAL_FILES) - 1).flatmap(lambda i: st.tuples(st.just(i), mutated(_real(i)))))
def test_mutated_real_records(project: Path, case: tuple[int, Any]) -> None:
    index, data = case
    with replaced(project / "cards" / REAL_FILES[index].name, data):
        check_within_budget(project)
