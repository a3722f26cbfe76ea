"""`pnp build` with nothing to do loads nothing (pnp/project/stamp.py), and a one-kind game gets no duplicate combined PDF."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import cards_only
from runpnp import imported

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
HEAVY = ("reportlab", "jinja2", "jsonschema_rs", "pypdf", "pnp.rules.check", "pnp.drawing.render", "pnp.project.layout")


def pnp(project: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def one_kind(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build project with its token kind removed: a game of one kind, cards with backs, duplex."""
    target = cards_only(tmp_path_factory.mktemp("fast") / "project")
    base = target / "layouts" / "test-base.json"  # no element outside the safe zone: a clean build, no warning
    base.write_text(base.read_text().replace('"safe": 3', '"safe": 0'))
    done = pnp(target, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def test_a_one_kind_game_has_no_combined_copy(one_kind: Path) -> None:
    assert (one_kind / "output" / "test" / "test.card.pdf").is_file()
    assert not (one_kind / "output" / "test.pdf").exists()


def test_nothing_to_do_imports_no_drawing_or_checking(one_kind: Path) -> None:
    done = pnp(one_kind, "build", importtime=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pnp build: 0 written, 1 up to date" in done.stderr
    modules = imported(done.stderr)
    assert "pnp.project.stamp" in modules
    assert not [m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY]


def test_a_changed_input_of_the_same_size_rebuilds(one_kind: Path) -> None:
    cards = one_kind / "cards" / "cards.json"
    before = cards.read_text(encoding="utf-8")
    info = cards.stat()
    changed = before.replace('"cost": 0,', '"cost": 9,', 1)
    assert changed != before and len(changed) == len(before)
    cards.write_text(changed, encoding="utf-8")
    os.utime(cards, ns=(info.st_atime_ns, info.st_mtime_ns))  # same size, same time: only the content differs
    done = pnp(one_kind, "build", importtime=True)
    assert "wrote output/test/test.card.pdf" in done.stderr, done.stderr[-2000:]
    assert "pnp.rules.check" in imported(done.stderr)
    again = pnp(one_kind, "build")
    assert "0 written, 1 up to date" in again.stderr


def test_a_removed_output_is_rebuilt(one_kind: Path) -> None:
    (one_kind / "output" / "test" / "test.card.pdf").unlink()
    done = pnp(one_kind, "build")
    assert "wrote output/test/test.card.pdf" in done.stderr, done.stderr
