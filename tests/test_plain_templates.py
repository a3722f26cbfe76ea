"""Templates that need no Jinja (pnp/project/plaintemplates.py): what they are said to read and
that they compile must be what Jinja says; a layout of only those is checked and drawn without
loading Jinja, and still reports a field it does not have."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import cards_only
from pypdf import PdfReader
from runpnp import imported

from pnp.project.layout import CONTEXT_NAMES, fields_read, template_env
from pnp.project.plaintemplates import TEMPLATE_GLOBALS, plain_field, plain_names

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"

SOURCES = [
    "ATK",
    "",
    "  ",
    "Gain 1 gold.\nThen draw.",
    "{{ title }}",
    "  {{title}}\n",
    "{{ record }}",
    "{{ copy }}",
    "{{ _private }}",
    "{{ range }}",
    "{{ lipsum }}",
    "{{ gettext }}",
    "{{ not }}",
    "{{ in }}",
    "{{ true }}",
    "{{ none }}",
    "{{ Title }}",
    "{{ title }} and {{ text }}",
    "{{ title | upper }}",
    "{{ record.title }}",
    "{% if a %}x{% endif %}",
    "{# a comment #}",
    "{ not a template }",
    "a }} b %} c #}",
    "{{ self }}",
    "{{ loop }}",
    "{{ a" + "0" * 70 + " }}",
    "1" * 1001,
    "{{ " + "9" * 1001 + " }}",
    "{{ title }",
]


def jinja_reads(source: str) -> set[str] | None:
    """What Jinja says a template reads (pnp.project.layout.fields_read), None when it does not compile."""
    env = template_env()
    try:
        env.from_string(source)
        return fields_read(env, source, False)
    except Exception:  # noqa: BLE001 - any refusal: the template is not plain
        return None


@pytest.mark.parametrize("source", SOURCES)
def test_plain_names_say_what_jinja_says(source: str) -> None:
    plain = plain_names(source)
    if plain is not None:  # sure of it: Jinja compiles it and reads the same names
        assert jinja_reads(source) == set(plain - CONTEXT_NAMES)


def test_the_common_templates_are_plain() -> None:
    assert plain_names("{{ title }}") == {"title"}
    assert plain_names("  {{title}}\n") == {"title"}
    assert plain_names("ATK") == frozenset()
    assert plain_names("{{ title | upper }}") is None
    assert plain_names("{{ not }}") is None  # Jinja refuses it: Jinja must say so
    assert plain_names("image is defined", expression=True) is None


def test_every_global_of_the_sandbox_is_known() -> None:
    """A field named like a global is read by Jinja: TEMPLATE_GLOBALS must hold every one."""
    assert set(template_env().globals) <= TEMPLATE_GLOBALS


@pytest.mark.parametrize(
    "record", [{"art": "art/sun.png"}, {"art": " padded "}, {"art": 3}, {"art": None}, {}, {"art": ["a"]}]
)
def test_a_plain_field_renders_what_jinja_renders(record: dict[str, object]) -> None:
    compiled: list[str] = []

    def compile(source: str) -> object:
        compiled.append(source)
        return template_env().from_string(source)

    plain = plain_field("{{ art }}", compile)
    assert plain is not None
    context = {**record, "record": record}
    assert plain.render(context) == template_env().from_string("{{ art }}").render(context)
    assert bool(compiled) == (type(record.get("art")) is not str)  # Jinja only for a value not a string


def test_a_plain_field_over_the_output_limit_fails_as_jinja_does() -> None:
    from pnp.core.limits import current

    value = "x" * (current().template_output + 1)
    plain = plain_field("{{ art }}", lambda source: template_env().from_string(source))
    assert plain is not None
    with pytest.raises(Exception) as jinja_error:
        template_env().from_string("{{ art }}").render({"art": value})
    with pytest.raises(type(jinja_error.value)):
        plain.render({"art": value})
    assert plain_field(" {{ art }}", lambda source: None) is None  # around it: Jinja's whitespace rules
    assert plain_field("{{ range }}", lambda source: None) is None


def pnp(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pnp", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def plain_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build project's card kind alone, its layout without its one real template (a `when`)."""
    target = cards_only(tmp_path_factory.mktemp("plain") / "project")
    layout_path = target / "layouts" / "test-card.json"
    layout = json.loads(layout_path.read_text(encoding="utf-8"))
    for element in layout["front"]["elements"]:
        element.pop("when", None)
    layout_path.write_text(json.dumps(layout), encoding="utf-8")
    return target


def test_a_plain_layout_builds_without_jinja(plain_project: Path) -> None:
    done = pnp(plain_project, "build")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "pnp.drawing.render" in imported(done.stderr)  # it drew
    assert not [m for m in imported(done.stderr) if m.split(".")[0] == "jinja2"]
    text = PdfReader(plain_project / "output" / "test" / "test.card.pdf").pages[0].extract_text()
    assert "Card 00" in text and "COST" in text


def test_a_plain_layout_reading_a_missing_field_is_reported(plain_project: Path) -> None:
    layout_path = plain_project / "layouts" / "test-base.json"
    original = layout_path.read_text(encoding="utf-8")
    layout_path.write_text(original.replace('"{{ name }}"', '"{{ nmae }}"'), encoding="utf-8")
    try:
        done = pnp(plain_project, "check", "--no-render")
    finally:
        layout_path.write_text(original, encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    assert "error[unknown-layout-field]" in done.stdout
    assert "template reads 'nmae'" in done.stdout and "did you mean 'name'?" in done.stdout
    assert not [m for m in imported(done.stderr) if m.split(".")[0] == "jinja2"]
