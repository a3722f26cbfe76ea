"""The pre-commit hook as a user's repository runs it: a scratch git repository holding a `pnp
new` project and a .pre-commit-config.yaml whose `repo:` line names this checkout (a one-commit
snapshot of it), and `pre-commit run` on the staged files, as `git commit` runs it: clean, then
with planted errors.

pre-commit installs the hook from that repository into its own virtualenv (pip, from the package
index) in its store (PRE_COMMIT_HOME, one per test run): the first run installs it (about 15 s),
the second uses it, as a user's second commit does. (`pre-commit try-repo` would install it again
for every run, in a temporary store.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import copy_checkout
from oncekit import shared_folder

ROOT = Path(__file__).resolve().parents[1]


class Scratch:
    """A git repository holding a `pnp new` project, and a way to run the hook in it."""

    def __init__(self, folder: Path, cache: Path, hook_repo: Path) -> None:
        self.folder = folder
        self.hook_repo = hook_repo
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
            "PRE_COMMIT_HOME": str(cache),
            "PIP_NO_COMPILE": "1",  # the hook's virtualenv: no .pyc compiled at install (half its CPU time)
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=self.folder, capture_output=True, text=True, env=self.env, timeout=900)

    def hook(self) -> subprocess.CompletedProcess[str]:
        """The hook on the staged files, as `git commit` would run it."""
        return self.run(sys.executable, "-m", "pre_commit", "run", "pnp-check", "--verbose")

    def edit(self, relative: str, old: str, new: str) -> None:
        path = self.folder / relative
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
        assert self.run("git", "add", relative).returncode == 0


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Scratch:
    where = tmp_path_factory.mktemp("hook")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    made = subprocess.run([sys.executable, "-m", "pnp", "new", "Hook Game"], cwd=where, capture_output=True, env=env)
    assert made.returncode == 0
    # a one-commit copy: try-repo on a checkout with uncommitted changes would make a snapshot commit
    pnp_repo = copy_checkout(tmp_path_factory.mktemp("pnp"), skip=("tests", "cards", "bench"))
    store = shared_folder(request, "pre-commit-home")  # one per run: xdist workers share it (pre-commit locks it)
    store.mkdir(exist_ok=True)
    repo = Scratch(where / "hook-game", store, pnp_repo)
    for command in (("git", "init", "-q"), ("git", "add", "-A"), ("git", "commit", "-qm", "pnp as it is")):
        assert subprocess.run(command, cwd=pnp_repo, env=repo.env, capture_output=True).returncode == 0
    head = subprocess.run(("git", "rev-parse", "HEAD"), cwd=pnp_repo, capture_output=True, text=True, check=True)
    (repo.folder / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {pnp_repo}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: pnp-check\n"
    )
    for command in (("git", "init", "-q"), ("git", "add", "-A"), ("git", "commit", "-qm", "new game")):
        assert repo.run(*command).returncode == 0
    return repo


def test_hook_passes_a_clean_project(scratch: Scratch) -> None:
    scratch.edit("cards/cards.json", '"cost": 2,', '"cost": 3,')
    done = scratch.hook()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 files, 2 records: 0 errors, 0 warnings" in done.stdout  # the record file alone, as a record
    scratch.run("git", "commit", "-qm", "cost 3")


def test_hook_reports_a_planted_error_in_a_record(scratch: Scratch) -> None:
    scratch.edit("cards/cards.json", '"element": "fire"', '"element": "fyre"')
    done = scratch.hook()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cards/cards.json:7:16: error[enum-mismatch]" in done.stdout
    assert "missing-kind" not in done.stdout
    scratch.run("git", "checkout", "HEAD", "--", "cards/cards.json")
