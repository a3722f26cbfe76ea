"""Layout templates that need no Jinja to read: text without template syntax, and `{{ field }}`.

Most layouts of a small deck are only these (a title, stats, a rules text). What Jinja would say
of them is known without it: they compile, and they read no field or that one field. So checking
and drawing such a layout never imports Jinja (about a fifth of a 100-card build's start-up);
any other template, or one these rules are not sure of, goes to Jinja as before.
tests/test_plain_templates.py compares every answer here with Jinja's.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping
from typing import Any

from pnp.core.limits import current

PLAIN_FIELD = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
# A run of digits Jinja might refuse as a number too long to read (pnp.project.sandbox's
# LONG_NUMBER, over 1000 digits) contains a run of digits and underscores at least this long.
_DIGIT_RUN = re.compile(r"[\d_]{64}")
# Words Jinja's parser reads as something other than a name (`not`, `true`), and Python's.
_NOT_NAMES = frozenset(keyword.kwlist) | {"true", "false", "none"}
# Every global a layout template sees (pnp.project.layout.template_env: Jinja's and gettext's),
# and a margin: a field of one of these names is read by Jinja.
TEMPLATE_GLOBALS = frozenset(
    {"_", "cycler", "dict", "gettext", "joiner", "lipsum", "namespace", "ngettext", "npgettext", "pgettext", "range"}
)


def plain_names(source: str, expression: bool = False) -> frozenset[str] | None:
    """The names a template reads when Jinja is not needed to tell: none for text without
    template syntax, the one name of `{{ name }}`; None for any other template (ask Jinja)."""
    if expression or _DIGIT_RUN.search(source) is not None:
        return None
    if "{" not in source:
        return frozenset()
    match = PLAIN_FIELD.fullmatch(source.strip())
    if match is None or match.group(1) in _NOT_NAMES or match.group(1) in TEMPLATE_GLOBALS:
        return None
    return frozenset({match.group(1)})


def not_names() -> frozenset[str]:
    """Words Jinja's parser does not read as a name (`not`, `true`), and Python's keywords."""
    return _NOT_NAMES


class PlainField:
    """A template that is exactly `{{ name }}` (plain_field), rendered as Jinja renders it: a string
    value within the template-output limit is the output itself; any other value (missing, a
    number, too long) goes to the template Jinja compiles (`compile(source)`, on first need)."""

    def __init__(self, source: str, name: str, compile: Callable[[str], Any]) -> None:  # noqa: A002 - what it does
        self.source = source
        self.name = name
        self._compile = compile
        self._template: Any = None

    def render(self, context: Mapping[str, Any]) -> str:
        value = context.get(self.name)
        if type(value) is str and len(value) <= current().template_output:
            return value
        if self._template is None:
            self._template = self._compile(self.source)
        return str(self._template.render(context))


def plain_field(source: str, compile: Callable[[str], Any]) -> PlainField | None:
    """A PlainField for `source` when it is exactly `{{ name }}` of a plain name; else None."""
    names = plain_names(source)
    if not names or PLAIN_FIELD.fullmatch(source) is None:
        return None
    (name,) = names
    return PlainField(source, name, compile)
