"""A card-data repository as it is, checked with only a pnp.toml added (pnp.toml [kinds]).

tests/adopt_repo is shaped like the public card-data repositories: arrays of records keyed by
`code`, one file per set, file-level schemas (`type: array` with `items`, draft-07,
`additionalProperties: false`) in schema/v1/ under names of their own, a pack `core` and a
cycle `core`, the data at the root beside an unrelated package.json. Through the real CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from runpnp import ROOT, pnp

REPO = ROOT / "tests" / "adopt_repo"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


def git(folder: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The fixture, committed to a fresh git repository (nothing of pnp's ignored)."""
    target = shutil.copytree(REPO, tmp_path / "repo", ignore=shutil.ignore_patterns("output"))
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-qm", "card data")
    return target


def line_of(path: Path, text: str, nth: int = 1) -> int:
    """The line number of the `nth` line of `path` containing `text`."""
    hits = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line]
    return hits[nth - 1]


def test_the_repository_as_it_is_checks_clean_and_stays_clean(repo: Path) -> None:
    done = pnp(repo, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "6 files, 22 records: 0 errors, 0 warnings"
    assert done.stderr == ""
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    again = pnp(repo, "check", "--no-render")  # and the cached check the second time
    assert again.returncode == 0 and "0 errors, 0 warnings" in again.stdout
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_planted_mistakes_are_reported_at_their_original_lines(repo: Path) -> None:
    cards = repo / "pack" / "core.json"
    text = cards.read_text(encoding="utf-8")
    bad_type = line_of(cards, '"cost": 2,', 1)  # Déjà Vu's cost
    dangling = line_of(cards, '"pack_code": "core"', 4)  # Stimhack's pack
    duplicate_first = line_of(cards, '"code": "01005"')
    duplicate_second = line_of(cards, '"code": "01006"')
    hedge_fund = line_of(cards, '"code": "01106"') - 1  # the record's opening brace
    lines = text.splitlines(keepends=True)
    lines[bad_type - 1] = lines[bad_type - 1].replace('"cost": 2,', '"cost": "2",')
    lines[dangling - 1] = lines[dangling - 1].replace('"core"', '"cor"')
    lines[duplicate_second - 1] = lines[duplicate_second - 1].replace("01006", "01005")
    title = next(n for n in range(hedge_fund, len(lines)) if '"title": "Hedge Fund"' in lines[n])
    del lines[title]  # a missing required field: the lines above it keep their numbers
    cards.write_text("".join(lines), encoding="utf-8")

    done = pnp(repo, "check", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    problems = json.loads(done.stdout)["problems"]
    got = [(p["file"], p["line"], p["code"], p["message"]) for p in problems]
    assert got == [
        ("pack/core.json", bad_type, "type-mismatch", 'expected integer or null, got string "2"'),
        ("pack/core.json", dangling, "missing-reference", "'cor' names no nr.pack (by code); did you mean 'core'?"),
        (
            "pack/core.json",
            duplicate_first,
            "duplicate-id",
            f"code '01005' is used by more than one nr.card: also at pack/core.json:{duplicate_second}; "
            "each nr.card needs its own",
        ),
        (
            "pack/core.json",
            duplicate_second,
            "duplicate-id",
            f"code '01005' is used by more than one nr.card: also at pack/core.json:{duplicate_first}; "
            "each nr.card needs its own",
        ),
        ("pack/core.json", hedge_fund, "required-property", "missing required property 'title'; add it"),
    ]
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == " M pack/core.json\n"


def test_a_pack_and_a_cycle_may_share_a_code_and_ref_follows_the_kind(repo: Path) -> None:
    from pnp.project.config import load_project
    from pnp.project.loaded import load_project_records

    loaded = load_project_records(load_project(explicit=repo))
    pack = loaded.lookup("core", "nr.pack")
    cycle = loaded.lookup("core", "nr.cycle")
    assert pack is not None and pack["name"] == "Core Set" and "cycle_code" in pack
    assert cycle is not None and "rotated" in cycle
    card = loaded.lookup("01002", "nr.card")
    assert card is not None and card["title"] == "Déjà Vu"
    assert loaded.lookup("01002") is card  # without a kind: the first kind that has the id
    assert loaded.lookup("nope", "nr.card") is None
    # what a face showing `| ref` depends on: every record its values may name, in every kind
    named = {key for key, _ in loaded.referenced([card])}
    assert {"nr.pack\0core", "nr.cycle\0core"} <= named, named
    assert not any(f.path.name == "package.json" for f in loaded.files)


def card_layout(repo: Path, pack_text: str) -> Path:
    """A card layout added beside the data: the title and a text made from the card's pack."""
    layout = {
        "kinds": ["nr.card"],
        "size": "poker",
        "front": {
            "elements": [
                {"name": "title", "type": "text", "x": 5, "y": 5, "w": 53, "h": 8, "text": "{{ title }}"},
                {"name": "pack", "type": "text", "x": 5, "y": 20, "w": 53, "h": 8, "text": pack_text},
            ]
        },
        "back": None,
    }
    path = repo / "layouts" / "card.json"
    path.parent.mkdir()
    path.write_text(json.dumps(layout, indent=2) + "\n", encoding="utf-8")
    return path


def test_ref_naming_a_kind_draws_that_kinds_record(repo: Path) -> None:
    """Pack `core` and cycle `core`: `ref(kind=...)` picks the pack; without the kind the cycle
    (the first declared kind with that code) has no release date, so the code itself prints."""
    pack_text = "released {{ pack_code | ref('date_release', kind='nr.pack') }} / {{ pack_code | ref('date_release') }}"
    card_layout(repo, pack_text)
    done = pnp(repo, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    import pdfplumber

    (pdf,) = (repo / "output").rglob("*nr.card.pdf")
    with pdfplumber.open(pdf) as opened:
        text = "\n".join(page.extract_text() or "" for page in opened.pages)
    assert "released 2012-09-06 / core" in text  # Déjà Vu is in pack core
    assert "released 2012-12-14 /" in text  # a What Lies Ahead card: only a pack is named wla


def test_ref_naming_an_unknown_kind_is_located_in_the_layout(repo: Path) -> None:
    path = card_layout(repo, "{{ pack_code | ref('name', kind='nr.pak') }}")
    done = pnp(repo, "check", "--no-render")
    assert done.returncode == 1
    at = line_of(path, "nr.pak")
    assert f"layouts/card.json:{at}:" in done.stdout
    assert "error[layout-unknown-kind]: ref names kind 'nr.pak', which no schema or record has" in done.stdout
    assert "did you mean 'nr.pack'?" in done.stdout


def test_a_dangling_reference_between_declared_kinds(repo: Path) -> None:
    packs = repo / "packs.json"
    packs.write_text(packs.read_text(encoding="utf-8").replace('"cycle_code": "genesis"', '"cycle_code": "genesys"'))
    done = pnp(repo, "check")
    assert done.returncode == 1
    at = line_of(packs, '"cycle_code": "genesys"')
    assert f"packs.json:{at}:23: error[missing-reference]: 'genesys' names no nr.cycle (by code); " in done.stdout
    assert "did you mean 'genesis'?" in done.stdout


def write(folder: Path, files: dict[str, object]) -> Path:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return folder


KINDS_BASE = """[kinds."nr.card"]
files = ["pack/*.json"]
id = "code"
schema = "schema/v1/card_schema.json"
refs = {pack_code = "nr.pack"}

[kinds."nr.pack"]
files = ["packs.json"]
id = "code"
"""


@pytest.mark.parametrize(
    ("replace", "by", "line", "message"),
    [
        ('id = "code"\nschema', 'idd = "code"\nschema', 3, "unknown key 'idd' in [kinds.nr.card] (did you mean 'id'?)"),
        ('["pack/*.json"]', '["../elsewhere/*.json"]', 2, "leaves the project (through ..)"),
        (
            '"schema/v1/card_schema.json"',
            '"schema/v1/cards_schema.json"',
            4,
            "no such file (did you mean 'schema/v1/card_schema.json'?)",
        ),
        ('"nr.pack"}', '"nr.packs"}', 5, "refs: pack_code = 'nr.packs' names no kind (did you mean 'nr.pack'?)"),
    ],
)
def test_a_mistake_in_kinds_is_a_located_configuration_error(
    repo: Path, replace: str, by: str, line: int, message: str
) -> None:
    (repo / "pnp.toml").write_text(KINDS_BASE.replace(replace, by, 1), encoding="utf-8")
    done = pnp(repo, "check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith(f"pnp.toml:{line}:1: error[config-error]: "), done.stdout
    assert message in done.stdout.splitlines()[0]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_2020_12_project_with_defs_sibling_refs_and_its_own_id_field(tmp_path: Path) -> None:
    """Other names, other shapes: one record per file, an id field `slug`, integer ids, a schema
    with $defs, a $ref to a sibling file under a web $id, and one to the draft-07 meta-schema."""
    common = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/schemas/common.json",
        "$defs": {"slug": {"type": "string", "pattern": "^[a-z-]+$"}},
    }
    hero = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/schemas/hero.json",
        "type": "object",
        "additionalProperties": False,
        "required": ["slug", "team", "power"],
        "properties": {
            "slug": {"$ref": "common.json#/$defs/slug"},
            "team": {"type": "integer"},
            "power": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "object", "required": ["dice"]}]},
            "extra": {"$ref": "http://json-schema.org/draft-07/schema#"},
        },
    }
    write(
        tmp_path,
        {
            "pnp.toml": '[kinds."x.hero"]\nfiles = ["data/heroes/*.json"]\nid = "slug"\n'
            'schema = "meta/hero.json"\nrefs = {team = "x.team"}\n\n'
            '[kinds."x.team"]\nfiles = ["data/teams.json"]\nid = "number"\ncard = false\n',
            "meta/common.json": common,
            "meta/hero.json": hero,
            "data/teams.json": [{"number": 1, "name": "Red"}, {"number": 2, "name": "Blue"}],
            "data/heroes/ann.json": {"slug": "ann", "team": 1, "power": 3, "extra": {"type": "string"}},
            "data/heroes/bob.json": {"slug": "Bob", "team": 3, "power": {"die": 6}},
            "data/heroes/cid.json": {"slug": "ann", "team": 2, "power": -1},
        },
    )
    done = pnp(tmp_path, "check")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert out[:-1] == [
        "data/heroes/ann.json:2:11: error[duplicate-id]: slug 'ann' is used by more than one x.hero: "
        "also at data/heroes/cid.json:2; each x.hero needs its own (at /slug)",
        'data/heroes/bob.json:2:11: error[pattern-mismatch]: "Bob" does not match ^[a-z-]+$ (at /slug)',
        "data/heroes/bob.json:3:11: error[missing-reference]: 3 names no x.team (by number); "
        "add that x.team, or correct the value (at /team)",
        "data/heroes/bob.json:4:12: error[required-property]: missing required property 'dice'; add it (at /power)",
        "data/heroes/cid.json:2:11: error[duplicate-id]: slug 'ann' is used by more than one x.hero: "
        "also at data/heroes/ann.json:2; each x.hero needs its own (at /slug)",
        "data/heroes/cid.json:4:12: error[out-of-range]: -1 is less than the minimum of 0 (at /power)",
    ]


