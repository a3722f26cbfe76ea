"""Run a function in a forked child process and collect its result later.

Why fork: a child forked after the schemas are compiled and the file list is made starts with
all of that at no cost, so `pnp check` can validate part of a large project on another core
while the parent parses and cross-checks. Results come back pickled through a pipe. Anything
that goes wrong in the child (an exception, a crash, no fork on this platform) makes `result()`
return None; the caller then does the work itself, so a failed child never loses a problem.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_UNREAPED: list[int] = []  # children whose whole answer came before they were gone (see Child.result)


def _reap() -> None:
    """Collect the exit of children `result` did not wait for, those that are gone by now."""
    for pid in list(_UNREAPED):
        try:
            gone, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours (a forked copy of the list), or collected already
            gone = pid
        if gone:
            _UNREAPED.remove(pid)


def can_fork() -> bool:
    return hasattr(os, "fork")


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system tells it: Linux; else
    every core of the machine: macOS has no affinity call)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Child(Generic[T]):
    """`fn(*args)` running in a forked process; `result()` waits for it."""

    def __init__(self, fn: Callable[..., T], *args: object) -> None:
        self._pid = -1
        self._read = -1
        _reap()
        try:
            read, write = os.pipe()
            pid = os.fork()
        except (AttributeError, OSError):
            return
        if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
            os.close(read)
            try:
                payload = pickle.dumps((True, fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:  # noqa: BLE001 - reported to the parent as "no result"
                payload = pickle.dumps((False, None))
            try:
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
            finally:  # a parent gone (a broken pipe) must not send the child back into its code
                os._exit(0)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T | None:
        """What `fn` returned; None if it failed. Not waited for: the child's exit once its whole
        answer is in (the pipe closed; a cut one does not unpickle). Freeing a forked checker's
        memory took 3 to 8 ms, on the one-core path of a check; it is collected later (`_reap`)."""
        if self._pid < 0:
            return None
        try:
            with os.fdopen(self._read, "rb") as pipe:
                payload = pipe.read()
            gone, status = os.waitpid(self._pid, os.WNOHANG)
            if not gone:
                _UNREAPED.append(self._pid)
                status = 0
            ok, value = pickle.loads(payload) if payload and status == 0 else (False, None)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None
        finally:
            self._pid = -1
        return value if ok else None
