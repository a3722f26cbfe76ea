"""A sheet output depends on exactly the records its templates looked up (pnp/sheets/lookups.py),
however the templates found them: an id the template writes itself (`'ash-drake' | ref`), a kind
it computes (`records_of('toy.' ~ 'note')`), a record found through a looked-up one. Editing such
a record rebuilds the outputs that showed it and no other; nothing changed, nothing is written;
`pnp check` tells the same. Real builds of tests/sheet_project."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.runpnp import Ran
from tests.test_sheets import copy_project, pages, pnp

CAMPAIGN = "output/toy/campaign-the-long-war.pdf"
UNITS = "output/toy/aids/units.pdf"


def written(done: Ran) -> set[str]:
    return set(re.findall(r"^wrote (\S+)", done.stderr, flags=re.M))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The toy game with a campaign that names a unit by an id written in the template, and a units
    aid that lists a kind whose name it builds and shows a unit found through a looked-up record."""
    root = copy_project(tmp_path)
    edit(root / "sheets" / "units.yaml", "records_of('toy.note')", "records_of('toy.' ~ 'note')")
    edit(
        root / "sheets" / "campaign.yaml",
        "  - type: heading\n    text: Campaign rules\n    toc: true\n",
        "  - type: heading\n    text: Campaign rules\n    toc: true\n"
        "  - type: text\n    text: \"Champion: {{ 'ash-drake' | ref }}\"\n"
        "  - type: text\n    text: \"Rival: {{ (('tide' ~ '-crab') | resolve).name }}\"\n",
    )
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    again = pnp(root, "build")
    assert written(again) == set(), again.stderr  # nothing changed: nothing written
    return root


def shows(project: Path, relative: str, words: str) -> bool:
    return any(words in page for page in pages(project / relative))


def test_a_record_named_by_an_id_the_template_writes(project: Path) -> None:
    units = project / "cards" / "units.json"
    assert shows(project, CAMPAIGN, "Champion: Ash Drake")
    edit(units, '"Ash Drake"', '"Ash Wyrm"')
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    assert CAMPAIGN in written(done) and shows(project, CAMPAIGN, "Champion: Ash Wyrm")
    assert "output/toy/setup/first-blood.pdf" not in written(done)  # it shows no Ash Drake
    assert written(pnp(project, "build")) == set()


def test_a_record_found_by_an_id_the_template_builds(project: Path) -> None:
    assert shows(project, CAMPAIGN, "Rival: Tide Crab")
    edit(project / "cards" / "units.json", '"Tide Crab"', '"Tide Lobster"')
    done = pnp(project, "build")
    assert CAMPAIGN in written(done) and shows(project, CAMPAIGN, "Rival: Tide Lobster")


def test_a_kind_listed_by_a_name_the_template_builds(project: Path) -> None:
    notes = project / "cards" / "notes.json"
    assert shows(project, UNITS, "Notes: About imps")
    edit(notes, "About imps", "On imps")
    done = pnp(project, "build")
    assert UNITS in written(done) and shows(project, UNITS, "Notes: On imps")
    assert CAMPAIGN not in written(done)  # the campaign lists no note
    records = json.loads(notes.read_text())
    records.append({**records[0], "id": "late-note", "name": "Late note"})  # a record more in the kind
    notes.write_text(json.dumps(records))
    done = pnp(project, "build")
    assert UNITS in written(done) and shows(project, UNITS, "Late note")


def test_a_record_that_did_not_exist_when_looked_up(project: Path) -> None:
    """`'ash-drake' | ref` printed the id while no such record existed; once it exists, its name."""
    units = project / "cards" / "units.json"
    edit(units, '"id": "ash-drake"', '"id": "ash-drake-old"')
    assert pnp(project, "build").returncode == 0
    assert shows(project, CAMPAIGN, "Champion: ash-drake")
    edit(units, '"id": "ash-drake-old"', '"id": "ash-drake"')
    done = pnp(project, "build")
    assert CAMPAIGN in written(done) and shows(project, CAMPAIGN, "Champion: Ash Drake")


def test_the_key_carries_the_lookups_and_check_agrees(project: Path) -> None:
    """The manifest's key of an output carries what it looked up; pnp check (which keeps what
    laying out found under the same key) passes before and after an edit of a looked-up record,
    and the build then lays that output out again."""
    from pnp.sheets.lookups import SEPARATOR

    manifest = json.loads((project / "output" / ".pnp-manifest.json").read_text())
    assert SEPARATOR in manifest["toy/campaign-the-long-war.pdf"]
    checked = pnp(project, "check")
    assert checked.returncode == 0, checked.stdout
    edit(project / "cards" / "units.json", '"Ash Drake"', '"Ash Drake the Elder, Scourge of the Northern Isles"')
    assert pnp(project, "check").returncode == 0
    assert CAMPAIGN in written(pnp(project, "build"))


@pytest.mark.parametrize(
    "stored",
    ['"{}"', '"abc looked-up [[1]]"', '"abc looked-up not json"', '"abc looked-up [[[true, \\"\\"]], []]"'],
)
def test_a_damaged_manifest_entry_lays_the_output_out_again(project: Path, stored: str) -> None:
    path = project / "output" / ".pnp-manifest.json"
    manifest = json.loads(path.read_text())
    manifest["toy/campaign-the-long-war.pdf"] = json.loads(stored)
    path.write_text(json.dumps(manifest))
    done = pnp(project, "build")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert written(done) == {CAMPAIGN}
    assert written(pnp(project, "build")) == set()


