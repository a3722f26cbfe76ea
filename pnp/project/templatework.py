"""How large a value a template operation would build, computed before it runs (for the sandbox,
pnp.project.sandbox): the size of a value as text, of a `%` or `str.format` result, and of the
result of each filter and string method that takes a width, a count or items to join.

Every estimate is an upper bound (a little generous) and costs at most `budget` steps: a list
of a million references to one long string is measured only until it is over the budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, ItemsView, KeysView, Mapping, ValuesView
from typing import Any

from jinja2.runtime import Undefined
from jinja2.utils import Namespace

MAX_DIGITS = 1000  # digits of a number a template may build (`**`, `*`)
NUMBER_TEXT = 320  # characters of any float written out (1e308 with its digits)
UNSAFE_METHODS = frozenset({"translate", "maketrans", "to_bytes"})  # unbounded results, no use on a card


def size_of(value: Any, budget: int) -> int:
    """The characters `str(value)` has (an upper bound), counted until over `budget`."""
    if isinstance(value, (str, bytes)):
        return len(value)
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 4  # quotes and a separator
        elif isinstance(item, bool) or item is None:
            total += 6
        elif isinstance(item, int):
            total += item.bit_length() * 31 // 100 + 4
        elif isinstance(item, float):
            total += 26
        elif isinstance(item, Undefined):
            total += 2
        elif isinstance(item, Mapping):
            total += 4
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset, KeysView, ValuesView, ItemsView)):
            total += 4
            stack.extend(item)
        elif isinstance(item, Namespace):
            total += 16
            stack.append(object.__getattribute__(item, "_Namespace__attrs"))
        else:  # a range, a macro, a loop, a generator: their text is their type's name
            total += 64
    return total


def _number(text: str | None, budget: int) -> int:
    """A width or precision written in a format (a run of digits), capped at over `budget`."""
    if not text or text == "*":
        return 0
    return int(text) if len(text) < 10 else budget + 1


PERCENT = re.compile(r"%(?:\(([^)]*)\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.?)")


def percent_size(form: str, right: Any, budget: int) -> int:
    """The length `form % right` would have (an upper bound)."""
    args = list(right) if isinstance(right, tuple) else [right]
    mapping = right if isinstance(right, Mapping) else None
    total = len(form)
    taken = 0

    def take() -> Any:
        nonlocal taken
        taken += 1
        return args[taken - 1] if taken <= len(args) else None

    for match in PERCENT.finditer(form):
        key, width, precision, kind = match.groups()
        if kind == "%":
            continue
        sizes = [_number(width, budget), _number(precision, budget)]
        for i, written in enumerate((width, precision)):
            if written == "*":
                star = take()
                sizes[i] = abs(star) if isinstance(star, int) else 0
        value = mapping.get(key) if key is not None and mapping is not None else take()
        numeric = kind in "diouxXeEfFgG"
        total += max(sizes[0], size_of(value, budget) + sizes[1] + (NUMBER_TEXT if numeric else 0))
        if total > budget:
            break
    return total


def field_size(value: Any, spec: str, budget: int) -> int:
    """The length of one `str.format` field (an upper bound): its value, and any width or
    precision of its format spec (`{:>99999999}`, `{:.5000f}`)."""
    widest = max((_number(digits, budget) for digits in re.findall(r"\d+", spec)), default=0)
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    return size_of(value, budget) + widest + (NUMBER_TEXT if numeric else 0)


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) else default


# --- methods of str, bytes and int: (owner, arguments (may be replaced), keywords, budget) -> size


def _padded(owner: Any, args: list[Any], kwargs: dict[str, Any], budget: int) -> int:
    return max(len(owner), _int(args[0] if args else kwargs.get("width")))


def _tabs(owner: Any, args: list[Any], kwargs: dict[str, Any], budget: int) -> int:
    tabs: int = owner.count("\t" if isinstance(owner, str) else b"\t")
    return len(owner) + tabs * max(0, _int(args[0] if args else kwargs.get("tabsize"), 8))


def _method_join(owner: Any, args: list[Any], kwargs: dict[str, Any], budget: int) -> int:
    if not args:
        return 0
    args[0] = items = list(args[0])  # a generator is read once: the call gets the list
    return joined_size(items, len(owner), budget)


def joined_size(items: list[Any], separator: int, budget: int) -> int:
    total = max(0, len(items) - 1) * separator
    for item in items:
        total += size_of(item, budget)
        if total > budget:
            break
    return total


def replaced_size(text: Any, old: Any, new: Any, count: Any) -> int:
    if not isinstance(text, (str, bytes)) or not isinstance(old, type(text)) or not isinstance(new, type(text)):
        return len(text) if isinstance(text, (str, bytes)) else 0
    found = text.count(old) if old else len(text) + 1  # type: ignore[arg-type]  # old is of text's type
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(text) + found * max(0, len(new) - len(old))


def _method_replace(owner: Any, args: list[Any], kwargs: dict[str, Any], budget: int) -> int:
    old, new, count = (*args, None, None, None)[:3]
    return replaced_size(owner, old, new, kwargs.get("count", count))


METHOD_CHECKS: dict[str, Callable[[Any, list[Any], dict[str, Any], int], int]] = {
    "center": _padded,
    "ljust": _padded,
    "rjust": _padded,
    "zfill": _padded,
    "expandtabs": _tabs,
    "join": _method_join,
    "replace": _method_replace,
}


# --- filters (and the lipsum global): (arguments by name, defaults applied, budget) -> size


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _filter_indent(a: dict[str, Any], budget: int) -> int:
    text, width = _text(a["s"]), a["width"]
    each = len(width) if isinstance(width, str) else _int(width)
    return len(text) + (text.count("\n") + 1) * max(0, each)


def _filter_wordwrap(a: dict[str, Any], budget: int) -> int:
    text, width = _text(a["s"]), max(1, _int(a["width"], 1))
    wrap = a["wrapstring"] if isinstance(a["wrapstring"], str) else "\n"
    lines = len(text) // width + text.count("\n") + 1
    return len(text) + lines * len(wrap)


def _filter_join(a: dict[str, Any], budget: int) -> int:
    a["value"] = items = list(a["value"])
    if a["attribute"] is not None:  # a field of each item is joined, not the item
        items = [_field(item, a["attribute"]) for item in items]
    return joined_size(items, len(_text(a["d"])), budget)


def _field(item: Any, path: Any) -> Any:
    for part in str(path).split("."):
        if isinstance(item, Mapping):
            item = item.get(part)
        elif isinstance(item, (list, tuple)) and part.isdigit() and int(part) < len(item):
            item = item[int(part)]
        else:
            return item  # an attribute: at most the whole item
    return item


def _filter_sum(a: dict[str, Any], budget: int) -> int:
    a["iterable"] = items = list(a["iterable"])
    if isinstance(a["start"], (int, float)):
        return 0
    # a sum of lists copies the sum so far at each step: n items cost n * n / 2 copies
    return size_of(a["start"], budget) + joined_size(items, 0, budget) + len(items) * len(items) // budget


def _filter_format(a: dict[str, Any], budget: int) -> int:
    args, kwargs = a.get("args", ()), a.get("kwargs", {})
    return percent_size(_text(a["value"]), kwargs or tuple(args), budget)


def _filter_lipsum(a: dict[str, Any], budget: int) -> int:
    return max(0, _int(a["n"])) * max(0, _int(a["max"])) * 12  # words of at most 11 letters and a space


FILTER_CHECKS: dict[str, Callable[[dict[str, Any], int], int]] = {
    "center": lambda a, budget: max(len(_text(a["value"])), _int(a["width"])),
    "indent": _filter_indent,
    "wordwrap": _filter_wordwrap,
    "truncate": lambda a, budget: len(_text(a["s"])) + len(_text(a["end"])),
    "format": _filter_format,
    "join": _filter_join,
    "replace": lambda a, budget: replaced_size(_text(a["s"]), a["old"], a["new"], a["count"]),
    "batch": lambda a, budget: _int(a["linecount"]),
    "slice": lambda a, budget: _int(a["slices"]),
    "sum": _filter_sum,
    "string": lambda a, budget: size_of(a["s"], budget),
    "pprint": lambda a, budget: size_of(a["value"], budget) * 2,
    "tojson": lambda a, budget: size_of(a["value"], budget) * 2,
    "list": lambda a, budget: size_of(a["value"], budget) if isinstance(a["value"], str) else 0,
    "roman": lambda a, budget: _int(a["value"]) // 10,
    "lipsum": _filter_lipsum,
}
