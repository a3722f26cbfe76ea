"""The layout template sandbox, with bounded work (see pnp.core.limits for the limits).

Jinja's sandbox stops templates from reaching Python internals, not from working forever:
`{{ 'x' * 10**9 }}`, `{{ 'x'|center(10**9) }}`, `{{ '%99999999s' % x }}`, `{{ 10**10**8 }}` or
nested loops over `range(100000)` would hang a build or exhaust the machine. Here every operation
that can build a value larger than its inputs (repetition, `+`, `~`, `%` and `str.format`, the
filters and string methods with a width or a count, `join`, `replace`, `lipsum`, a macro's or a
block's output) is checked before it runs: no value a template builds may be longer than
`template-output` characters (or items), a number may not have more than 1000 digits, and one
render may build at most WORK_FACTOR times `template-output` characters in all (so a loop of
allowed values cannot add up). A render may not run longer than `template-seconds` (checked by
a SIGALRM handler every quarter second, in the main thread on platforms that have setitimer)
nor recurse deeper than Python can. Over a limit, LimitExceeded, which the stages report as a
located template error.
"""

from __future__ import annotations

import atexit
import inspect
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import update_wrapper, wraps
from inspect import signature
from types import BuiltinFunctionType, BuiltinMethodType, CodeType, FunctionType, MethodType
from typing import Any

from jinja2 import Template, TemplateError, TemplateRuntimeError, TemplateSyntaxError, nodes
from jinja2.environment import TemplateExpression
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter
from markupsafe import EscapeFormatter, Markup

from pnp.core.limits import current, exceeded
from pnp.project.templatework import (
    FILTER_CHECKS,
    MAX_DIGITS,
    METHOD_CHECKS,
    UNSAFE_METHODS,
    field_size,
    percent_size,
    size_of,
)

LONG_NUMBER = re.compile(rf"\d(?:_?\d){{{MAX_DIGITS},}}")
WORK_FACTOR = 100  # one render may build at most this many times template-output characters in all


class LimitExceeded(TemplateError):
    """A template went over a limit (raised inside the sandbox, reported as a layout problem)."""


def too_big(size: int, what: str) -> None:
    """Raise LimitExceeded if a value of `size` characters (or items) is over template-output;
    else count it towards the render's work."""
    limits = current()
    if size > limits.template_output:
        raise LimitExceeded(exceeded("template_output", f"{what} would make a value of {size:,} characters or items"))
    if _started[0] is not None:
        _spent[0] += size
        if _spent[0] > WORK_FACTOR * limits.template_output:
            what = f"the template builds more than {WORK_FACTOR} times its output limit in all"
            raise LimitExceeded(exceeded("template_output", what))


def _check_size(value: Any, what: str) -> None:
    too_big(size_of(value, current().template_output + 1), what)


