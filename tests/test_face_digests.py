"""One edit, one face redrawn: `pnp check` draws again only the faces whose digest changed
(pnp.drawing.faces, pnp.drawing.facecache), counted on the real drawing of a real project.

The project is tests/build_project (11 cards, 5 spell tokens), with the spell layout made to show
the name of a card through `ref` (a spell's `source.section` names a card id), so that one face
depends on another record.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pnp.core.problems import Problem
from pnp.drawing.facecache import DrawCounter
from pnp.drawing.findings import render_findings
from pnp.project.config import load_project
from pnp.project.loaded import load_project_records

ROOT = Path(__file__).resolve().parents[1]


def check_round(project: Path) -> tuple[int, list[Problem]]:
    """One plain `pnp check`'s drawing stage, in process: faces drawn, and what drawing found."""
    loaded = load_project_records(load_project(explicit=project / "pnp.toml"))
    counter = DrawCounter()
    found = render_findings(loaded, counter=counter)
    return counter.faces, sorted((f.locate(x) for f, x in found), key=Problem.sort_key)


def edit(path: Path, index: int, **changes: object) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    records[index].update(changes)
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    spells = target / "cards" / "spells.json"
    records = json.loads(spells.read_text(encoding="utf-8"))
    records[0]["source"]["section"] = "card-01"  # spell-1 shows card-01 name
    spells.write_text(json.dumps(records, indent=2), encoding="utf-8")
    layout_path = target / "layouts" / "test-spell.json"
    layout = json.loads(layout_path.read_text(encoding="utf-8"))
    layout["front"]["elements"].append(
        {
            "name": "home",
            "type": "text",
            "x": 4,
            "y": 17,
            "w": 17,
            "h": 4,
            "text": "{{ source.section | ref }}",
            "size": 4,
        }
    )
    layout_path.write_text(json.dumps(layout), encoding="utf-8")
    return target


def faces_of(project: Path) -> int:
    cards = json.loads((project / "cards" / "cards.json").read_text(encoding="utf-8"))
    spells = json.loads((project / "cards" / "spells.json").read_text(encoding="utf-8"))
    return sum(int(r.get("copies", 1)) for r in cards) + sum(int(r.get("copies", 1)) for r in spells)


def test_one_edit_redraws_one_face_and_a_ref_follows_its_target(project: Path) -> None:
    cold, first = check_round(project)
    assert cold == faces_of(project) > 10  # the first check draws every face
    assert check_round(project) == (0, first)  # nothing changed: nothing drawn, the same findings

    edit(project / "cards" / "spells.json", 2, name="Spell three")  # one token, one copy
    assert check_round(project)[0] == 1

    cards = json.loads((project / "cards" / "cards.json").read_text(encoding="utf-8"))
    target = next(i for i, r in enumerate(cards) if r["id"] == "card-01")
    copies = int(cards[target].get("copies", 1))
    edit(project / "cards" / "cards.json", target, name="Card the first")  # card-01 and spell-1 show it
    assert check_round(project)[0] == copies + 1

    other = next(i for i, r in enumerate(cards) if r["id"] != "card-01" and r.get("copies", 1) == 1)
    edit(project / "cards" / "cards.json", other, name="Renamed")  # no spell shows it
    assert check_round(project)[0] == 1


def test_an_edit_outside_the_faces_draws_nothing(project: Path) -> None:
    check_round(project)
    (project / "sheets").mkdir()
    (project / "sheets" / "aid.yaml").write_text("title: An aid\nblocks: []\n", encoding="utf-8")
    (project / "notes.txt").write_text("not an input of any face", encoding="utf-8")
    assert check_round(project)[0] == 0


def test_a_moved_record_is_reported_where_it_is_now(project: Path) -> None:
    """Cached findings are kept unlocated: a record moved down its file is not redrawn, and its
    problem is reported at its new line."""
    spells = project / "cards" / "spells.json"
    edit(spells, 1, name="far too long a name for a token this small " * 6)
    _, before = check_round(project)
    overflow = [p for p in before if p.code == "text-overflow"]
    assert overflow and overflow[0].file == "cards/spells.json"
    records = json.loads(spells.read_text(encoding="utf-8"))
    records.insert(0, records.pop(1))  # the long-named spell first
    spells.write_text(json.dumps(records, indent=2), encoding="utf-8")
    drawn, after = check_round(project)
    assert drawn == 0
    moved = [p for p in after if p.code == "text-overflow"]
    assert [p.line for p in moved] != [p.line for p in overflow] and moved[0].pointer.startswith("/0/")


def test_a_changed_image_redraws_the_faces_that_show_it(project: Path) -> None:
    layout = json.loads((project / "layouts" / "test-card.json").read_text(encoding="utf-8"))
    uses_sun = "sun.png" in json.dumps(layout) or "sun.png" in (project / "cards" / "cards.json").read_text()
    check_round(project)
    from PIL import Image

    Image.new("RGB", (40, 30), (10, 200, 30)).save(project / "art" / "sun.png")
    drawn, _ = check_round(project)
    assert (drawn > 0) == uses_sun
    assert drawn < faces_of(project)  # the spell tokens do not show it


