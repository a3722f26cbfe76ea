"""Run one case folder (tests/cases/<name>/) through the real `pnp check` CLI.

A case folder holds input files laid out as in a project (`cards/`, and optionally `schemas/`,
`layouts/`, `assets/`, `pnp.toml`) and `expected.json`:
{"args": [...], "exit": 1, "problems": [{file, line, column, pointer, code, severity, message}]}
or, for the non-JSON formats, "stdout" instead of "problems". The case is copied over a fresh
project: "base": "fixture" is tests/fixture/ (its own pnp.toml and small stable test schemas);
"base": "repo" (the default, only for tests/content/cases/) is this repository's bundled content.
"generate" lists files made at run time (too big to commit): {"cards/big.json": {"bytes": N}},
or copied from this repository: {"fonts/Plain.ttf": {"copy": "pnp/fonts/DejaVuSans.ttf"}}.
"seconds" and "memory_mb", when given, bound the run: its wall-clock time and the peak resident
memory of the pnp process (cases of hostile input: bounded work is part of what they promise);
such a case always runs in a real process.

A case runs through the command line's entry in this process (tests/runpnp.py: the same parsing,
reporters and exit statuses, without starting Python and importing pnp again for each of ~250
runs); `real_process=True` starts the real `python -m pnp` instead (tests/test_cases.py does so for
a sample of cases, so both ways are held to the same expected.json).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runpnp import run

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
PNP = [sys.executable, "-m", "pnp"]
CONTENT_CASES = ROOT / "tests" / "content" / "cases"


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    problems: list[dict[str, Any]] | None
    seconds: float = 0.0
    memory_mb: float = 0.0


def load_expected(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "expected.json").read_text(encoding="utf-8"))


FIXTURE = ROOT / "tests" / "fixture"


def make_project(folder: Path, target: Path, base: str) -> None:
    """The repo (base "repo") or the small fixture project (base "fixture"), then the case."""
    source = ROOT if base == "repo" else FIXTURE
    shutil.copy(source / "pnp.toml", target / "pnp.toml")
    shutil.copytree(source / "schemas", target / "schemas")
    shutil.copytree(source / "layouts", target / "layouts")
    if (source / "sheets").is_dir():  # the base's sheet files (a case may add its own)
        shutil.copytree(source / "sheets", target / "sheets")
    (target / "cards").mkdir()
    for item in folder.iterdir():
        if item.name in ("expected.json", "README.md"):
            continue
        destination = target / item.name
        if item.is_dir():
            shutil.copytree(item, destination, dirs_exist_ok=True, symlinks=True)
        else:
            shutil.copy(item, destination)


def generate(target: Path, spec: dict[str, Any]) -> None:
    for relative, how in spec.get("generate", {}).items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if "copy" in how:
            shutil.copy(ROOT / how["copy"], path)
            continue
        with path.open("wb") as handle:
            handle.write(b'[{"kind": "test.spell", "id": "x", "pad": "')
            handle.write(b"x" * int(how["bytes"]))
            handle.write(b'"}]')
        if how.get("symlink_to"):
            path.unlink()
            path.symlink_to(how["symlink_to"])


def run_case(folder: Path, spec: dict[str, Any], real_process: bool = False) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "project"
        target.mkdir()
        make_project(folder, target, spec.get("base", "repo"))
        generate(target, spec)
        args = list(spec.get("args", []))
        as_json = "--format" not in args
        if real_process or "seconds" in spec or "memory_mb" in spec:
            command = [*PNP, "check", *(["--format", "json"] if as_json else []), *args]
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            code, out, err, seconds, memory_mb = run_measured(command, target, env)
        else:
            done = run(target, "check", *(["--format", "json"] if as_json else []), *args)
            code, out, err, seconds, memory_mb = done.returncode, done.stdout, done.stderr, 0.0, 0.0
        problems = json.loads(out)["problems"] if as_json and out.strip() else None
        stdout = out.replace(str(target), "<project>")
        return Outcome(code, stdout, err, problems, seconds, memory_mb)


def run_measured(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float = 300
) -> tuple[int, str, str, float, float]:
    """Run `command`: its exit status, output, error output, wall-clock seconds and peak resident
    memory in MB.

    The peak is the process's own high-water mark (VmHWM in /proc/PID/status, which exec resets),
    read every few milliseconds while it runs: wait4's ru_maxrss would also count the test
    process's memory at the fork, which in-process tests make large. Where /proc is missing
    (not Linux), ru_maxrss it is.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        status_file = Path(f"/proc/{process.pid}/status")
        peak_kb = 0
        while True:
            try:
                for line in status_file.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak_kb = max(peak_kb, int(line.split()[1]))
            except (OSError, ValueError, IndexError):
                pass
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                process.kill()
            time.sleep(0.005)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        if not status_file.parent.parent.joinpath("self").exists():  # no /proc: the rusage figure
            peak_kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024
        return process.returncode, out.read().decode(), err.read().decode(), seconds, peak_kb / 1024


def case_names(cases: Path) -> list[str]:
    """The case folders (those with an expected.json) under `cases`."""
    return sorted(p.name for p in cases.iterdir() if (p / "expected.json").exists())


def assert_case(folder: Path, extra_args: list[str] | None = None, real_process: bool = False) -> None:
    """Run one case folder and compare exit status and problems (or stdout) with expected.json."""
    spec = load_expected(folder)
    if extra_args:
        spec = {**spec, "args": [*spec.get("args", []), *extra_args]}
    outcome = run_case(folder, spec, real_process)
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.exit_code == spec["exit"], outcome.stdout + outcome.stderr
    assert outcome.seconds < spec.get("seconds", 300), f"took {outcome.seconds:.1f} s"
    assert outcome.memory_mb < spec.get("memory_mb", 1e9), f"took {outcome.memory_mb:.0f} MB"
    if "problems" in spec:
        assert outcome.problems == spec["problems"]
    else:
        assert outcome.stdout == spec["stdout"]
