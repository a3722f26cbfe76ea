"""Work done once per test run, however many pytest-xdist workers need it.

A session-scoped fixture runs once per worker. For the expensive outputs that several modules
read (the bundled games built and exported), `made_once` makes a folder once per run instead:
the first worker to ask makes it under an exclusive lock, in the folder all workers of the run
share (the parent of each worker's base temporary folder); a worker asking meanwhile waits for
it rather than making its own, and later ones find it made. Without xdist it is made in the
session's own temporary folder. Readers must not change what is in it.
"""

from __future__ import annotations

import fcntl
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DONE = "made.json"


def shared_folder(request: pytest.FixtureRequest, name: str) -> Path:
    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    base = factory.getbasetemp()
    is_worker = hasattr(request.config, "workerinput")
    return (base.parent if is_worker else base) / f"once-{name}"


def made_once(request: pytest.FixtureRequest, name: str, make: Callable[[Path], Any]) -> tuple[Path, Any]:
    """The folder `make(folder)` filled, and what it answered (JSON), made once per test run."""
    folder = shared_folder(request, name)
    lock_path = folder.with_name(folder.name + ".lock")
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed, also if make() fails
        done = folder / DONE
        if done.is_file():
            return folder, json.loads(done.read_text(encoding="utf-8"))
        shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
        folder.mkdir(parents=True)
        answer = make(folder)
        done.write_text(json.dumps(answer), encoding="utf-8")
        return folder, answer