def test_drawing_on_several_cores_finds_what_one_process_finds(project: Path) -> None:
    """Forked children drawing shares of a kind report the same findings, in the same order."""
    spells = project / "cards" / "spells.json"
    for index in (0, 3):
        edit(spells, index, name="a name far too long for a token this small to hold " * 4)
    loaded = load_project_records(load_project(explicit=project / "pnp.toml"))
    alone = render_findings(loaded, use_cache=False, jobs=1)
    shared = render_findings(loaded, use_cache=False, jobs=3)
    assert [(f.path, x) for f, x in shared] == [(f.path, x) for f, x in alone]
    assert sum(x.code == "text-overflow" for _, x in alone) >= 2


def test_a_child_that_found_nothing_is_not_drawn_again(project: Path) -> None:
    """A share whose faces all draw cleanly comes back as no findings, not as a failed child: this
    process draws its own share only (it used to draw every clean share again, so a cold check of a
    clean deck cost what a build costs)."""
    from pnp.drawing.render import FACES_DRAWN

    loaded = load_project_records(load_project(explicit=project / "pnp.toml"))
    before = FACES_DRAWN.copy()
    alone = render_findings(loaded, use_cache=False, jobs=1)
    every = FACES_DRAWN - before
    before = FACES_DRAWN.copy()
    shared = render_findings(loaded, use_cache=False, jobs=2)
    here = FACES_DRAWN - before
    assert [(f.path, x) for f, x in shared] == [(f.path, x) for f, x in alone]
    assert every and all(count >= 2 for count in every.values())
    assert here == {name: -(-count // 2) for name, count in every.items()}  # the first half of each kind's faces


def test_an_image_that_turns_from_a_link_out_into_a_pipe_is_checked_again(tmp_path: Path) -> None:
    """A file pnp refuses counts in a face's digest by why it is refused: a link out of the project
    replaced by a named pipe is not the same input, so the next check says what is there now, not
    what the cache kept."""
    import os

    from tests.buildkit import cards_only
    from tests.runpnp import run

    root = cards_only(tmp_path / "game")
    cards = root / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[0]["image"] = "art/swap.png"
    cards.write_text(json.dumps(records, indent=1), encoding="utf-8")
    (tmp_path / "outside.png").write_bytes((root / "art" / "sun.png").read_bytes())
    swap = root / "art" / "swap.png"
    swap.symlink_to(tmp_path / "outside.png")
    linked = run(root, "check")
    assert "asset-outside-project" in linked.stdout, linked.stdout
    swap.unlink()
    os.mkfifo(swap)
    piped = run(root, "check")
    assert "asset-outside-project" not in piped.stdout, piped.stdout
    assert "not a regular file" in piped.stdout, piped.stdout


def test_a_kinds_record_keys_made_in_one_loop_are_each_records_own(project: Path) -> None:
    """`FaceDigests.record_keys` (the build's and the check's loop) gives what `record_key` gives
    for each record, on a layout with `ref` (its own path) and one without (the loop's)."""
    from pnp.drawing.faces import FaceDigests

    loaded = load_project_records(load_project(explicit=project / "pnp.toml"))
    for kind in ("test.card", "test.spell"):
        layout = loaded.layouts.by_kind[kind]
        records = [record for _, _, record in loaded.records(kind)]
        apart = [FaceDigests(loaded, "options").record_key(layout, kind, record) for record in records]
        assert FaceDigests(loaded, "options").record_keys(layout, kind, records) == apart
        assert len(set(apart)) == len(records)  # and they tell the records apart


def test_a_files_keys_are_taken_from_the_last_check_while_its_records_and_images_are_the_same(
    project: Path,
) -> None:
    """`FaceDigests.keys_by_file` (what the check keys a kind's faces by after an edit): a file
    whose records serialise as they did, and whose images are unchanged, takes the keys stored
    for it; a file that changed, or whose image changed, gets its records' own keys (`record_key`,
    one by one), never the stored ones."""
    from pnp.drawing.faces import FaceDigests

    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    half = len(records) // 2
    records[0]["image"] = "art/moon.png"  # the first file shows an image of its own
    shutil.copyfile(project / "art" / "sun.png", project / "art" / "moon.png")
    cards.write_text(json.dumps(records[:half], indent=2), encoding="utf-8")
    more = project / "cards" / "more-cards.json"
    more.write_text(json.dumps(records[half:], indent=2), encoding="utf-8")

    def keys(known: dict[str, list[str]]) -> tuple[list[str], dict[str, list[str]], list[str]]:
        loaded = load_project_records(load_project(explicit=project / "pnp.toml"))
        layout = loaded.layouts.by_kind["test.card"]
        pairs = [((f, i), r) for f, i, r in loaded.records("test.card")]
        made, files = FaceDigests(loaded, "options").keys_by_file(layout, "test.card", pairs, known)
        own = [FaceDigests(loaded, "options").record_key(layout, "test.card", r) for _, r in pairs]
        return made, files, own

    made, files, own = keys({})
    assert made == own and len(files) == 2
    assert sorted(entry[4:] for entry in files.values()) == sorted([own[:half], own[half:]])
    first = next(name for name in files if name.endswith("/cards.json"))
    assert "art/moon.png" in files[first][1].split("\0")
    stored = {name: [*entry[:4], *(f"stored-{n}" for n in range(len(entry) - 4))] for name, entry in files.items()}
    made, _, own = keys(stored)
    assert made == [f"stored-{n}" for n in range(half)] + [f"stored-{n}" for n in range(len(records) - half)]
    edit(more, 0, name="Renamed")
    made, again, own = keys(stored)
    assert made == [f"stored-{n}" for n in range(half)] + own[half:]  # the edited file's keys made again
    assert again[first] == stored[first]  # kept as it was
    (project / "art" / "moon.png").write_bytes((project / "art" / "moon.png").read_bytes() + b"\0")
    made, _, own = keys(stored)
    assert made[:half] == own[:half] != [f"stored-{n}" for n in range(half)]  # its image changed


def show_on_spells(project: Path, text: str) -> None:
    """The spell layout's `home` element made to print `text` instead."""
    layout_path = project / "layouts" / "test-spell.json"
    layout = json.loads(layout_path.read_text(encoding="utf-8"))
    for element in layout["front"]["elements"]:
        if element.get("name") == "home":
            element["text"] = text
    layout_path.write_text(json.dumps(layout), encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "redrawn"),
    [
        ("{{ source.section | ref }}", "shower"),  # a field's id: the spell that names card-01
        ("{{ [source.section] | map('ref') | join(', ') }}", "all"),  # by map, on a list the template makes
        ("{{ ('card-' ~ '01') | ref }}", "all"),  # an id the template makes: every spell may show it
        ("{% filter ref %}card-01{% endfilter %}", "all"),
        ("{{ [source.section] | select('ref') | list | length }}", "all"),  # its name handed on
        ("Cross-ref: see the card", "none"),  # the word in plain text calls nothing
        ("{% set r = source.section | ref %}{{ r }}", "shower"),  # the lookup's answer bound: still a field's id
        ("{% for k in source | list %}{{ source[k] | ref }}{% endfor %}", "shower"),  # a loop over the record's own
        ("{% for s in [source.section] %}{{ s | ref }}{% endfor %}", "all"),  # over a list the template makes
        ("{% set x = 'card-01' %}{{ x | ref }}", "all"),
        ("{% macro m(v) %}{{ v | ref }}{% endmacro %}{{ m(source.section) }}", "all"),
        ("{{ (source.section | default('card-01')) | ref }}", "all"),  # a default the template writes
    ],
)
def test_ref_is_followed_however_it_is_called(project: Path, text: str, redrawn: str) -> None:
    """Renaming card-01 redraws its own faces and every face whose text may show it: the spell that
    names it (a field), every spell (an id the template makes), or no spell (no lookup at all)."""
    show_on_spells(project, text)
    check_round(project)
    cards = json.loads((project / "cards" / "cards.json").read_text(encoding="utf-8"))
    target = next(i for i, r in enumerate(cards) if r["id"] == "card-01")
    copies = int(cards[target].get("copies", 1))
    spells = json.loads((project / "cards" / "spells.json").read_text(encoding="utf-8"))
    every_spell = sum(int(r.get("copies", 1)) for r in spells)
    edit(project / "cards" / "cards.json", target, name="Card the first")
    expected = copies + {"shower": 1, "all": every_spell, "none": 0}[redrawn]
    assert check_round(project)[0] == expected


def test_an_export_follows_an_id_the_template_makes(project: Path) -> None:
    """`pnp export printshop` of the spells rewrites their file when the record a computed id names
    changes (its key holds every record, as the build's face digests do)."""
    from pypdf import PdfReader

    from tests.runpnp import run

    show_on_spells(project, "{{ ('card-' ~ '02') | ref }}")  # no spell's own values name card-02
    assert run(project, "export", "printshop", "test.spell").returncode == 0
    cards = json.loads((project / "cards" / "cards.json").read_text(encoding="utf-8"))
    assert "card-02" not in (project / "cards" / "spells.json").read_text()
    edit(
        project / "cards" / "cards.json", next(i for i, r in enumerate(cards) if r["id"] == "card-02"), name="Card Uno"
    )
    done = run(project, "export", "printshop", "test.spell")
    assert "wrote output/test/printshop/test.spell.pdf" in done.stderr, done.stderr
    text = " ".join(page.extract_text() for page in PdfReader(project / "output/test/printshop/test.spell.pdf").pages)
    assert "Card Uno" in text
