"""Fixtures for content tests: the bundled records, loaded plainly (no pnp internals)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_all() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in sorted((ROOT / "cards").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        records.extend(data if isinstance(data, list) else [data])
    return records


@pytest.fixture(scope="session")
def records() -> list[dict[str, Any]]:
    return _load_all()


@pytest.fixture(scope="session")
def by_kind(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        grouped[record["kind"]].append(record)
    return dict(grouped)


@pytest.fixture(scope="session")
def by_id(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {record["id"]: record for record in records}
