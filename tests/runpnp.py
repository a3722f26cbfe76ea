"""`pnp ARGS` for the tests: in this process (`run`), or as the real `python -m pnp` process (`process`).

`run` goes through the command line's own entry (`pnp.cli.commands._run`: click's parsing, then
the same mapping of a usage or configuration error to exit status 2, Ctrl-C to 130 and any other
exception to an "internal error" line) with the working folder, `sys.argv`, the environment and
standard output and error swapped for the call, and answers like `subprocess.run(...,
capture_output=True, text=True)`: `.returncode`, `.stdout`, `.stderr`. Starting Python and
importing pnp, its schemas' validator and reportlab costs 0.4 to 1 s of CPU a process; a check or a
build of a test project takes a tenth of that in a warm process. So tests of what a command does
use `run`, and tests of the process itself (exit status set by a signal, output encoding, what a
fresh interpreter imports, environment variables read at start-up, the console script) use
`process`.
"""

from __future__ import annotations

import _thread
import gc
import io
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


@dataclass(frozen=True)
class Ran:
    """What `subprocess.run(..., capture_output=True, text=True)` answers, for an in-process run."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _swapped(cwd: Path, argv: list[str], env: Mapping[str, str] | None) -> Iterator[None]:
    before_cwd, before_argv = os.getcwd(), sys.argv
    before_env = {key: os.environ.get(key) for key in env or {}}
    os.chdir(cwd)
    sys.argv = argv
    os.environ.update(env or {})
    try:
        yield
    finally:
        os.chdir(before_cwd)
        sys.argv = before_argv
        for key, value in before_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run(cwd: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300) -> Ran:
    """`pnp ARGS` in `cwd`, in this process; `env`: variables set for the call (on top of os.environ).

    After `timeout` seconds the run is interrupted as Ctrl-C would (the command then ends with
    status 130), so that a run that would never end fails its test instead of hanging the suite;
    a run blocked in a system call (opening a FIFO) is not interrupted: test that in `process`."""
    from pnp.cli import commands

    out, err = io.StringIO(), io.StringIO()
    code = 0
    watchdog = threading.Timer(timeout, _thread.interrupt_main)
    with _swapped(Path(cwd), ["pnp", *args], env), redirect_stdout(out), redirect_stderr(err):
        try:
            watchdog.start()
            try:
                commands._run()
            finally:
                watchdog.cancel()
                # loading records freezes the collector's objects (gc.freeze, for a process about
                # to end): this one goes on, so give them back, or each run's garbage would stay
                gc.unfreeze()
        except SystemExit as done:  # as pnp.cli.commands.main turns it into the process's status
            if isinstance(done.code, int):
                code = done.code
            elif done.code is None:
                code = 0
            else:
                print(done.code, file=sys.stderr)
                code = 1
    return Ran(["pnp", *args], code, out.getvalue(), err.getvalue())


def process(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The real `python -m pnp ARGS` process in `cwd`, with this checkout's pnp."""
    return subprocess.run(
        [sys.executable, "-m", "pnp", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**ENV, **(env or {})},
        timeout=timeout,
    )


def pnp(project: Path, *args: str) -> Ran:
    """`pnp ARGS` in `project`, in this process (see `run`)."""
    return run(project, *args)


def copy_project(name: str, target: Path) -> Path:
    """tests/<name>, without its output, copied to `target`."""
    shutil.copytree(ROOT / "tests" / name, target, ignore=shutil.ignore_patterns("output"))
    return target


def imported(stderr: str) -> set[str]:
    """The modules a `python -X importtime` run imported, from its standard error."""
    import re

    return {m.group(1) for m in re.finditer(r"^import time:.*\|\s+(\S+)$", stderr, re.MULTILINE)}
