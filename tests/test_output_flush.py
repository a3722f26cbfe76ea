"""A build's staged files are flushed to the disk in a thread while the build goes on
(pnp.core.output.OutputRun), and all before the first is put in place: a flush that fails (a
full disk) is one line, and the output folder stays as it was, with no temporary file left."""

from __future__ import annotations

import errno
import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    return target


def test_outputs_are_flushed_off_the_main_thread_before_they_are_put_in_place(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[tuple[str, bool]] = []
    real = os.fsync

    def fsync(descriptor: int) -> None:
        name = os.readlink(f"/proc/self/fd/{descriptor}") if os.path.exists("/proc/self/fd") else "?"
        flushed.append((os.path.basename(name), threading.current_thread() is threading.main_thread()))
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    pdfs = [(name, main) for name, main in flushed if name.endswith(".tmp") and ".pdf." in name]
    assert {name.split(".pdf.")[0] for name, _ in pdfs} >= {".test.card", ".test.spell", ".test"}, flushed
    assert not any(main for _, main in pdfs)


def test_a_flush_that_fails_is_one_line_and_changes_nothing(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert pnp(project, "build").returncode == 0
    before = {p: p.read_bytes() for p in (project / "output").rglob("*.pdf")}
    (project / "cards" / "cards.json").write_text(
        (project / "cards" / "cards.json").read_text(encoding="utf-8").replace("Card", "Karte", 1), encoding="utf-8"
    )

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    done = pnp(project, "build")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    assert {p: p.read_bytes() for p in (project / "output").rglob("*.pdf")} == before
    assert not [p for p in (project / "output").rglob("*.tmp")]


def test_many_staged_files_are_all_flushed_with_a_bounded_number_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export stages a file per card: at most a few flushes wait for the thread (each holds a
    descriptor), the rest are flushed as they are staged; every one is flushed, and no descriptor
    is left open."""
    from pnp.core.output import OutputRun, atomic_write

    flushed: list[bool] = []
    real = os.fsync

    def fsync(descriptor: int) -> None:
        real(descriptor)
        flushed.append(threading.current_thread() is threading.main_thread())

    monkeypatch.setattr(os, "fsync", fsync)
    folder = tmp_path / "output"
    descriptors = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    with OutputRun(folder):
        for n in range(60):
            atomic_write(folder / f"card-{n:03d}.png", lambda handle, n=n: handle.write(b"%d" % n))
    assert len(flushed) == 60
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("card-")) == [
        f"card-{n:03d}.png" for n in range(60)
    ]
    if descriptors:
        assert len(os.listdir("/proc/self/fd")) <= descriptors + 1
