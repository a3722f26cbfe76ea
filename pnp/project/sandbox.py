"""The layout template sandbox, with bounded work (see pnp.core.limits for the limits).

Jinja's sandbox stops templates from reaching Python internals, not from working forever:
`{{ 'x' * 10**9 }}`, `{{ 10**10**8 }}` or nested loops over `range(100000)` would hang a build.
Here `*` and `**` may not build huge values, a render may not produce more than
`template-output` characters, and may not run longer than `template-seconds` (checked by a
SIGALRM handler every quarter second, in the main thread on platforms that have setitimer).
"""

from __future__ import annotations

import atexit
import math
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

from jinja2 import Template, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from pnp.core.limits import current, exceeded


class LimitExceeded(TemplateError):
    """A template went over a limit (raised inside the sandbox, reported as a layout problem)."""


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The layout sandbox, with bounded work: `*` and `**` may not build huge values, a render
    may not produce more than `template_output` characters or run longer than `template_seconds`.
    """

    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        cap = current().template_output
        digits = right * math.log10(abs(left)) if operator == "**" and _ints(left, right) and abs(left) > 1 else 0
        if digits > 1000:
            raise LimitExceeded(exceeded("template_output", f"{left} ** {right} has over 1000 digits"))
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, list, tuple)) and _ints(times) and len(sequence) * times > cap:
                    raise LimitExceeded(exceeded("template_output", f"a repetition of {len(sequence) * times} items"))
        return super().call_binop(context, operator, left, right)


def bounded_render(chunks: Iterator[str]) -> str:
    """Join a template's output chunks, within the output and time limits."""
    limits = current()
    outer = _started[0]
    if outer is None:  # not nested in another render (whose start counts)
        _started[0] = time.monotonic()  # first: a tick that finds no render disarms the watch
        _watch()
    try:
        size = 0
        out: list[str] = []
        for chunk in chunks:
            size += len(chunk)
            if size > limits.template_output:
                raise LimitExceeded(exceeded("template_output", "the template's output is too long"))
            out.append(chunk)
        return "".join(out)
    finally:
        _started[0] = outer


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


class BoundedTemplate(Template):
    """A template whose render goes through `bounded_render`."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        context = self.new_context(dict(*args, **kwargs))
        try:
            return bounded_render(self.root_render_func(context))
        except Exception:
            self.environment.handle_exception()  # raises, with the template's own traceback
            raise


BoundedSandbox.template_class = BoundedTemplate

_started: list[float | None] = [None]  # when the render in progress began
WATCH_INTERVAL = 0.25  # seconds between looks at the render in progress


def _watch() -> None:
    """Start, once per process, a timer (SIGALRM every WATCH_INTERVAL) whose handler ends a render
    running over `template_seconds`: a loop that prints nothing ends too. Only in the main
    thread of a platform with setitimer; a render costs no system call."""
    if _watching[0] or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return
    _watching[0] = True
    _previous[0] = signal.signal(signal.SIGALRM, _look)
    signal.setitimer(signal.ITIMER_REAL, WATCH_INTERVAL, WATCH_INTERVAL)


def _stop() -> None:
    """Disarm the timer and give SIGALRM back: when no render is in progress (the next render
    arms it again) and at exit (a tick after Python resets its handlers would kill the process)."""
    if not _watching[0]:
        return
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    signal.signal(signal.SIGALRM, _previous[0] if _previous[0] is not None else signal.SIG_DFL)
    _watching[0] = False


_watching = [False]
_previous: list[Any] = [None]
atexit.register(_stop)


def _look(signum: int, frame: Any) -> None:
    started = _started[0]
    if started is None:  # between renders: a program using pnp as a library keeps its SIGALRM
        _stop()
        return
    if started is not None and time.monotonic() - started > current().template_seconds:
        _started[0] = None  # raised once: the render unwinds
        raise LimitExceeded(exceeded("template_seconds", "the template ran too long"))
