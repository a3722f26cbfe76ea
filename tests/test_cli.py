"""Meta-tests over every command: help, project discovery, usage errors, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ["check", "check-changed", "stats", "build", "new", "schema-path", "diff"]


def pnp(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pnp", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    done = pnp(command, "--help")
    assert done.returncode == 0
    assert "Usage: " in done.stdout and command in done.stdout


@pytest.mark.parametrize("command", ["check", "stats", "build"])
def test_outside_a_project_is_a_usage_error(command: str, tmp_path: Path) -> None:
    done = pnp(command, cwd=tmp_path)
    assert done.returncode == 2
    assert "no pnp.toml" in done.stderr and "pnp new" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["check", "stats", "build"])
def test_unknown_option_is_a_usage_error(command: str) -> None:
    done = pnp(command, "--no-such-option")
    assert done.returncode == 2 and "No such option" in done.stderr


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `pnp new` project, shared by the tests that only read it."""
    where = tmp_path_factory.mktemp("new")
    assert pnp("new", "Test Game", cwd=where).returncode == 0
    return where / "test-game"


def test_project_is_found_from_a_subfolder(game: Path) -> None:
    done = pnp("check", "--format", "json", cwd=game / "cards")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["files"] == 2


def test_bad_project_file_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "pnp.toml").write_text("[project]\nrecords = 'cards'\ncolour = 1\n")
    done = pnp("check", cwd=tmp_path)
    assert (
        done.returncode == 2 and "pnp.toml:3:1: error[config-error]: unknown key 'colour' in [project]" in done.stdout
    )


def test_unknown_code_in_ignore_is_a_usage_error(game: Path) -> None:
    done = pnp("check", "--ignore", "missing-refrence", cwd=game)
    assert done.returncode == 2 and "unknown problem code 'missing-refrence'" in done.stderr


def test_broken_schema_is_a_configuration_error(tmp_path: Path) -> None:
    assert pnp("new", str(tmp_path / "game")).returncode == 0
    schema = tmp_path / "game" / "schemas" / "game.card.schema.json"
    schema.write_text(schema.read_text().replace('"type": "integer"', '"type": "integr"', 1))
    done = pnp("check", cwd=tmp_path / "game")
    assert done.returncode == 2
    assert "game.card.schema.json" in done.stderr and "not a valid JSON Schema" in done.stderr


def test_new_project_checks_and_builds(tmp_path: Path) -> None:
    target = tmp_path / "my-game"
    done = pnp("new", str(target))
    assert done.returncode == 0
    assert pnp("check", cwd=target).returncode == 0
    built = pnp("build", cwd=target)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (target / "output" / "my-game" / "mygame.card.pdf").stat().st_size > 1000
    again = pnp("new", str(target))
    assert again.returncode == 2 and "not empty" in again.stderr


def test_paths_limit_what_is_reported_but_references_still_resolve(game: Path) -> None:
    done = pnp("check", "--format", "json", "cards/cards.json", cwd=game)
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["files"] == 1 and report["errors"] == 0


def test_stats_json_lists_every_kind(game: Path) -> None:
    done = pnp("stats", "--format", "json", cwd=game)
    assert done.returncode == 0
    rows = {row["kind"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"testgame.card", "testgame.component-list"}
    assert rows["testgame.card"]["status"] == "ok"


def test_sarif_is_well_formed_2_1_0(tmp_path: Path) -> None:
    """The structure code-scanning upload needs (the SARIF 2.1.0 schema's required parts)."""
    assert pnp("new", str(tmp_path / "g")).returncode == 0
    cards = tmp_path / "g" / "cards" / "cards.json"
    cards.write_text(
        cards.read_text()
        .replace('"element": "fire"', '"element": "fyre"')
        .replace('"water-sprite"', '"water-sprit"', 1)
    )
    done = pnp("check", "--format", "sarif", cwd=tmp_path / "g")
    assert done.returncode == 1
    sarif = json.loads(done.stdout)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "pnp"
    assert {r["id"] for r in rules} == {"enum-mismatch", "missing-reference"}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        (location,) = result["locations"]
        region = location["physicalLocation"]["region"]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == "cards/cards.json"
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
