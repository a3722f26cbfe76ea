"""docs/api.md's example, run as a script in an empty folder, prints what the page shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "api.md"


def test_the_documented_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```\n\nIt prints:\n\n```text\n(.*?)```", text, re.DOTALL)
    assert match, "docs/api.md: the example and its output are not where this test looks"
    script, shown = match.groups()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
    assert (tmp_path / "ember-wild" / "output" / "ember-wild" / "emberwild.card.pdf").is_file()


def test_api_names_are_exported_and_typed() -> None:
    import pnp.api

    assert set(pnp.api.__all__) >= {"open_project", "new_project", "check", "build", "export", "Problem", "ConfigError"}
    for name in ("open_project", "new_project", "check", "build", "export"):
        hints = getattr(pnp.api, name).__annotations__
        assert "return" in hints, name


def test_a_program_using_pnp_keeps_its_sigalrm_and_exits_cleanly(tmp_path: Path) -> None:
    """The template time watch (a SIGALRM timer) runs only while templates render: afterwards the
    program's own SIGALRM handler is back, and no tick can kill the process at exit."""
    program = """
import signal, time
import pnp.api as pnp

def mine(signum, frame):
    pass

signal.signal(signal.SIGALRM, mine)
project = pnp.new_project("ember-wild", "Ember Wild")
assert pnp.build(project).exit_code == 0
time.sleep(0.6)  # past two ticks of the watch: it has disarmed itself
assert signal.getsignal(signal.SIGALRM) is mine, signal.getsignal(signal.SIGALRM)
assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stdout, done.stderr[-2000:])
