"""A build whose check fails: it prints the check's report and nothing else, and writes nothing.

The expected report is `pnp check`'s own output on the same project (its problem lines, and its
count line without the "N files, M records:" that only a check prints), so the test holds the
build to the promise "`pnp check` promises what `pnp build` delivers" for a failed build: same
problems, same places, same words. Real CLI runs on a copy of tests/build_project with records
that break their schema in several ways (wrong types, a missing property) and a drawing warning
that the check reports too (elements outside the safe zone of its layouts).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.runpnp import Ran, copy_project
from tests.runpnp import run as pnp

STOPPED = "pnp build: 0 written, 0 up to date (stopped: fix the errors above; previous outputs are untouched)\n"


def break_records(project: Path) -> None:
    """Five schema errors in five records of cards/cards.json."""
    path = project / "cards" / "cards.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["cost"] = "three"
    records[1]["name"] = ["not", "a", "string"]
    records[2]["text"] = {"x": 1}
    records[3]["image"] = 42
    del records[4]["name"]
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")


def snapshot(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under `folder`: its bytes, inode and modification time."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            info = path.stat()
            found[path.relative_to(folder).as_posix()] = (path.read_bytes(), info.st_ino, info.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ran, Ran]:
    """A project never built, its failed build, then `pnp check` on it (in that order)."""
    project = copy_project("build_project", tmp_path_factory.mktemp("never-built") / "project")
    break_records(project)
    build = pnp(project, "build")
    assert not (project / "output").exists(), "a failed build made the output folder"
    check = pnp(project, "check")
    return build, check


def test_a_failed_build_prints_exactly_the_checks_report(failed: tuple[Ran, Ran]) -> None:
    build, check = failed
    assert (build.returncode, check.returncode) == (1, 1)
    built_lines = build.stdout.splitlines()
    checked_lines = check.stdout.splitlines()
    assert len([line for line in checked_lines if ": error[" in line]) == 5
    assert any(": warning[outside-safe-zone]" in line for line in checked_lines)  # what drawing finds, too
    assert built_lines[:-1] == checked_lines[:-1]  # every problem line, in the same order
    count = re.fullmatch(r"\d+ files?, \d+ records?: (.*)", checked_lines[-1])
    assert count is not None, checked_lines[-1]
    assert built_lines[-1] == count.group(1)  # "5 errors, 4 warnings"
    assert build.stderr == STOPPED  # no "wrote", no progress, no traceback


def test_a_failed_build_touches_no_previous_output(tmp_path: Path) -> None:
    project = copy_project("build_project", tmp_path / "project")
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    before = snapshot(project / "output")
    assert any(name.endswith(".pdf") for name in before)
    break_records(project)
    failed = pnp(project, "build", "--force")  # --force: the check still stops it before anything is replaced
    assert failed.returncode == 1
    assert failed.stderr == STOPPED
    assert snapshot(project / "output") == before  # same files, bytes, inodes and times: no temporary left
    assert not any(name.endswith(".tmp") for name in os.listdir(project / "output"))
