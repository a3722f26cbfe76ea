"""`pnp new` makes the user's game, not ours; `pnp schema-path` finds the published schemas."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

from pnp.outputs.scaffold import requirement_from_direct_url
from tests.runpnp import Ran, run

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = re.compile(r"seed|homm|mk\.|rulebook", re.IGNORECASE)


def pnp(*args: str, cwd: Path) -> Ran:
    return run(cwd, *args)


@pytest.fixture(scope="module")
def ember(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("new")
    done = pnp("new", "Ember Wild", cwd=where)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("created 12 files in ember-wild;")
    return where / "ember-wild"


def written(project: Path) -> dict[str, str]:
    return {
        str(p.relative_to(project)): p.read_text(encoding="utf-8") for p in sorted(project.rglob("*")) if p.is_file()
    }


def test_new_names_the_project_prefix_and_kind_after_the_game(ember: Path) -> None:
    config = tomllib.loads((ember / "pnp.toml").read_text())
    assert config["project"]["name"] == "Ember Wild"
    assert config["games"] == {"emberwild": {"title": "Ember Wild", "folder": "ember-wild"}}
    assert set(written(ember)) == {
        ".github/workflows/pnp.yml",
        ".gitignore",
        "README.md",
        "cards/cards.json",
        "cards/components.json",
        "layouts/emberwild.card.json",
        "layouts/icons.json",
        "pnp.toml",
        "schemas/common.schema.json",
        "schemas/emberwild.card.schema.json",
        "schemas/emberwild.component-list.schema.json",
        "sheets/cards.yaml",
    }
    kinds = {record["kind"] for record in json.loads((ember / "cards" / "cards.json").read_text())}
    assert kinds == {"emberwild.card"}
    common = json.loads((ember / "schemas" / "common.schema.json").read_text())
    assert re.fullmatch(common["$defs"]["kind"]["pattern"], "emberwild.card")
    layout = json.loads((ember / "layouts" / "emberwild.card.json").read_text())
    assert layout["back"]["elements"] and "Ember Wild" in json.dumps(layout["back"])
    assert list(json.loads((ember / "layouts" / "icons.json").read_text())["icons"]) == ["coin"]


def test_new_writes_nothing_of_the_bundled_games(ember: Path) -> None:
    hits = {name: FORBIDDEN.findall(text) for name, text in written(ember).items() if FORBIDDEN.search(text)}
    assert not hits


def test_component_list_needs_no_source(ember: Path) -> None:
    common = json.loads((ember / "schemas" / "common.schema.json").read_text())
    assert common["$defs"]["component-list"]["required"] == ["kind", "id", "name", "components"]
    assert "source" not in json.dumps(common)


def test_new_project_has_a_gitignore_a_readme_and_a_ci_workflow(ember: Path) -> None:
    assert "output/" in (ember / ".gitignore").read_text().splitlines()
    assert (ember / "README.md").read_text().startswith("# Ember Wild\n")
    workflow = (ember / ".github" / "workflows" / "pnp.yml").read_text()
    assert "run: pnp check --format github" in workflow


def test_new_project_checks_clean_and_counts_match(ember: Path) -> None:
    done = pnp("check", "--strict", "--format", "json", cwd=ember)
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert (report["records"], report["problems"]) == (3, [])


def test_new_project_builds_its_example_aid(ember: Path) -> None:
    done = pnp("build", cwd=ember)
    assert done.returncode == 0 and "warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    import pdfplumber

    with pdfplumber.open(ember / "output" / "ember-wild" / "aids" / "cards.pdf") as pdf:
        text = " ".join(" ".join((page.extract_text() or "").split()) for page in pdf.pages)
    assert text.startswith("Ember Wild: every card")
    # every card of the example kind, cheapest first, with its label from the schema's enum
    assert text.index("Water Sprite 1 Water 1") < text.index("Fire Imp 2 Fire 2 3 1 When this card attacks")


def test_component_count_is_checked(tmp_path: Path) -> None:
    assert pnp("new", "Count", cwd=tmp_path).returncode == 0
    components = tmp_path / "count" / "cards" / "components.json"
    components.write_text(components.read_text().replace('"count": 3', '"count": 4'))
    done = pnp("check", cwd=tmp_path / "count")
    assert done.returncode == 1
    assert "the component list counts 4, but there are 3 count.card" in done.stdout


def test_a_name_with_quotes_and_accents_is_written_safely(tmp_path: Path) -> None:
    done = pnp("new", 'Dragon\'s "Lair" à Noël', cwd=tmp_path)
    project = tmp_path / "dragon-s-lair-a-noel"
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((project / "pnp.toml").read_text())["project"]["name"] == 'Dragon\'s "Lair" à Noël'
    assert (project / "schemas" / "dragonslairanoel.card.schema.json").is_file()
    checked = pnp("check", cwd=project)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_name_without_letters_or_digits_is_a_usage_error(tmp_path: Path) -> None:
    done = pnp("new", "???", cwd=tmp_path)
    assert done.returncode == 2 and "Latin letter or digit" in done.stderr
    assert "Traceback" not in done.stderr and not any(tmp_path.iterdir())


def test_pnp_messages_speak_of_no_bundled_game() -> None:
    """pnp's code, schemas, templates and scaffold, all a user may read (sheets.py, which still
    draws the bundled content's own sheets, aside)."""
    offenders = []
    for path in sorted((ROOT / "pnp").rglob("*")):
        if path.name == "sheets.py" or path.suffix not in {".py", ".json", ".j2", ".md", ".yml", ".toml", ""}:
            continue
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_schema_path_prints_the_published_schemas(tmp_path: Path) -> None:
    folder = Path(pnp("schema-path", cwd=tmp_path).stdout.strip())
    assert folder == ROOT / "pnp"
    listed = pnp("schema-path", "--all", cwd=tmp_path).stdout.split()
    assert listed == [str(p) for p in sorted(folder.glob("*.schema.json"))]
    assert str(folder / "layout.schema.json") in listed
    layout = pnp("schema-path", "layout", cwd=tmp_path).stdout.strip()
    assert json.loads(Path(layout).read_text())["$schema"].endswith("2020-12/schema")
    unknown = pnp("schema-path", "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "no published schema 'nope'; there are: " in unknown.stderr


def test_a_layout_may_name_its_published_schema(tmp_path: Path) -> None:
    assert pnp("new", "Schema Game", cwd=tmp_path).returncode == 0
    project = tmp_path / "schema-game"
    layout_file = project / "layouts" / "schemagame.card.json"
    layout = json.loads(layout_file.read_text())
    schema = pnp("schema-path", "layout", cwd=project).stdout.strip()
    layout_file.write_text(json.dumps({"$schema": schema, **layout}))
    done = pnp("check", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_name_with_template_and_markup_characters_is_drawn_as_text(tmp_path: Path) -> None:
    done = pnp("new", "The {{ 7*7 }} _Wilds_ __SLUG__", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    project = tmp_path / "the-7-7-wilds-slug"
    assert tomllib.loads((project / "pnp.toml").read_text())["project"]["name"] == "The {{ 7*7 }} _Wilds_ __SLUG__"
    back = json.loads((project / "layouts" / "the77wildsslug.card.json").read_text())["back"]["elements"][-1]
    assert back["text"] == "The  77  Wilds SLUG"
    checked = pnp("check", "--render", cwd=project)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize(
    ("recorded", "requirement"),
    [
        (
            '{"url": "https://git.example.org/pnp.git", "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef0123456789abcdef01234567"}}',
            "pnp @ git+https://git.example.org/pnp.git@0123456789abcdef0123456789abcdef01234567",
        ),
        (
            '{"url": "https://files.example.org/pnp-0.1.0-py3-none-any.whl", "archive_info": {}}',
            "pnp @ https://files.example.org/pnp-0.1.0-py3-none-any.whl",
        ),
        ('{"url": "file:///home/me/pnp", "dir_info": {"editable": true}}', ""),
        ('{"url": "https://me:token@git.example.org/pnp.git", "vcs_info": {"vcs": "git", "commit_id": "0123456"}}', ""),
        ('{"url": "https://git.example.org/it\'s.git", "vcs_info": {"vcs": "git", "commit_id": "0123456"}}', ""),
        ("not json", ""),
    ],
)
def test_ci_installs_pnp_from_where_it_came_when_pip_can_reach_it(recorded: str, requirement: str) -> None:
    assert requirement_from_direct_url(recorded) == requirement


def test_the_workflow_installs_pnp_checks_then_builds_and_keeps_the_pdfs(ember: Path) -> None:
    workflow = yaml.safe_load((ember / ".github" / "workflows" / "pnp.yml").read_text())
    steps = workflow["jobs"]["check"]["steps"]
    assert steps[-3] == {"run": "pnp check --format github"}
    assert steps[-2] == {"name": "Build the print-and-play PDFs", "run": "pnp build"}
    assert steps[-1]["uses"] == "actions/upload-artifact@v4"
    assert steps[-1]["with"] == {"name": "print-and-play", "path": "output/**/*.pdf", "if-no-files-found": "error"}
    install = steps[-4]
    assert install["env"]["PNP_REQUIREMENT"].startswith("${{ vars.PNP_REQUIREMENT || '")
    assert 'pip install "$PNP_REQUIREMENT"' in install["run"] and "::error::" in install["run"]


def test_new_dot_fills_the_empty_folder_it_is_run_in(tmp_path: Path) -> None:
    folder = tmp_path / "Night Market"
    folder.mkdir()
    done = pnp("new", ".", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((folder / "pnp.toml").read_text())["games"] == {
        "nightmarket": {"title": "Night Market", "folder": "night-market"}
    }


def test_name_option_keeps_the_folder_as_given(tmp_path: Path) -> None:
    done = pnp("new", "proto_v2", "--name", "Ember Wild", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((tmp_path / "proto_v2" / "pnp.toml").read_text())["project"]["name"] == "Ember Wild"
    assert (tmp_path / "proto_v2" / "schemas" / "emberwild.card.schema.json").is_file()
