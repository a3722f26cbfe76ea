"""Fixtures for content tests: the bundled records, loaded plainly (no pnp internals), and the
bundled games as a player prints them, built once per test run."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from bundledkit import Bundled, copy_bundled
from oncekit import made_once
from runpnp import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bundled(request: pytest.FixtureRequest) -> Bundled:
    """The bundled games built and exported for a print shop (one card face per page), then
    checked, through the command line, once per test run (tests/oncekit.py): tests/content/test_printed_cards.py and
    tests/content/test_bundled_sheets.py read the same files. Read them; never change them."""

    def make(folder: Path) -> dict[str, dict[str, str]]:
        project = copy_bundled(folder / "project")
        said = {}
        # the check last: it reads what the build's drawing found (a check from scratch draws it all again)
        for command in (["build"], ["export", "printshop"], ["check", "--render", "--format", "json"]):
            done = run(project, *command)
            assert done.returncode == 0, done.stdout + done.stderr
            said[" ".join(command)] = {"stdout": done.stdout, "stderr": done.stderr}
        return said

    folder, said = made_once(request, "bundled", make)
    return Bundled(folder / "project", said)


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
