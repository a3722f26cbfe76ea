"""The JSON Schemas pnp publishes for editors (pnp/*.schema.json, `pnp schema-path`): valid
2020-12, accepting what pnp accepts and rejecting the mistakes they exist to catch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from pnp.core.published import published_schemas
from pnp.outputs.scaffold import scaffold

ROOT = Path(__file__).resolve().parents[1]
TOOLKIT_PROJECTS = [ROOT / "tests" / "fixture", ROOT / "tests" / "build_project"]


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(published_schemas()[name].read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(schema["$id"], Resource.from_contents(schema))
    return jsonschema.Draft202012Validator(schema, registry=registry)


@pytest.fixture(scope="module")
def new_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("published") / "game"
    scaffold(folder, "Published Game")
    return folder


@pytest.mark.parametrize("name", sorted(published_schemas()))
def test_every_published_schema_is_valid_2020_12(name: str) -> None:
    schema = json.loads(published_schemas()[name].read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_published_names_include_layout_icons_and_keywords() -> None:
    assert {"layout", "icons", "keywords"} <= set(published_schemas())


def test_icons_schema_accepts_the_projects_icons(new_project: Path) -> None:
    check = validator("icons")
    for project in [*TOOLKIT_PROJECTS, new_project]:
        icons = json.loads((project / "layouts" / "icons.json").read_text(encoding="utf-8"))
        assert not list(check.iter_errors(icons)), project


def test_icons_schema_rejects_mistakes() -> None:
    check = validator("icons")
    messages = [e.message for e in check.iter_errors({"icons": {"Coin": {"colour": "gold", "color": "gold"}}})]
    assert len(messages) == 3, messages  # a name with a capital, an unknown key, a colour that is no #rrggbb


def test_keywords_schema_accepts_every_kind_schema(new_project: Path) -> None:
    check = validator("keywords")
    for project in [*TOOLKIT_PROJECTS, new_project]:
        for path in sorted((project / "schemas").glob("*.schema.json")):
            assert not list(check.iter_errors(json.loads(path.read_text(encoding="utf-8")))), path


def test_keywords_schema_checks_x_keywords_at_every_level() -> None:
    check = validator("keywords")
    bad = {
        "type": "object",
        "properties": {
            "spell": {"type": "string", "x-ref": "Spell"},
            "art": {"type": "string", "x-asset": "sound"},
            "rounds": {"type": "array", "items": {"type": "integer", "x-max": "length"}},
        },
    }
    errors = sorted("/".join(map(str, e.absolute_path)) for e in check.iter_errors(bad))
    assert errors == ["properties/art/x-asset", "properties/rounds/items/x-max", "properties/spell/x-ref"]
    assert not list(check.iter_errors({"properties": {"spell": {"type": "string", "x-ref": ["game.spell"]}}}))