def test_a_spreadsheet_of_a_declared_kind_keeps_its_schema_strict(tmp_path: Path) -> None:
    """A CSV named by [kinds]: its rows get the kind without a kind column, and a schema with
    `additionalProperties: false` sees the rows as they are."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["code", "cost"],
        "properties": {"code": {"type": "string"}, "cost": {"type": "integer"}},
    }
    write(
        tmp_path,
        {
            "pnp.toml": '[kinds."s.item"]\nfiles = ["items.csv"]\nid = "code"\nschema = "item.json"\n',
            "item.json": schema,
            "items.csv": "code,cost\na,1\nb,x\na,3\n",
        },
    )
    done = pnp(tmp_path, "check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'items.csv:3:2: error[type-mismatch]: expected integer, got string "x"' in done.stdout
    assert "duplicate-id" in done.stdout and "unexpected-property" not in done.stdout


def test_the_hook_passes_every_record_format_and_catalogs() -> None:
    import re

    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    files = re.compile(hook["files"])
    for name in ("cards/a.json", "b.yaml", "c.yml", "u.csv", "u.tsv", "w.xlsx", "w.xlsm", "w.ods", "de.po", "pnp.toml"):
        assert files.search(name), name
    assert not files.search("art/front.png")


def test_check_changed_in_an_adopted_repository(repo: Path) -> None:
    """Changed files of a repository with [kinds]: a record file is checked as records, a schema
    it names checks the whole project, a package.json beside the data checks nothing."""
    from pnp.cli.changed import plan_checks

    (plan,) = plan_checks([repo / "pack" / "core.json"])
    assert not plan.whole and [p.name for p in plan.records] == ["core.json"]
    (plan,) = plan_checks([repo / "schema" / "v1" / "card_schema.json"])
    assert plan.whole
    assert plan_checks([repo / "package.json"]) == []
    done = pnp(repo, "check-changed", "pack/wla.json", "package.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 files, 3 records: 0 errors, 0 warnings" in done.stdout


def test_a_changed_catalog_checks_the_whole_project(tmp_path: Path) -> None:
    from pnp.cli.changed import plan_checks

    write(tmp_path, {"pnp.toml": "", "cards/a.json": [], "translations/de.po": 'msgid ""\nmsgstr ""\n'})
    (tmp_path / "schemas").mkdir()
    (plan,) = plan_checks([tmp_path / "translations" / "de.po"])
    assert plan.whole


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """The fixture without its pnp.toml, committed to a fresh git repository: what `pnp adopt` meets."""
    target = shutil.copytree(REPO, tmp_path / "repo", ignore=shutil.ignore_patterns("output", "pnp.toml"))
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-qm", "card data")
    return target


def kinds_of(path: Path) -> dict[str, dict[str, object]]:
    """[kinds] of a pnp.toml, each kind named without its prefix and refs naming kinds likewise."""
    import tomllib

    kinds = tomllib.loads(path.read_text(encoding="utf-8"))["kinds"]
    short = {name: name.partition(".")[2] for name in kinds}
    return {
        short[name]: {**table, "refs": {k: short[v] for k, v in table.get("refs", {}).items()}}
        for name, table in kinds.items()
    }


def test_adopt_writes_a_pnp_toml_that_checks_the_repository_clean(bare: Path) -> None:
    done = pnp(bare, "adopt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(bare, "status", "--porcelain", "--untracked-files=all") == "?? pnp.toml\n"  # nothing else
    assert "repo.card: pack/*.json" in done.stderr  # what it guessed, and why
    assert "refs: pack_code -> repo.pack (100% of its values are its ids)" in done.stderr
    assert "card = false: other kinds refer to it" in done.stderr
    written = (bare / "pnp.toml").read_text(encoding="utf-8")
    assert "# schema: schema/v1/card_schema.json (100% of its records pass it)" in written
    # the guesses are the hand-written pnp.toml's, kind names aside
    assert kinds_of(bare / "pnp.toml") == kinds_of(REPO / "pnp.toml")
    checked = pnp(bare, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().splitlines()[-1] == "6 files, 22 records: 0 errors, 0 warnings"
    assert git(bare, "status", "--porcelain", "--untracked-files=all") == "?? pnp.toml\n"


def test_adopt_with_planted_mistakes_finds_only_them(bare: Path) -> None:
    """A dangling pack code and a duplicated card code do not throw the guesses off."""
    cards = bare / "pack" / "core.json"
    text = cards.read_text(encoding="utf-8")
    text = text.replace('"pack_code": "core"', '"pack_code": "cor"', 1).replace('"code": "01006"', '"code": "01005"')
    cards.write_text(text, encoding="utf-8")
    done = pnp(bare, "adopt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "id = 'code': every record has it; 1 repeated value(s): pnp check will say where" in done.stderr
    checked = pnp(bare, "check", "--format", "json")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    codes = sorted(p["code"] for p in json.loads(checked.stdout)["problems"])
    assert codes == ["duplicate-id", "duplicate-id", "missing-reference"], checked.stdout


def test_adopt_never_overwrites_a_pnp_toml(repo: Path) -> None:
    before = (repo / "pnp.toml").read_bytes()
    done = pnp(repo, "adopt")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("pnp: error: pnp.toml: already exists; pnp adopt never overwrites it")
    assert "Traceback" not in done.stderr
    assert (repo / "pnp.toml").read_bytes() == before


def test_adopt_elsewhere_other_names_yaml_and_no_schemas(tmp_path: Path) -> None:
    """Records under data/sets/ keyed by `id`, a YAML lookup keyed by `key` that `type_id` names,
    a settings object beside the sets (not records: the sets are named one by one), no schema."""
    sets = {
        "data/sets/base.json": [
            {"id": 1, "title": "Goblin", "type_id": "unit"},
            {"id": 2, "title": "Fireball", "type_id": "spell"},
        ],
        "data/sets/more.json": [{"id": 3, "title": "Troll", "type_id": "unit"}],
        "data/sets/settings.json": {"version": 2},
        "data/types.yaml": "- key: unit\n  label: Unit\n- key: spell\n  label: Spell\n",
        "README.md": "cards\n",
    }
    root = write(tmp_path / "game-data", sets)
    done = pnp(root, "adopt")
    assert done.returncode == 0, done.stdout + done.stderr
    kinds = kinds_of(root / "pnp.toml")
    assert kinds == {
        "set": {"files": ["data/sets/base.json", "data/sets/more.json"], "id": "id", "refs": {"type_id": "type"}},
        "type": {"files": ["data/types.yaml"], "id": "key", "refs": {}, "card": False},
    }, kinds
    checked = pnp(root, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "3 files, 5 records: 0 errors" in checked.stdout


def test_adopt_in_a_folder_without_records_is_a_configuration_error(tmp_path: Path) -> None:
    done = pnp(write(tmp_path, {"package.json": {"name": "x"}}), "adopt")
    assert done.returncode == 2 and "no record files found" in done.stderr, done.stderr
    assert not (tmp_path / "pnp.toml").exists()


def test_adopt_reads_nothing_outside_and_notes_what_it_cannot_read(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret.json": [{"code": "s1"}, {"code": "s2"}]})
    root = write(
        tmp_path / "data",
        {
            "units.json": [{"code": "u1", "name": "A"}, {"code": "u2", "name": "B"}],
            "broken.yaml": "- code: [unclosed\n",
            "mkdocs.yml": "site_name: x\n",
            "node_modules/dep/list.json": [{"code": "n1"}],
        },
    )
    (root / "linked").symlink_to(outside, target_is_directory=True)
    done = pnp(root, "adopt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: broken.yaml: not inspected (YAML syntax" in done.stderr
    assert "Traceback" not in done.stderr
    kinds = kinds_of(root / "pnp.toml")
    assert list(kinds) == ["unit"], kinds
    checked = pnp(root, "check", "--no-render")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_adopt_one_record_per_file_with_a_schema_reaching_a_sibling(tmp_path: Path) -> None:
    """Heroes one per file under data/heroes/, keyed by `slug`; their schema $refs a sibling
    under a web $id (resolved among the repository's own schemas, offline); teams keyed by `number`."""
    common = {"$id": "https://example.org/schemas/common.json", "$defs": {"slug": {"type": "string"}}}
    hero = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/schemas/hero.json",
        "type": "object",
        "required": ["slug", "team_id"],
        "properties": {"slug": {"$ref": "common.json#/$defs/slug"}, "team_id": {"type": "integer"}},
    }
    root = write(
        tmp_path / "heroes-repo",
        {
            "schemas/common.json": common,
            "schemas/hero.json": hero,
            "data/teams.json": [{"number": 1, "name": "Red"}, {"number": 2, "name": "Blue"}],
            "data/heroes/ann.json": {"slug": "ann", "team_id": 1},
            "data/heroes/bob.json": {"slug": "bob", "team_id": 2},
            "data/heroes/cid.json": {"slug": "cid", "team_id": 2},
        },
    )
    done = pnp(root, "adopt")
    assert done.returncode == 0, done.stdout + done.stderr
    kinds = kinds_of(root / "pnp.toml")
    assert kinds["hero"] == {
        "files": ["data/heroes/*.json"],
        "id": "slug",
        "schema": "schemas/hero.json",
        "refs": {"team_id": "team"},
    }, kinds
    assert kinds["team"]["card"] is False and kinds["team"]["id"] == "number"
    checked = pnp(root, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