class BoundedFormatter(SandboxedFormatter):
    """`str.format` in the sandbox: every field's width, precision and value counted first."""

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        self.total = len(format_string)
        return super().vformat(format_string, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> Any:
        self.total += field_size(value, format_spec, current().template_output + 1)
        too_big(self.total, "this format")
        return super().format_field(value, format_spec)


class BoundedEscapeFormatter(BoundedFormatter, EscapeFormatter):
    """`Markup.format` in the sandbox (a value of the `escape` filter), counted the same way."""


def _bounded_format(env: Any, owner: str, name: str) -> Callable[..., str]:
    formatter = BoundedEscapeFormatter(env, escape=owner.escape) if isinstance(owner, Markup) else BoundedFormatter(env)

    def bounded(*args: Any, **kwargs: Any) -> str:
        if name == "format_map":
            if len(args) != 1 or kwargs:
                raise TypeError("format_map() takes exactly one argument")
            return type(owner)(formatter.vformat(owner, (), args[0]))
        return type(owner)(formatter.vformat(owner, args, kwargs))

    return bounded


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The layout sandbox, with bounded work (see the module's docstring)."""

    intercepted_binops = frozenset(["*", "**", "+", "%"])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finalize = _finalize
        lipsum: Any = self.globals["lipsum"]
        self.globals["lipsum"] = bounded_filter("lipsum", lipsum)

    def preprocess(self, source: str, name: str | None = None, filename: str | None = None) -> str:
        """A number written with more digits than MAX_DIGITS is a syntax error (Python would not
        even read one of 4300 digits)."""
        long = LONG_NUMBER.search(source)
        if long is not None:
            line = source.count("\n", 0, long.start()) + 1
            raise TemplateSyntaxError(f"a number of more than {MAX_DIGITS} digits", line, name, filename)
        return super().preprocess(source, name, filename)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "filters" and isinstance(value, dict):  # filters added later are bounded too
            value = _BoundedFilters(value)
        super().__setattr__(name, value)

    @staticmethod
    def concat(pieces: Any) -> str:
        """A macro's, a `{% set %}` block's or a `{% filter %}` block's output, counted first."""
        pieces = list(pieces)
        too_big(sum(map(len, pieces)), "this block's output")
        return "".join(pieces)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        cap = current().template_output + 1
        if operator == "**" and _ints(left, right) and abs(left) > 1 and right > 0:
            if right * (abs(left).bit_length() - 1) > MAX_DIGITS * 3.33:
                raise LimitExceeded(exceeded("template_output", f"{left} ** {right} has over {MAX_DIGITS} digits"))
        elif operator == "*" and _ints(left, right):
            if abs(left).bit_length() + abs(right).bit_length() > MAX_DIGITS * 3.33:
                raise LimitExceeded(exceeded("template_output", f"this product has over {MAX_DIGITS} digits"))
        elif operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, bytes, list, tuple)) and _ints(times) and times > 0:
                    too_big(size_of(sequence, cap) * times, "this repetition")
        elif operator == "+" and isinstance(left, (str, bytes, list, tuple)) and type(left) is type(right):
            too_big(size_of(left, cap) + size_of(right, cap), "this sum")
        elif operator == "%" and isinstance(left, str):
            too_big(percent_size(left, right, cap), "this % format")
        return super().call_binop(context, operator, left, right)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, (str, bytes, int)) and attr in UNSAFE_METHODS:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def wrap_str_format(self, value: Any) -> Callable[..., Any] | None:
        """Bound methods that can build a large value (`str.format`, `center`, `join`, `replace`...),
        wrapped when they are looked up (so also when called without `call`): counted first."""
        if not isinstance(value, (MethodType, BuiltinMethodType)):
            return None
        owner, name = value.__self__, value.__name__
        if isinstance(owner, str) and name in ("format", "format_map"):
            return _bounded_format(self, owner, name)
        check = METHOD_CHECKS.get(name) if isinstance(owner, (str, bytes, int)) else None
        if check is None:
            return None

        def bounded(*args: Any, **kwargs: Any) -> Any:
            arguments = list(args)
            too_big(check(owner, arguments, kwargs, current().template_output + 1), f"{name}()")
            return value(*arguments, **kwargs)

        return update_wrapper(bounded, value)

    def from_string(
        self,
        source: str | nodes.Template,
        globals: Any = None,
        template_class: type[Template] | None = None,  # noqa: A002
    ) -> Template:
        """Jinja's from_string, with the compiled code shared (see compiled_code)."""
        if not isinstance(source, str):
            return super().from_string(source, globals, template_class)
        template = (template_class or self.template_class).from_code(
            self, self.compiled_code(source, False), self.make_globals(globals), None
        )
        return template

    def compile_expression(self, source: str, undefined_to_none: bool = True) -> TemplateExpression:
        """Jinja's compile_expression, with the compiled code shared (see compiled_code)."""
        template = self.template_class.from_code(self, self.compiled_code(source, True), self.make_globals(None), None)
        return BoundedExpression(template, undefined_to_none)

    def compiled_code(self, source: str, expression: bool) -> CodeType:
        """The Python code of a template (or of an expression, as Jinja's compile_expression makes
        it), compiled once per process for every environment that would compile it alike.

        Compiling is most of what a template costs when it is drawn on a few cards, and a build
        makes several environments with the same templates (one per layout drawn, and more for
        planning sheets and counting faces): parsing, optimising and compiling each source once
        made a build of the bundled content about twice as fast. The code does not hold the
        environment (a template made from it looks its filters up when it runs), so it can be
        shared by every environment that compiles the source to the same code: same class and
        syntax settings, and the same filters and tests for every name the source holds (what
        the compiler checks, and what it may run at compile time on constant arguments).
        """
        key = self._code_key(source, expression) if len(source) <= COMPILED_SOURCE_MAX else None
        code = COMPILED.get(key) if key is not None else None
        if code is None:
            code = self.compile(self._expression_tree(source) if expression else source)
            if key is not None:
                if len(COMPILED) >= COMPILED_MAX:
                    COMPILED.clear()
                COMPILED[key] = code
        return code

    def _expression_tree(self, source: str) -> nodes.Template:
        """What Jinja's compile_expression compiles: `result = <expression>` (its own syntax errors)."""
        parser = Parser(self, source, state="variable")
        try:
            expr = parser.parse_expression()
            if not parser.stream.eos:
                raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
            expr.set_environment(self)
        except TemplateSyntaxError:
            self.handle_exception(source=source)
        return nodes.Template([nodes.Assign(nodes.Name("result", "store"), expr, lineno=1)], lineno=1)

    def _code_key(self, source: str, expression: bool) -> tuple[Any, ...] | None:
        """What the code compiled from `source` depends on; None when it cannot be shared."""
        used: list[tuple[str, str, Any]] = []
        for table, functions in (("filter", self.filters), ("test", self.tests)):
            for name, function in functions.items():
                if name in source:
                    token = compile_token(function)
                    if token is None:
                        return None
                    used.append((table, name, token))
        settings = (
            self.block_start_string,
            self.block_end_string,
            self.variable_start_string,
            self.variable_end_string,
            self.comment_start_string,
            self.comment_end_string,
            self.line_statement_prefix,
            self.line_comment_prefix,
            self.trim_blocks,
            self.lstrip_blocks,
            self.newline_sequence,
            self.keep_trailing_newline,
            tuple(self.extensions),
            getattr(self, "newstyle_gettext", None),
            self.optimized,
            self.autoescape,
            self.finalize,
            self.undefined,
            self.is_async,
        )
        return (type(self), expression, source, tuple(used), settings)


