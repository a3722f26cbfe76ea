"""Templates are compiled once per process (pnp.project.sandbox.BoundedSandbox.compiled_code) and a
sheet's macros once per sheet (pnp.sheets.templates.Templates): what they render must be what
compiling each template afresh, with the macros in front, renders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jinja2 import TemplateError

from pnp.project.layout import template_env
from pnp.project.refkinds import ref_filter
from pnp.project.sheetfiles import SheetFile, SheetSet
from pnp.sheets.templates import Templates

RECORDS = {"w1": {"id": "w1", "name": "Wolf"}, "w2": {"id": "w2", "name": "Wyvern"}}


def lookup(record_id: Any, kind: str | None = None) -> dict[str, Any] | None:
    return RECORDS.get(record_id) if isinstance(record_id, str) else None


def test_a_constant_ref_is_looked_up_by_each_environment_s_own_records() -> None:
    """Jinja runs a filter on a constant argument while compiling; shared code must not carry
    one environment's lookup into another's (ref is never run at compile time)."""
    source = "{{ 'w1' | ref }} / {{ ['w1', 'w2'] | ref | join(', ') }}"
    plain = template_env()  # `ref` prints the id itself
    looking = template_env()
    looking.filters["ref"] = ref_filter(lookup)
    assert plain.from_string(source).render() == "w1 / w1, w2"
    assert looking.from_string(source).render() == "Wolf / Wolf, Wyvern"
    assert plain.from_string(source).render() == "w1 / w1, w2"
    assert looking.compile_expression("'w2' | ref")() == "Wyvern"
    assert plain.compile_expression("'w2' | ref")() is not None
    assert plain.compile_expression("'w2' | ref")() == "w2"


def test_a_filter_one_environment_lacks_still_fails_to_compile_there() -> None:
    """The compiler checks every filter a template names: code compiled where it exists is not
    used where it does not."""
    source = "{{ name | shout }}"
    loud = template_env()
    loud.filters["shout"] = lambda value: str(value).upper() + "!"
    assert loud.from_string(source).render(name="orc") == "ORC!"
    with pytest.raises(TemplateError, match="shout"):
        template_env().from_string(source)
    with pytest.raises(TemplateError, match="shout"):
        template_env().compile_expression("name | shout")


def test_syntax_errors_are_jinja_s_own() -> None:
    with pytest.raises(TemplateError, match="chunk after expression"):
        template_env().compile_expression("a b")
    with pytest.raises(TemplateError, match="unexpected"):
        template_env().from_string("{{ a + }}")


MACROS = (
    "{% macro hello(who) %}Hello {{ who | ref }}{{ suffix }}{% endmacro %}\n"
    "{% macro twice(x) %}{{ hello(x) }} {{ hello(x) }}{% endmacro %}\n"
)

# (template, scope, what it renders): the macros' free names (`suffix`) are looked up where they
# run, so a template's own top-level `set` and macro of the same name win as in one template
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("{{ hello(id) }}", {"id": "w1"}, "Hello Wolf"),
    ("{{ hello(id) }}", {"id": "w1", "suffix": "!"}, "Hello Wolf!"),
    ("{% set suffix = '?' %}{{ twice(id) }}", {"id": "w2"}, "Hello Wyvern? Hello Wyvern?"),
    ("{{ hello(id) }}{% set suffix = '?' %} {{ hello(id) }}", {"id": "w2"}, "Hello Wyvern Hello Wyvern?"),
    ("{% macro hello(who) %}Hi {{ who }}{% endmacro %}{{ twice(id) }}", {"id": "w1"}, "Hi w1 Hi w1"),
    ("{%- for i in ids %}{{ hello(i) }};{% endfor %}", {"ids": ["w1", "w2"]}, "Hello Wolf;Hello Wyvern;"),
    ("  plain text, no macro  ", {}, "plain text, no macro"),
    ("{{ hello(missing) }}", {}, "Hello"),
]


def templates() -> Templates:
    empty = Path(__file__).parent / "no-such-sheets-folder"
    return Templates(SheetSet(empty, str, None), lookup, lambda _kind, _field: {})


def sheet(macros: str) -> SheetFile:
    return SheetFile("test", None, {"macros": macros})  # type: ignore[arg-type] - never located here


@pytest.mark.parametrize(("source", "scope", "expected"), CASES)
def test_a_sheet_s_macros_compiled_once_render_as_one_template(
    source: str, scope: dict[str, Any], expected: str
) -> None:
    on_their_own = templates()
    assert on_their_own.text(sheet(MACROS), "/blocks/0/text", source, scope) == expected
    assert on_their_own.problems == []
    assert on_their_own._macro_templates[MACROS][0] is not None  # noqa: SLF001 - compiled on their own
    env = templates().env  # the reference: Jinja compiling the macros and the template as one
    assert str(env.from_string(MACROS + source).render(**scope)).strip() == expected


def test_macros_that_are_more_than_definitions_are_compiled_with_each_template() -> None:
    macros = "{% set suffix = '.' %}" + MACROS
    found = templates()
    assert found.text(sheet(macros), "/blocks/0/text", "{{ hello('w1') }}", {}) == "Hello Wolf."
    assert found._macro_templates[macros][0] is None  # noqa: SLF001


def test_a_template_failing_with_macros_reports_as_before() -> None:
    found = templates()
    assert found.text(sheet(MACROS), "/blocks/3/text", "{{ hello( }}", {}) == ""
    assert found.text(sheet(MACROS), "/blocks/4/text", "{{ hello(1 / 0) }}", {}) == ""
    assert [(f.code, f.pointer, f.message) for _, f in found.problems] == [
        ("sheet-error", "/blocks/3/text", "template failed: unexpected '}', expected ')'"),
        ("sheet-error", "/blocks/4/text", "template failed: division by zero"),
    ]


PLAIN_SCOPES: list[dict[str, Any]] = [
    {"card": {"name": "Fire Imp", "cost": 2, "items": "x", "none": None, "text": "  *Counters* {coin} <b>&amp;  "}},
    {"card": {"name": ""}},
    {"card": {}},
    {"card": "not a record"},
    {"card": ["a", "list"]},
    {},
]
PLAIN_SOURCES = [
    "{{ card.name }}",
    "  {{card.text}}  ",
    "{{ card.cost }}",
    "{{ card.none }}",
    "{{ card.items }}",
    "{{ card.keys }}",
    "{{ card.missing }}",
    "{{ card.__class__ }}",
    "{{ card.name }} and more",
    "{{ card.name | upper }}",
    "{{ not.name }}",
]


@pytest.mark.parametrize("source", PLAIN_SOURCES)
@pytest.mark.parametrize("scope", PLAIN_SCOPES, ids=range(len(PLAIN_SCOPES)))
def test_a_sheet_s_plain_field_path_renders_as_jinja_renders_it(source: str, scope: dict[str, Any]) -> None:
    """`{{ card.name }}` read without Jinja (pnp.sheets.templates.plain_text) says what Jinja says,
    and where it cannot tell (a number, a dict method, a missing field, another template) it says
    nothing and Jinja renders."""
    from pnp.sheets.templates import plain_text

    fast = plain_text(source, scope)
    reference = templates()
    try:
        expected: str | None = str(reference.env.from_string(source).render(**scope))
    except Exception:  # noqa: BLE001 - a template Jinja refuses: the fast path must not answer
        expected = None
    if fast is not None:
        assert fast.strip() == (expected or "").strip()
    answered = fast is not None
    assert answered == (
        source.strip() in ("{{ card.name }}", "{{card.text}}")
        and isinstance(scope.get("card"), dict)
        and isinstance(scope["card"].get(source.strip().strip("{} ").split(".")[1]), str)
    )
    sheet_text = templates().text(sheet(""), "/blocks/0/text", source, scope)
    assert sheet_text == (expected or "").strip() or expected is None