def test_an_image_a_template_names_is_an_input(project: Path) -> None:
    """setup.yaml draws `src: "{{ map }}"` (art/map.png for one scenario): editing that image
    rebuilds the setup sheets that drew it, and a sheet naming a file that appears later is laid
    out again once it is there."""
    from PIL import Image

    scenarios = json.loads((project / "cards" / "scenarios.json").read_text())
    drawing = [s["id"] for s in scenarios if s.get("map")]
    assert drawing, scenarios
    Image.new("RGB", (40, 30), (200, 30, 30)).save(project / "art" / "map.png")
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    rebuilt = {name for name in written(done) if "/setup/" in name}
    assert rebuilt == {f"output/toy/setup/{sid}.pdf" for sid in drawing}, done.stderr
    assert written(pnp(project, "build")) == set()


def test_a_stored_key_naming_files_outside_the_project_reads_none(project: Path, tmp_path: Path) -> None:
    """A manifest entry is data anyone can edit: a file it names outside the project, or a pipe,
    is never read; the output is laid out again."""
    import os

    outside = tmp_path / "secret.png"
    outside.write_bytes(b"not read")
    pipe = project / "art" / "pipe.png"
    os.mkfifo(pipe)
    path = project / "output" / ".pnp-manifest.json"
    manifest = json.loads(path.read_text())
    digest = manifest[CAMPAIGN.removeprefix("output/")].split(" looked-up ")[0]
    names = [str(outside), "../../secret.png", "art/pipe.png"]
    manifest[CAMPAIGN.removeprefix("output/")] = digest + " looked-up " + json.dumps([[], [], names])
    path.write_text(json.dumps(manifest))
    done = pnp(project, "build")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert written(done) == {CAMPAIGN}


def test_referencing_lists_the_records_that_name_one_and_follows_them(tmp_path: Path) -> None:
    """`referencing(id, kind)`: the scenarios whose `units` name a unit, the notes whose `about`
    does (any kind, any x-ref field); dropping a unit from a scenario rebuilds the aid."""
    root = copy_project(tmp_path)
    edit(
        root / "sheets" / "units.yaml",
        '      - {header: Strength, value: "{{ unit.strength }}"}\n',
        '      - {header: Strength, value: "{{ unit.strength }}"}\n'
        "      - {header: In, value: \"{{ referencing(unit.id, 'toy.scenario') | map(attribute='name') | join(' + ') or '-' }}\"}\n"
        "      - {header: Named by, value: \"{{ referencing(unit.id) | map(attribute='id') | join(' + ') or '-' }}\"}\n"
        "      - {header: As, value: \"{{ referencing(unit.id, 'toy.note', 'about') | length }}\"}\n",
    )
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    text = " ".join(pages(root / UNITS))
    assert "Ember Imp 2 First Blood imp-note + first-blood 1" in text, text
    assert "Tide Crab 3 First Blood + High Tide first-blood + high-tide 0" in text, text
    assert "Ash Drake 5 - - 0" in text, text
    scenarios = root / "cards" / "scenarios.json"
    records = json.loads(scenarios.read_text())
    for record in records:
        if record["id"] == "high-tide":
            record["units"] = []
    scenarios.write_text(json.dumps(records, indent=1))
    done = pnp(root, "build")
    assert UNITS in written(done), done.stderr
    assert "Tide Crab 3 First Blood first-blood 0" in " ".join(pages(root / UNITS))
    assert written(pnp(root, "build")) == set()


def test_referencing_with_anything_but_an_id_is_empty(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    edit(
        root / "sheets" / "units.yaml",
        "title: Units by element",
        'title: "Units {{ referencing(none) | length }}{{ referencing([1]) | length }}'
        "{{ referencing('no-such-unit') | length }}{{ referencing('tide-crab', 'no.kind') | length }}\"",
    )
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert pages(root / UNITS)[0].startswith("Units 0000")


def test_a_card_drawn_on_a_sheet_follows_an_id_its_layout_makes(tmp_path: Path) -> None:
    """The unit layout prints `('ember' ~ '-imp') | ref` on every unit card: high-tide's setup sheet
    draws only the Tide Crab's card, yet shows the Ember Imp's name, so renaming it rebuilds it."""
    root = copy_project(tmp_path)
    path = root / "layouts" / "toy.unit.json"
    layout = json.loads(path.read_text())
    layout["front"]["elements"].append(
        {"type": "text", "x": 2, "y": 13, "w": 16, "h": 4, "text": "{{ ('ember' ~ '-imp') | ref }}", "size": 3}
    )
    path.write_text(json.dumps(layout))
    assert pnp(root, "build").returncode == 0
    setup = "output/toy/setup/high-tide.pdf"
    assert shows(root, setup, "Ember Imp")
    edit(root / "cards" / "units.json", '"Ember Imp"', '"Ember Devil"')
    done = pnp(root, "build")
    assert setup in written(done) and shows(root, setup, "Ember Devil"), done.stderr
    assert written(pnp(root, "build")) == set()
