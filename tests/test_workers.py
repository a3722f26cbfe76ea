"""pnp.core.workers.Child: real forked processes, and what happens when one fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pnp.core.workers import Child, can_fork
from pnp.rules.check import validation_shares

pytestmark = pytest.mark.skipif(not can_fork(), reason="no os.fork on this platform")


def _pid_and_sum(numbers: list[int]) -> tuple[int, int]:
    return os.getpid(), sum(numbers)


def _fails() -> int:
    raise ValueError("boom")


def _dies() -> int:
    os._exit(3)


def test_child_computes_in_another_process() -> None:
    pid, total = Child(_pid_and_sum, [1, 2, 3]).result() or (0, 0)
    assert total == 6
    assert pid not in (0, os.getpid())


@pytest.mark.parametrize("fn", [_fails, _dies])
def test_a_failed_child_gives_no_result(fn: object) -> None:
    """The caller then does the work itself: nothing is lost (see LoadedProject.findings)."""
    assert Child(fn).result() is None  # type: ignore[arg-type]


def test_validation_shares_cover_every_file_once() -> None:
    paths = [(Path(f"cards/{i}.json"), f"cards/{i}.json") for i in range(7)]
    shares = validation_shares(paths, jobs=3, min_bytes=0)
    assert len(shares) == 2
    assert sorted(p for share in shares for p in share) == sorted(paths)
    assert validation_shares(paths, jobs=1, min_bytes=0) == []
    assert validation_shares(paths[:1], jobs=4, min_bytes=0) == [paths[:1]]


def test_small_projects_get_no_children(tmp_path: Path) -> None:
    record = tmp_path / "a.json"
    record.write_text("[]", encoding="utf-8")
    assert validation_shares([(record, "a.json")], jobs=2, min_bytes=1024) == []
    assert validation_shares([(record, "a.json")], jobs=2, min_bytes=0) == [[(record, "a.json")]]
