"""The bundled content through spreadsheets and back: JSON -> XLSX (and CSV) -> JSON gives the
same records, and the spreadsheet-only project checks as cleanly as the JSON one."""

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


def spreadsheet_project(tmp: Path, fmt: str) -> Path:
    """A copy of the repository's project whose cards/ holds one spreadsheet per kind, exported by pnp."""
    project = tmp / fmt
    project.mkdir()
    for name in ("pnp.toml", "schemas", "layouts", "sheets"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
    done = pnp("export", "records", "--format", fmt, "-o", str(project / "cards"), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


@pytest.fixture(scope="module", params=["xlsx", "csv"])
def round_trip(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    fmt = request.param
    tmp = tmp_path_factory.mktemp(f"roundtrip-{fmt}")
    project = spreadsheet_project(tmp, fmt)
    back = tmp / "back"
    done = pnp("export", "records", "--format", "json", "-o", str(back), cwd=project)
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


def test_xlsx_export_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    for target in (first, second):
        done = pnp("export", "records", "--format", "xlsx", "homm3.unit", "-o", str(target), cwd=ROOT)
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()
