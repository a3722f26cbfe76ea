"""The layout template sandbox, with bounded work (see pnp.limits for the limits).

Jinja's sandbox stops templates from reaching Python internals, not from working forever:
`{{ 'x' * 10**9 }}`, `{{ 10**10**8 }}` or nested loops over `range(100000)` would hang a build.
Here `*` and `**` may not build huge values, a render may not produce more than
`template-output` characters, and may not run longer than `template-seconds` (a SIGALRM timer,
in the main thread on platforms that have one).
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Iterator
from typing import Any

from jinja2 import Template, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from pnp.limits import current, exceeded


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
    with _deadline(limits.template_seconds):
        size = 0
        out: list[str] = []
        for chunk in chunks:
            size += len(chunk)
            if size > limits.template_output:
                raise LimitExceeded(exceeded("template_output", "the template's output is too long"))
            out.append(chunk)
        return "".join(out)


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

_armed = [False]  # a render is timed now: SIGALRM is ours


class _deadline:
    """SIGALRM after `seconds` (main thread, where there is SIGALRM): a loop with no output ends too.
    The handler is installed once; each render only sets and clears the timer."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if self.armed and not _armed[0]:
            if signal.getsignal(signal.SIGALRM) is not _timed_out:
                signal.signal(signal.SIGALRM, _timed_out)
            _armed[0] = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        else:
            self.armed = False  # nested (a template rendering a template): the outer timer counts

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _armed[0] = False


def _timed_out(signum: int, frame: Any) -> None:
    if _armed[0]:
        raise LimitExceeded(exceeded("template_seconds", "the template ran too long"))