class _BoundedFilters(dict[str, Any]):
    """The filters of a BoundedSandbox: each one bounded when it is added."""

    def __init__(self, filters: dict[str, Any]) -> None:
        super().__init__({name: bounded_filter(name, function) for name, function in filters.items()})

    def __setitem__(self, name: str, function: Any) -> None:
        super().__setitem__(name, bounded_filter(name, function))


PASSED = (["context"], ["eval_ctx"], ["environment"], ["env"])


def bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (a filter, or a global such as lipsum) with its arguments checked first (see
    FILTER_CHECKS) and its result counted."""
    if getattr(function, "bounded", False):
        return function
    shared = (name, function) if lasting(function) else None  # the same for every environment
    if shared is not None and shared in BOUNDED:
        return BOUNDED[shared]
    check = FILTER_CHECKS.get(name)
    # Jinja passes a filter marked pass_context (...) its context first; an async variant's
    # signature does not show it (read only for a checked filter: reading a signature is slow)
    hidden = False
    if check is not None and getattr(function, "jinja_pass_arg", None) is not None:
        hidden = list(signature(function).parameters)[:1] not in PASSED

    @wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if check is not None:
            lead, rest = (args[:1], args[1:]) if hidden else ((), args)
            bound = signature(function).bind(*rest, **kwargs)
            bound.apply_defaults()
            too_big(check(bound.arguments, current().template_output + 1), f"the {name} filter")
            args, kwargs = (*lead, *bound.args), bound.kwargs  # an iterable the check read is given as a list
        result = function(*args, **kwargs)
        if isinstance(result, (str, bytes, list, tuple)):
            too_big(len(result), f"the {name} filter")
        return result

    bounded.bounded = True  # type: ignore[attr-defined]
    if shared is not None:
        BOUNDED[shared] = bounded
    return bounded


BOUNDED: dict[tuple[str, Any], Callable[..., Any]] = {}  # bounded_filter of the filters every environment has


COMPILED: dict[tuple[Any, ...], CodeType] = {}  # BoundedSandbox.compiled_code
COMPILED_MAX = 4096  # sources kept (a few MB of code); then the cache starts again
COMPILED_SOURCE_MAX = 64 * 1024  # characters: a longer source is compiled each time, not kept


def compile_token(function: Any) -> Any:
    """What compiling a template may use of a filter or test: how Jinja passes it its arguments,
    and, unless it takes the context, the function itself (Jinja runs it at compile time on
    constant arguments). A function made per environment (a closure over its records) gives None:
    code compiled with it is not shared."""
    passed = getattr(function, "jinja_pass_arg", None)  # Jinja's enum: context, eval_context, environment
    if passed is not None and passed.name == "context":
        return passed  # never run at compile time
    inner = inspect.unwrap(function)
    return inner if lasting(inner) else None


def lasting(function: Any) -> bool:
    """A function that outlives every environment (a module's own, or a builtin), not one made
    for one environment (a closure over its records)."""
    if isinstance(function, BuiltinFunctionType):
        return True
    return isinstance(function, FunctionType) and "<locals>" not in function.__qualname__


def _finalize(value: Any) -> Any:
    """Each `{{ ... }}` output: measured before it is turned into text."""
    _check_size(value, "this output")
    return value


def _join(pieces: Any) -> str:
    """`a ~ b`: measured before it is turned into text."""
    pieces = list(pieces)
    too_big(sum(size_of(piece, current().template_output + 1) for piece in pieces), "this ~ join")
    return "".join(map(str, pieces))


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


@contextmanager
def rendering() -> Iterator[None]:
    """A render in progress: its start (for the time limit) and its work, unless nested in
    another render (whose start and work count)."""
    outer = _started[0]
    if outer is None:
        _spent[0] = 0
        _started[0] = time.monotonic()  # first: a tick that finds no render disarms the watch
        _watch()
    try:
        yield
    except RecursionError:
        raise LimitExceeded(
            "the template calls itself too deeply (a macro or a recursive loop without an end)"
        ) from None
    except MemoryError:
        raise LimitExceeded(exceeded("template_output", "the template ran out of memory")) from None
    except (AssertionError, RuntimeError) as err:  # a filter's own check (`truncate` shorter than its end)
        raise TemplateRuntimeError(f"{type(err).__name__}: {err}") from None
    finally:
        _started[0] = outer


def bounded_render(chunks: Iterator[str]) -> str:
    """Join a template's output chunks, within the output, work and time limits."""
    limits = current()
    with rendering():
        size = 0
        out: list[str] = []
        for chunk in chunks:
            size += len(chunk)
            if size > limits.template_output:
                raise LimitExceeded(exceeded("template_output", "the template's output is too long"))
            out.append(chunk)
        return "".join(out)


class BoundedTemplate(Template):
    """A template whose render goes through `bounded_render`, and whose `~` is measured."""

    @classmethod
    def from_code(cls, environment: Any, code: Any, globals: Any, uptodate: Any = None) -> Template:  # noqa: A002
        namespace = {"environment": environment, "__file__": code.co_filename}
        exec(code, namespace)  # noqa: S102 - what Jinja's own from_code does, on code Jinja compiled
        namespace["str_join"] = namespace["markup_join"] = _join
        template = cls._from_namespace(environment, namespace, globals)
        template._uptodate = uptodate  # noqa: SLF001 - Jinja's own field
        return template

    def render(self, *args: Any, **kwargs: Any) -> str:
        context = self.new_context(dict(*args, **kwargs))
        try:
            return bounded_render(self.root_render_func(context))
        except Exception:
            self.environment.handle_exception()  # raises, with the template's own traceback
            raise


class BoundedExpression(TemplateExpression):
    """A compiled expression (`compile_expression`) run within the render limits."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with rendering():
            return super().__call__(*args, **kwargs)


BoundedSandbox.template_class = BoundedTemplate

_started: list[float | None] = [None]  # when the render in progress began
_spent = [0]  # characters and items the render in progress has built
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
