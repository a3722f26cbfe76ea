"""The property-based suite (tests/test_fuzz.py) on the repository's own schemas and records:
pnp's hardest user, so generated and mutated records of its 46 kinds must never make pnp check
fail unlocated.

Example counts: 6 per test in the default profile (each draws one kind, derandomized; each check
draws the cards too), 300 with HYPOTHESIS_PROFILE=long. Each example's project holds the layouts
of its own kind alone (fuzzkit.only_layouts): the other kinds' layouts neither draw nor read its
records, and checking all of them costs about 4 s an example. Budgets per example as in
tests/fuzzkit.py (10 s, 512 MB).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import ROOT, check_within_budget, mutated, only_layouts, record_schemas, replaced
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

SCHEMAS = record_schemas(ROOT / "schemas")
EXAMPLES = 300 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 6
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
    st.sampled_from(sorted(SCHEMAS)).flatmap(
        lambda name: st.tuples(st.just(name), st.lists(from_schema(SCHEMAS[name]), min_size=1, max_size=2))
    )
)
def test_generated_records_of_every_kind(project: Path, case: tuple[str, list[Any]]) -> None:
    name, records = case
    kind = name.removesuffix(".schema.json")
    with only_layouts(project, ROOT / "layouts", {kind}), replaced(project / "cards" / "fuzz.json", records):
        check_within_budget(project)


def _real(index: int) -> Any:
    return json.loads(REAL_FILES[index].read_text(encoding="utf-8"))


@settings(max_examples=EXAMPLES)
@given(st.integers(0, len(REAL_FILES) - 1).flatmap(lambda i: st.tuples(st.just(i), mutated(_real(i)))))
def test_mutated_real_records(project: Path, case: tuple[int, Any]) -> None:
    index, data = case
    layouts = only_layouts(project, ROOT / "layouts", kinds_of(_real(index)))
    with layouts, replaced(project / "cards" / REAL_FILES[index].name, data):
        check_within_budget(project)


def kinds_of(data: Any) -> set[str]:
    records = data if isinstance(data, list) else [data]
    return {r["kind"] for r in records if isinstance(r, dict) and isinstance(r.get("kind"), str)}


def test_each_example_keeps_the_layouts_of_its_kinds() -> None:
    """fuzzkit.only_layouts keeps, for each real file's kinds, every layout naming one of them,
    every layout a kept one extends, and icons.json; and it leaves out the other kinds' layouts."""
    from fuzzkit import layouts_for

    layouts = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (ROOT / "layouts").glob("*.json")}
    for path in REAL_FILES:
        kinds = kinds_of(json.loads(path.read_text(encoding="utf-8")))
        kept = set(layouts_for(kinds, ROOT / "layouts"))
        assert "icons.json" in kept, path.name
        assert {name for name, data in layouts.items() if set(data.get("kinds") or ()) & kinds} <= kept, path.name
        extended = {
            f"{layouts[name]['extends']}.json" for name in kept - {"icons.json"} if layouts[name].get("extends")
        }
        assert extended <= kept, path.name
        for name in kept - {"icons.json"}:  # a layout of these kinds, or one they extend
            assert set(layouts[name].get("kinds") or ()) & kinds or name in extended, (path.name, name)
    assert len(layouts_for({"homm3.summoned-unit"}, ROOT / "layouts")) < len(layouts) / 4  # the point of it
