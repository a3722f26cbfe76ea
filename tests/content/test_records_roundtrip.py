"""The bundled content through spreadsheets and back: JSON -> XLSX (and CSV) -> JSON gives the
same records, and the spreadsheet-only project checks as cleanly as the JSON one.

`pnp export records` checks its project first, drawing every card and laying out every sheet
(about 25 s of CPU for the bundled games) though none of that decides what a record holds: the
exports run on copies holding the records, schemas and icons alone (no layout, no sheet), and the
check that compares the spreadsheet project with the JSON one runs on the whole project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from runpnp import Ran, run

ROOT = Path(__file__).resolve().parents[2]


def pnp(*args: str, cwd: Path) -> Ran:
    return run(cwd, *args)


def copy_files(target: Path, names: tuple[str, ...], source: Path = ROOT) -> Path:
    target.mkdir(parents=True)
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (source / name).is_dir() else shutil.copy)(source / name, target / name)
    return target


RECORDS_ONLY = ("pnp.toml", "schemas", "cards", "layouts/icons.json")  # icons: the {icon} tokens records use


@pytest.fixture(scope="module")
def records_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's records and schemas, without the layouts and sheets that `export records` would draw."""
    return copy_files(tmp_path_factory.mktemp("records") / "project", RECORDS_ONLY)


def spreadsheet_project(tmp: Path, fmt: str, records_only: Path) -> Path:
    """A copy of the repository's project whose cards/ holds one spreadsheet per kind, exported by pnp."""
    project = copy_files(tmp / fmt, ("pnp.toml", "schemas", "layouts", "sheets"))
    done = pnp("export", "records", "--format", fmt, "-o", str(project / "cards"), cwd=records_only)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


@pytest.fixture(scope="module", params=["xlsx", "csv"])
def round_trip(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, records_only: Path
) -> tuple[str, Path, Path]:
    fmt = request.param
    tmp = tmp_path_factory.mktemp(f"roundtrip-{fmt}")
    project = spreadsheet_project(tmp, fmt, records_only)
    back = tmp / "back"
    tables_only = copy_files(tmp / "tables-only", RECORDS_ONLY, source=project)
    done = pnp("export", "records", "--format", "json", "-o", str(back), cwd=tables_only)
    assert done.returncode == 0, done.stdout + done.stderr
    return fmt, project, back


@pytest.fixture(scope="module")
def json_check() -> dict[str, Any]:
    """`pnp check` of the repository's JSON project, once for both spreadsheet formats (records
    only: drawing the same records again says nothing about how they were read)."""
    return dict(json.loads(pnp("check", "--no-render", "--format", "json", cwd=ROOT).stdout))


def test_every_kind_has_one_spreadsheet(round_trip: tuple[str, Path, Path], by_kind: dict[str, list[Any]]) -> None:
    fmt, project, _ = round_trip
    assert sorted(p.name for p in (project / "cards").iterdir()) == sorted(f"{kind}.{fmt}" for kind in by_kind)


def test_records_come_back_the_same(round_trip: tuple[str, Path, Path], by_kind: dict[str, list[Any]]) -> None:
    _, _, back = round_trip
    for kind, records in by_kind.items():
        assert json.loads((back / f"{kind}.json").read_text(encoding="utf-8")) == records, kind


def test_spreadsheet_project_checks_like_the_json_one(
    round_trip: tuple[str, Path, Path], json_check: dict[str, Any]
) -> None:
    """Same errors (none) and the same warnings, now located at cells."""
    _, project, _ = round_trip
    from_tables = json.loads(pnp("check", "--no-render", "--format", "json", cwd=project).stdout)
    from_json = json_check
    assert from_tables["errors"] == from_json["errors"] == 0
    assert from_tables["records"] == from_json["records"]
    assert sorted(p["message"] for p in from_tables["problems"]) == sorted(p["message"] for p in from_json["problems"])


def test_xlsx_export_is_deterministic(tmp_path: Path, records_only: Path) -> None:
    first, second = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    for target in (first, second):
        done = pnp("export", "records", "--format", "xlsx", "homm3.unit", "-o", str(target), cwd=records_only)
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()
