"""A layout element as prepared for drawing, and what every drawing module shares about it.

pnp.drawing.render prepares elements; the text setting, image and element-handler modules draw
them. They all need the same few things, kept here at the bottom so that none imports another
sideways: the element itself, the failure a user's value raises, inline icons, colours, running a
user's template, and where in the record an element's text comes from (for messages).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import Color, HexColor

from pnp.project.layout import template_env
from pnp.project.plaintemplates import plain_names

if TYPE_CHECKING:  # Jinja loads with the first template that needs it (pnp.project.plaintemplates)
    from jinja2 import Template

Context = dict[str, Any]


class DrawFailure(Exception):
    """A user's layout value that cannot be drawn (a template that fails, a bad colour or font).

    Raised only around user-supplied values; `key` is the element key at fault. Anything else
    raised while drawing is a bug in pnp, and is not blamed on the layout.
    """

    def __init__(self, code: str, key: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.key = key
        self.message = message


@dataclass(frozen=True, slots=True)
class Icon:
    """An inline icon of icons.json as text draws it: its label, its colour, its image if any."""

    label: str
    color: Color
    image: str | None = None


@dataclass(slots=True)
class Element:
    """One layout element, prepared: lengths in points from the trim's top-left, templates compiled."""

    kind: str
    name: str
    pointer: str  # in the layout's merged data: /front/elements/3
    spec: dict[str, Any]
    x: float
    y: float
    w: float
    h: float
    templates: dict[str, Template] = field(default_factory=dict)
    when: Any = None
    plain: dict[str, str] = field(default_factory=dict)  # key -> field, for templates that are just {{ field }}
    parts: tuple[Element, Element] | None = None  # a stat's label and value, prepared once


@lru_cache(maxsize=1024)
def hex_color(value: str) -> Color:
    return HexColor(value)


# What a layout template can raise on odd data: reported as template-error. Only template calls
# (`run_template`, `when`, `copies`) are wrapped: a bug in pnp's own drawing is not the template's fault.
VALUE_FAILURES: tuple[type[Exception], ...] = (TypeError, ValueError, ArithmeticError, LookupError, AttributeError)


def template_failures() -> tuple[type[Exception], ...]:
    """What a template may raise: Jinja's TemplateError and VALUE_FAILURES. Where Jinja was never
    loaded no template ran (plain field text), so no TemplateError can be raised: it is not loaded."""
    jinja = sys.modules.get("jinja2.exceptions")
    return VALUE_FAILURES if jinja is None else (jinja.TemplateError, *VALUE_FAILURES)


PLAIN_FIELD = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")


def run_template(template: Any, context: Context, key: str, expression: bool = False) -> Any:
    """Run a user's template: its failures become a DrawFailure naming the key."""
    try:
        return template(**context) if expression else template.render(context).strip()
    except template_failures() as err:
        raise DrawFailure("template-error", key, f"template failed: {type(err).__name__}: {err}") from None


def make_icons(specs: dict[str, Any]) -> dict[str, Icon]:
    """icons.json entries as drawn inline (cards and sheets alike)."""
    return {
        name: Icon(str(spec.get("label", name)), _safe_color(spec.get("color")), spec.get("image"))
        for name, spec in specs.items()
        if isinstance(spec, dict)
    }


def _safe_color(value: Any) -> Color:
    """An icon's colour; a wrong one is reported by pnp check (icons.json schema), drawn grey."""
    try:
        return hex_color(str(value)) if isinstance(value, str) else hex_color("#444444")
    except ValueError:
        return hex_color("#444444")


def record_pointer(element: Element, key: str = "text") -> str:
    """Where in the record an element's text comes from: the one field it shows, or the record itself."""
    plain = element.plain.get(key) or element.plain.get("value")
    if plain:
        return f"/{plain}"
    names = _fields_shown(element, key)
    return f"/{names[0]}" if len(names) == 1 else ""


def _fields_shown(element: Element, key: str) -> list[str]:
    return list(_fields_of_template(str(element.spec.get(key) or element.spec.get("value") or "")))


@lru_cache(maxsize=1024)
def _fields_of_template(source: str) -> tuple[str, ...]:
    """Record fields a template reads, sorted (for messages and locations only)."""
    from pnp.project.layout import CONTEXT_NAMES, fields_read

    plain = plain_names(source)
    if plain is not None:
        return tuple(sorted(plain - CONTEXT_NAMES))
    try:
        return tuple(sorted(fields_read(template_env(), source, False)))
    except Exception:  # noqa: BLE001 - only a message
        return ()


def field_of(element: Element, key: str = "text") -> str:
    """Which record field an element's text shows, for messages ('static text' when none)."""
    names = _fields_shown(element, key)
    return f"field {names[0]!r}" if names else "static text"
