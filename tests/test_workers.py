"""pnp.core.workers.Child: real forked processes, and what happens when one fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pnp.core.workers import Child, can_fork
from pnp.rules.validation import validation_shares

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


def _waits_then_sends_much(ready: int) -> bytes:
    os.read(ready, 1)  # the parent has stopped listening by now
    return b"x" * (1 << 20)  # more than a pipe holds: the write meets the closed end


def test_a_child_whose_parent_stopped_listening_leaves_without_running_the_callers_code(tmp_path: Path) -> None:
    """A broken pipe must not send the child back from Child() into the code that made it (it
    would go on as a second copy of the caller: a second build committing, a second test run)."""
    escaped = tmp_path / "escaped"
    ready, go = os.pipe()
    parent = os.getpid()
    child = Child(_waits_then_sends_much, ready)
    if os.getpid() != parent:  # only a child that came back from Child() gets here
        escaped.write_text("the child ran its caller's code", encoding="utf-8")
        os._exit(0)
    os.close(child._read)  # noqa: SLF001 - the parent stops listening
    os.write(go, b"1")
    _, status = os.waitpid(child._pid, 0)  # noqa: SLF001
    os.close(ready)
    os.close(go)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not escaped.exists()


def test_validation_shares_balance_the_json_files_between_the_processes(tmp_path: Path) -> None:
    """Each JSON file goes to whoever has the least work so far, a child first on a tie, a
    child's bytes counting 1.25 times (it also sends back what it found); the main process reads
    the rest and every YAML or table file itself, so that no file is parsed twice."""
    paths = []
    for i in range(7):
        (tmp_path / f"{i}.json").write_bytes(b"x" * 100)
        paths.append((tmp_path / f"{i}.json", f"cards/{i}.json"))
    paths.insert(3, (tmp_path / "rows.csv", "cards/rows.csv"))
    shares = validation_shares(paths, jobs=3, min_bytes=0)
    # loads (child, child, main): 125 0 0 -> 125 125 0 -> 125 125 100 -> 125 125 200 -> 250 125 200
    # -> 250 250 200 -> 250 250 300
    assert [[name for _, name in share] for share in shares] == [
        ["cards/0.json", "cards/4.json"],
        ["cards/1.json", "cards/5.json"],
    ]
    assert validation_shares(paths, jobs=1, min_bytes=0) == []
    assert validation_shares(paths[:1], jobs=4, min_bytes=0) == [paths[:1]]  # a child reads it (--jobs asked)


def test_small_projects_get_no_children(tmp_path: Path) -> None:
    files = [(tmp_path / name, name) for name in ("a.json", "b.json")]
    for path, _ in files:
        path.write_text("[]", encoding="utf-8")
    assert validation_shares(files, jobs=2, min_bytes=1024) == []
    assert validation_shares(files, jobs=2, min_bytes=0) == [files[:1]]


def test_a_child_answered_is_collected_when_gone_not_waited_for() -> None:
    """`result` takes a whole answer without waiting for the child to be gone (freeing a forked
    checker's memory took milliseconds on a check's one-core path); the next Child collects its
    exit, so no finished child is left behind."""
    first = Child(_pid_and_sum, [1, 2])
    pid = first._pid  # noqa: SLF001
    assert first.result() == (pid, 3)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # until it is gone, leaving its exit to collect
    assert Child(_pid_and_sum, [4]).result() is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # collected already
