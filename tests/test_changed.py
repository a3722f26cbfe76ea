"""`pnp check-changed FILE...` (the pre-commit hook's entry) decides what to check from what
changed, and the hook's `files` pattern passes it every file that matters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pnp import __version__
from tests.runpnp import Ran, run

ROOT = Path(__file__).resolve().parents[1]


def pnp(*args: str, cwd: Path) -> Ran:
    return run(cwd, *args)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A repository with a `pnp new` project in a sub-folder, as a monorepo would have it."""
    assert pnp("new", "Sub Game", cwd=tmp_path).returncode == 0
    (tmp_path / "README.md").write_text("not pnp's\n")
    (tmp_path / "package.json").write_text("{}\n")
    return tmp_path


def test_a_changed_record_is_checked_as_a_record(repo: Path) -> None:
    done = pnp("check-changed", "sub-game/cards/cards.json", cwd=repo)
    assert (done.returncode, done.stdout) == (0, "1 files, 2 records: 0 errors, 0 warnings\n")


def test_a_changed_schema_checks_the_whole_project_and_is_no_record(repo: Path) -> None:
    schema = repo / "sub-game" / "schemas" / "subgame.card.schema.json"
    schema.write_text(
        schema.read_text().replace('"required": ["kind", "id", "name"]', '"required": ["kind", "id", "name", "art"]')
    )
    done = pnp("check-changed", "sub-game/schemas/subgame.card.schema.json", cwd=repo)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert [line.split(": ")[1] for line in lines[:-1]] == ["error[required-property]"] * 2
    assert all(line.startswith("sub-game/cards/cards.json:") for line in lines[:-1])
    assert lines[-1] == "2 files, 3 records: 2 errors, 0 warnings"


@pytest.mark.parametrize("changed", ["pnp.toml", "layouts/icons.json", "layouts/subgame.card.json"])
def test_project_files_check_the_whole_project(repo: Path, changed: str) -> None:
    done = pnp("check-changed", f"sub-game/{changed}", cwd=repo)
    assert (done.returncode, done.stdout) == (0, "2 files, 3 records: 0 errors, 0 warnings\n")


def test_files_of_no_project_or_outputs_ask_for_nothing(repo: Path) -> None:
    (repo / "sub-game" / "output").mkdir()
    (repo / "sub-game" / "output" / "x.json").write_text("[")
    (repo / "sub-game" / ".pre-commit-config.yaml").write_text("repos: []\n")
    changed = [
        "README.md",
        "package.json",
        "sub-game/output/x.json",
        "sub-game/README.md",
        "sub-game/.pre-commit-config.yaml",
    ]
    done = pnp("check-changed", *changed, "sub-game/.github/workflows/pnp.yml", cwd=repo)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_hook_passes_every_file_that_matters() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["entry"] == "pnp check-changed" and hook["pass_filenames"] and hook["require_serial"]
    files = re.compile(hook["files"])
    for path in (
        "pnp.toml",
        "game/pnp.toml",
        "cards/a.json",
        "schemas/x.schema.json",
        "layouts/x.yaml",
        "sheets/aid.yml",
    ):
        assert files.search(path), path
    for path in ("README.md", "art/sun.png", "notpnp.toml.bak"):
        assert not files.search(path), path


def test_readme_snippets_match_the_hook() -> None:
    """README's hook snippets: the repo: form names the hook's id, the repo: local form its entry and files."""
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)]
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    remote = next(b["repos"][0] for b in blocks if b["repos"][0]["repo"] != "local")
    assert remote["hooks"] == [{"id": hook["id"]}] and remote["rev"] == f"v{__version__}"  # this release's tag
    (local,) = next(b["repos"][0] for b in blocks if b["repos"][0]["repo"] == "local")["hooks"]
    assert (local["id"], local["entry"], local["files"]) == (hook["id"], hook["entry"], hook["files"])
