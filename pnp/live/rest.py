"""`pnp watch`'s rest build (combined files, read-me pages, sheets) in a child a save can abandon.

Why a child: the rest build reads every kind, and at 10,000 cards it takes seconds (the combined
file re-packs every face). Run in the watch's own process, a save made meanwhile waited for it
to end. Here it runs in a forked child (it starts with everything the watch has imported and
loaded); a save kills it, and the save's round starts at once.

Why killing is safe: the child writes only through pnp's one output writer (pnp.core.output):
every output is staged as a temporary file in the output folder, and put in place at the end of
the run after the manifest entries of what it replaces were forgotten. So a child killed at any
moment leaves each output either as it was or whole and new, and never a file the manifest
calls up to date when it is not (the next build redoes it). What it staged is removed by
`discard_partial` under the output folder's lock, before the next round writes anything.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pnp.core.problems import Problem
from pnp.project.config import ConfigError


@dataclass(frozen=True, slots=True)
class RestOutcome:
    """What a finished rest build reports."""

    problems: tuple[Problem, ...] = ()
    config_changed: bool = False  # pnp.toml changed since the round: the next round reports it
    failure: str = ""  # a bug in pnp, or the child died: one line for the user


def outcome_of(build: Callable[[], tuple[Problem, ...]]) -> RestOutcome:
    """Run `build` and say how it went (in whichever process runs it)."""
    try:
        return RestOutcome(build())
    except ConfigError:
        return RestOutcome(config_changed=True)


class RestChild:
    """`build` running in a forked child; `poll` collects its outcome, `abandon` kills it."""

    def __init__(self, build: Callable[[], tuple[Problem, ...]]) -> None:
        for stream in (sys.stdout, sys.stderr):  # else the child would write their buffers again
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        read, write = os.pipe()
        interrupt = {signal.SIGINT}
        pid = -1
        signal.pthread_sigmask(signal.SIG_BLOCK, interrupt)  # a Ctrl-C now is the parent's, after the fork
        try:
            pid = os.fork()
            if pid == 0:  # the child: build, send the outcome, and leave without the parent's cleanup
                try:
                    os.close(read)
                    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent kills this child on Ctrl-C
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupt)
                    _run_child(write, build)
                finally:
                    os._exit(1)
        except OSError:
            os.close(read)
            os.close(write)
            raise
        finally:
            if pid != 0:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupt)
        os.close(write)
        self.pid = pid
        self._read = read
        self.ended_by: int | None = None  # the child's wait status once reaped

    @property
    def running(self) -> bool:
        return self.ended_by is None

    def poll(self, timeout: float = 0.0) -> RestOutcome | None:
        """The outcome when the child has finished (waiting up to `timeout` s), else None."""
        if not self.running:
            return None
        ready, _, _ = select.select([self._read], [], [], timeout)
        if not ready:
            return None
        chunks = []
        while chunk := os.read(self._read, 1 << 16):  # the child writes its outcome, then ends
            chunks.append(chunk)
        self._reap()
        payload = b"".join(chunks)
        try:
            outcome = pickle.loads(payload) if payload else None
        except (pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            outcome = None
        if isinstance(outcome, RestOutcome):
            return outcome
        ended = _how(self.ended_by)
        return RestOutcome(failure=f"the build of the combined files and sheets ended without a result ({ended})")

    def abandon(self) -> bool:
        """Kill the child now; whether it was still at work (then its partial work is for
        `discard_partial`). A child that had finished is reaped, its outcome dropped."""
        if not self.running:
            return False
        finished = bool(select.select([self._read], [], [], 0)[0])
        os.kill(self.pid, signal.SIGKILL)  # not reaped yet: the pid is still this child's
        self._reap()
        return not finished

    def _reap(self) -> None:
        os.close(self._read)
        _, status = os.waitpid(self.pid, 0)
        self.ended_by = status


def _run_child(write: int, build: Callable[[], tuple[Problem, ...]]) -> None:
    """In the child: the build, and its outcome pickled into `write`."""
    code = 0
    try:
        outcome = outcome_of(build)
    except BaseException as err:  # noqa: BLE001 - a bug in pnp: said in one line by the parent
        if os.environ.get("PNP_DEBUG"):
            import traceback

            traceback.print_exc()
        outcome = RestOutcome(failure=f"{type(err).__name__}: {err}")
        code = 1
    try:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
        sys.stderr.flush()
    finally:
        os._exit(code)


def _how(status: int | None) -> str:
    if status is None:
        return "still running"
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def can_abandon() -> bool:
    """Whether the rest build can run in a child here (not on a platform without fork)."""
    return hasattr(os, "fork")


def discard_partial(output: Path) -> None:
    """Remove what a killed build left staged in `output` (its temporary files), under the
    folder's lock, as every build does when it starts (pnp.core.output.OutputRun)."""
    from pnp.core.output import OutputRun

    with OutputRun(output):
        pass  # taking the run cleans the temporaries; nothing is staged, so nothing is committed
