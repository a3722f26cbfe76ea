"""A real `pnp watch` process on a copy of tests/watch_project, read line by line as it runs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "watch_project"
URL = re.compile(r"serving the proof page on (http://\S+/)")


def copy_fixture(tmp: Path) -> Path:
    target = tmp / "project"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("output"))
    return target


def wait_until(condition: Callable[[], object], timeout: float = 30.0, what: str = "") -> object:
    """Poll `condition` until it is truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}")
        time.sleep(0.1)


def interruptible() -> None:
    """In the child before exec: Ctrl-C as a terminal gives it. A shell starts background jobs
    with SIGINT ignored, and Python keeps an ignored SIGINT ignored, so a suite run in the
    background would otherwise see no child stop on Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class WatchProcess:
    """`python -m pnp watch ARGS` in `project`; stdout and stderr collected as lines."""

    def __init__(self, project: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pnp", "watch", *args],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=interruptible,
        )
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        for stream, lines in ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _read(stream: object, lines: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.append(line.rstrip("\n"))

    def wait_for_line(
        self, pattern: str, start: int = 0, timeout: float = 30.0, stream: str = "stdout"
    ) -> re.Match[str]:
        lines = self.stdout if stream == "stdout" else self.stderr

        def found() -> re.Match[str] | None:
            if self.process.poll() is not None and not any(re.search(pattern, line) for line in lines[start:]):
                raise AssertionError(f"pnp watch ended ({self.process.returncode}): {self.stdout} {self.stderr}")
            return next((m for line in lines[start:] if (m := re.search(pattern, line))), None)

        return wait_until(found, timeout, f"{pattern!r} in {stream}: {lines[start:]}")  # type: ignore[return-value]

    @property
    def url(self) -> str:
        return self.wait_for_line(URL.pattern, stream="stderr").group(1)

    def interrupt(self, timeout: float = 20.0) -> int:
        """Ctrl-C, as a terminal sends it; the exit status."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
