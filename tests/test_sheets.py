"""The sheet engine (pnp/sheets/) on a small game of its own (tests/sheet_project), through the CLI.

Its sheet files use every block type; the PDFs are read back with pdfplumber (text, fonts and
positions). The bundled content's sheets are tested in tests/content/test_bundled_sheets.py.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pdfplumber
import pytest

from tests.runpnp import Ran, run

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "sheet_project"

ROOT = HERE.parent


def pnp(cwd: Path, *args: str) -> Ran:
    return run(cwd, *args)


def copy_project(tmp: Path) -> Path:
    target = tmp / "game"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ran]:
    project = copy_project(tmp_path_factory.mktemp("sheets"))
    done = pnp(project, "build")
    return project / "output" / "toy", done


def pages(path: Path) -> list[str]:
    with pdfplumber.open(path) as pdf:
        return [" ".join((page.extract_text() or "").split()) for page in pdf.pages]


def test_build_writes_every_sheet_and_the_generic_one(built: tuple[Path, Ran]) -> None:
    out, done = built
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("setup/first-blood.pdf", "setup/high-tide.pdf", "campaign-the-long-war.pdf", "aids/units.pdf",
                 "sheets/toy.note.pdf"):  # fmt: skip
        assert (out / name).is_file(), name


def test_setup_sheet_blocks(built: tuple[Path, Ran]) -> None:
    out, _ = built
    text = " ".join(pages(out / "setup" / "first-blood.pdf"))
    for heading in ("First Blood", "Story", "Setup steps", "Units", "Timed events", "End of the sheet"):
        assert heading in text
    # labels: the schema's oneOf title, the schema's x-labels, the sheet file's labels
    assert "Duel (two players)" in text and "Element of Fire" in text and "two players" in text
    # `when` false hides a heading, a text block and a facts row
    assert "Hidden section" not in text and "NOT PRINTED" not in text and "art/map.png" not in text
    # references by name, card markup: *bold* and {icon}
    assert "Ember Imp" in text and "ember-imp" not in text and "FIRE units start first" in text
    with pdfplumber.open(out / "setup" / "first-blood.pdf") as pdf:
        words = pdf.pages[0].extract_words(extra_attrs=["fontname"])
        assert any(w["text"] == "prologue" and "Bold" in w["fontname"] for w in words)
        assert any(w["text"].startswith("twice") and "Bold" in w["fontname"] for w in words)
        assert pdf.pages[0].images, "the image block draws the map"
        checks = [w for w in words if w["text"] == "\u2610"]
        assert len(checks) >= 2 + 19  # the checklist's two steps and the table's checkbox column
        steps = [w for w in words if w["text"] == "Shuffle"]
        assert steps and min(c["x0"] for c in checks) < steps[0]["x0"]


def test_table_header_repeats_on_continuation_pages(built: tuple[Path, Ran]) -> None:
    out, _ = built
    texts = pages(out / "setup" / "first-blood.pdf")
    assert len(texts) == 3  # the table runs onto page 2; a page break follows it
    assert texts[1].startswith("First Blood Round Event")  # header line, then the table's own header
    assert "Event number 60" in texts[1] and "Event number 1:" in texts[0]
    assert texts[2].startswith("First Blood End of the sheet")
    for number, page in enumerate(texts, 1):
        assert page.endswith(f"Toy Game page {number} of 3")


def test_card_block_draws_the_record_at_size(built: tuple[Path, Ran]) -> None:
    out, _ = built
    with pdfplumber.open(out / "aids" / "units.pdf") as pdf:
        page = pdf.pages[0]
        text = " ".join((page.extract_text() or "").split())
        small = [w for w in page.extract_words(extra_attrs=["size"]) if w["text"] == "Ember" and w["size"] < 6]
        big = [w for w in page.extract_words(extra_attrs=["size"]) if w["text"] == "Ember" and w["size"] > 8]
    # the token's own layout (name at 4 pt on a 20 mm token) drawn into a 25 mm square at the left
    size = 25 * 72 / 25.4
    margin = 15 * 72 / 25.4
    assert small, "the token's name, from its layout"
    assert margin <= small[0]["x0"] and small[0]["x1"] <= margin + size
    assert big and big[0]["x0"] > margin + size  # its summary beside it
    # grouped by the element's label, sorted by element then name
    assert text.index("Element of Fire") < text.index("Ash Drake") < text.index("Ember Imp") < text.index("Tide Crab")
    assert text.endswith("Toy Game: units aid page 1 of 1")


def test_section_data_table_numbered_items_and_part(built: tuple[Path, Ran]) -> None:
    out, _ = built
    texts = pages(out / "aids" / "units.pdf")
    assert len(texts) == 2 and texts[0].endswith("page 1 of 1") and texts[1].endswith("page 1 of 1")
    section = texts[1]  # a section: a new page, its title in the header, numbered on its own
    assert section.startswith("Reference Reference A table stored as data")
    assert "Fire side Also fire Ember Imp Ash Drake Tide Crab" in section
    assert "1. Draw a unit 2. Place it 3. Roll" in section
    assert "Ember Imp has strength 2." in section and "Tide Crab has strength 3." in section
    assert not list(out.rglob("*unit-line*"))  # a part sheet makes no PDF


def test_booklet_toc_and_include(built: tuple[Path, Ran]) -> None:
    out, _ = built
    texts = pages(out / "campaign-the-long-war.pdf")
    contents = texts[0]
    entries = ["Campaign rules", "1. High Tide", "2. First Blood"]
    assert [contents.index(e) for e in entries] == sorted(contents.index(e) for e in entries)
    for entry in entries[1:]:
        listed = int(re.search(rf"{re.escape(entry)}[ .]*?(\d+)", contents).group(1))  # type: ignore[union-attr]
        assert texts[listed - 1].startswith(entry), (entry, listed)
        assert f"page {listed} of {len(texts)}" in texts[listed - 1]  # numbered through the booklet
    # each included scenario sheet brings its blocks, with its own record
    assert "Flood the board" in " ".join(texts) and "Shuffle the unit tokens" in " ".join(texts)


def test_generic_sheet_prints_every_field_and_names(built: tuple[Path, Ran]) -> None:
    out, _ = built
    text = " ".join(pages(out / "sheets" / "toy.note.pdf"))
    assert "About imps" in text and "Imps are small." in text and "Ember Imp" in text
    assert "ember-imp" not in text


def test_check_locates_sheet_problems(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    sheets = project / "sheets"
    (sheets / "loop-a.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: A\nblocks:\n  - type: include\n    sheet: loop-b\n"
    )
    (sheets / "loop-b.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: B\nblocks:\n  - type: include\n    sheet: loop-a\n"
    )
    (sheets / "kind.yaml").write_text("document: per-record\nkind: toy.unitt\ntitle: X\nblocks: []\n")
    (sheets / "bad.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: X\nblocks:\n  - type: heading\n    txt: Oops\n"
    )
    (sheets / "field.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: X\nblocks:\n  - type: text\n    text: '{{ nmae }}'\n"
    )
    done = pnp(project, "check")
    out = done.stdout
    assert done.returncode == 1, out
    assert re.search(r"sheets/loop-a\.yaml:6:12: error\[sheet-cycle\]: .*loop-a -> loop-b -> loop-a", out), out
    assert re.search(
        r"sheets/kind\.yaml:2:7: error\[sheet-unknown-kind\]: .*'toy\.unitt'.*did you mean 'toy\.unit'", out
    )
    assert re.search(r"sheets/bad\.yaml:6:5: error\[sheet-error\]: heading block: .*'txt'", out), out
    assert re.search(r"sheets/field\.yaml:6:11: error\[unknown-sheet-field\]: .*'nmae'.*did you mean 'name'", out), out
    assert re.search(r"cards/notes\.json:3:11: warning\[generic-sheet\]: kind 'toy\.note'", out), out


def test_text_that_cannot_fit_is_located_at_the_block(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    scenarios = project / "cards" / "scenarios.json"
    scenarios.write_text(scenarios.read_text().replace("Event number 7:", "Event number 7: " + "very long " * 3000))
    done = pnp(project, "build")
    assert done.returncode == 1
    line = next(x for x in done.stdout.splitlines() if "text-overflow" in x)
    setup = (project / "sheets" / "setup.yaml").read_text().splitlines()
    row = next(i for i, x in enumerate(setup, 1) if "r.event" in x)
    assert line.startswith(f"sheets/setup.yaml:{row}:"), line
    assert "record 'first-blood'" in line and "r.event" in line, line
    assert not (project / "output" / "toy" / "setup" / "first-blood.pdf").exists()
    checked = pnp(project, "check", "--render")  # pnp check promises what pnp build delivers
    assert checked.returncode == 1 and line in checked.stdout.splitlines(), checked.stdout


def test_incremental_and_deterministic(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    assert pnp(project, "build").returncode == 0
    target = project / "output" / "toy" / "aids" / "units.pdf"
    first = target.read_bytes()
    again = pnp(project, "build")
    assert "0 written" in again.stdout + again.stderr, again.stdout
    sheet = project / "sheets" / "units.yaml"
    sheet.write_text(sheet.read_text().replace("title: Units by element", "title: Units by their element"))
    changed = pnp(project, "build")
    assert "units.pdf" in changed.stdout + changed.stderr
    assert "Units by their element" in pages(target)[0]
    notes = project / "cards" / "notes.json"  # read through records_of('toy.note'): an input too
    notes.write_text(notes.read_text().replace("About imps", "On imps"))
    rebuilt = pnp(project, "build")
    assert "units.pdf" in rebuilt.stderr and "first-blood.pdf" not in rebuilt.stderr
    assert "Notes: On imps" in pages(target)[0]
    notes.write_text(notes.read_text().replace("On imps", "About imps"))
    sheet.write_text(sheet.read_text().replace("title: Units by their element", "title: Units by element"))
    assert pnp(project, "build", "--force").returncode == 0
    assert target.read_bytes() == first


def test_changing_one_sheet_file_rebuilds_only_its_outputs(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    assert pnp(project, "build").returncode == 0
    out = project / "output" / "toy"
    pdfs = sorted(out.rglob("*.pdf"))
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in pdfs}
    units = out / "aids" / "units.pdf"
    sheet = project / "sheets" / "units.yaml"
    sheet.write_text(sheet.read_text().replace("title: Units by element", "title: Units by their element"))
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Units by their element" in pages(units)[0]
    read_me = out / "read-me-first.pdf"  # it lists every file of the game by its title
    assert "Units by their element" in " ".join(pages(read_me))
    for path in pdfs:
        same = (path.stat().st_mtime_ns, path.read_bytes()) == before[path]
        assert same == (path not in (units, read_me)), path  # only the changed sheet's PDF is rewritten
    # setup.yaml is included by campaign.yaml: its outputs and the booklet, nothing else
    setup = project / "sheets" / "setup.yaml"
    setup.write_text(setup.read_text().replace("Setup steps", "Steps of the setup"))
    before = {p: p.stat().st_mtime_ns for p in pdfs}
    assert pnp(project, "build").returncode == 0
    rewritten = {p.relative_to(out).as_posix() for p in pdfs if p.stat().st_mtime_ns != before[p]}
    assert rewritten == {"setup/first-blood.pdf", "setup/high-tide.pdf", "campaign-the-long-war.pdf"}


def test_generic_sheet_splits_long_values_and_locates_at_the_record(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    notes = project / "cards" / "notes.json"
    long_note = {"kind": "toy.note", "id": "long-note", "name": "Long note", "text": "Long words here. " * 600,
                 "see": [f"entry {i:04d}" for i in range(1000)]}  # fmt: skip
    notes.write_text(notes.read_text().rstrip().rstrip("]") + ",\n" + json.dumps(long_note) + "\n]\n")
    checked = pnp(project, "check")
    assert checked.returncode == 0, checked.stdout  # the generic sheet never fails
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    texts = pages(project / "output" / "toy" / "sheets" / "toy.note.pdf")
    joined = " ".join(texts)
    assert len(texts) >= 4  # the text and the list run over several pages
    assert joined.count("Long words here.") == 600 and "entry 0000" in joined and "entry 0999" in joined
    assert "About imps" in texts[0]
    # a word wider than the page and a name longer than a page: wrapped and split, never an error
    # (were a problem met, it would be located at the record in cards/notes.json, as pnp check does)
    # (6,000 and 12,000 characters: over a page each, as the assertions below make sure; the
    # splitting measures every prefix of such a word, so longer ones only cost time)
    long_note.update(name="Long " + "y" * 6_000, text="x" * 12_000)
    notes.write_text(notes.read_text().rsplit(",\n", 1)[0] + ",\n" + json.dumps(long_note) + "\n]\n")
    checked = pnp(project, "check")
    assert checked.returncode == 0 and "error[" not in checked.stdout, checked.stdout
    assert "<generic" not in checked.stdout + checked.stderr
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    texts = pages(project / "output" / "toy" / "sheets" / "toy.note.pdf")
    assert "".join(texts).count("x") >= 12_000
    assert sum(text.count("x") > 1000 for text in texts) >= 2  # the word runs over pages
    assert sum(text.count("y") > 900 for text in texts) >= 2  # and so does the name


def test_check_caches_what_laying_out_sheets_found(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    scenarios = project / "cards" / "scenarios.json"
    scenarios.write_text(scenarios.read_text().replace("Event number 7:", "Event number 7: " + "very long " * 3000))
    cache = project / "output" / ".pnp-cache" / "sheets"
    from pnp.api import check, open_project
    from pnp.verify.run import CheckOptions

    uncached = check(open_project(project), CheckOptions(render_cache=False))
    assert uncached.errors == 1, uncached.problems
    assert not (project / "output").exists()  # render_cache False: nothing written
    first = pnp(project, "check")
    assert first.returncode == 1 and "error[text-overflow]" in first.stdout
    stored = [json.loads(p.read_text()) for p in sorted(cache.glob("*.json"))]
    assert len(stored) == 5  # one per output: 2 setup sheets, the booklet, the aid, the generic sheet
    found = next(s for s in stored if s["findings"])
    found["findings"][0]["finding"]["message"] = "from the cache"  # proves the second check reads it
    path = next(p for p in sorted(cache.glob("*.json")) if json.loads(p.read_text())["findings"])
    path.write_text(json.dumps(found))
    second = pnp(project, "check")
    assert "error[text-overflow]: from the cache" in second.stdout, second.stdout
    setup = project / "sheets" / "setup.yaml"  # the sheet changed: laid out again
    setup.write_text(setup.read_text().replace("Setup steps", "Steps of the setup"))
    assert pnp(project, "check").stdout == first.stdout


def test_yaml_merge_keys_are_yaml_s_own(tmp_path: Path) -> None:
    """`<<: *anchor` merges a mapping; the mapping's own keys override it; no duplicate-key problem."""
    project = copy_project(tmp_path)
    (project / "sheets" / "merged.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: '{{ name }}'\noutput: '{game}/merged/{id}.pdf'\n"
        "blocks:\n"
        "  - &line {type: text, style: body, text: 'Base line of {{ name }}'}\n"
        "  - <<: *line\n"
        "    text: 'Merged line: strength {{ strength }}'\n"
        "  - <<: [*line, {style: small}]\n"
        "    style: label\n"
    )
    (project / "sheets" / "twice.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: X\nblocks:\n"
        "  - &line {type: text, text: A}\n  - <<: *line\n    text: B\n    text: C\n"
    )
    done = pnp(project, "check")
    problems = [x for x in done.stdout.splitlines() if "error[" in x]
    assert problems == [x for x in problems if x.startswith("sheets/twice.yaml:")], done.stdout
    assert re.search(r"sheets/twice\.yaml:8:5: error\[duplicate-key\]: key 'text' appears twice", done.stdout)
    (project / "sheets" / "twice.yaml").unlink()
    assert pnp(project, "build").returncode == 0
    text = " ".join(pages(project / "output" / "toy" / "merged" / "ember-imp.pdf"))
    assert "Base line of Ember Imp" in text and "Merged line: strength 2" in text
    assert text.count("Base line of Ember Imp") == 2  # the third block: merged, with its own style


def test_plain_check_finds_a_template_failing_for_one_record(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    (project / "sheets" / "odd.yaml").write_text(
        "document: per-record\nkind: toy.unit\ntitle: '{{ name }}'\noutput: '{game}/odd/{id}.pdf'\n"
        "blocks:\n  - type: text\n    text: 'Ratio {{ 10 // (strength - 2) }}'\n"
    )
    checked = pnp(project, "check")  # no --render: check lays sheets out by default
    lines = [x for x in checked.stdout.splitlines() if "error[" in x]
    assert checked.returncode == 1 and len(lines) == 1, checked.stdout
    assert lines[0].startswith("sheets/odd.yaml:7:11: error[sheet-error]: record 'ember-imp': template failed")
    built = pnp(project, "build")
    assert built.returncode == 1 and lines[0] in built.stdout.splitlines(), built.stdout
    assert not (project / "output" / "toy" / "odd" / "ember-imp.pdf").exists()
    assert not (project / "output" / "toy" / "odd" / "tide-crab.pdf").exists()  # a failed build writes nothing
    assert pnp(project, "check").stdout == checked.stdout  # from the cache: the same


def test_a_block_over_the_item_limit_is_one_error_and_draws_nothing(tmp_path: Path) -> None:
    """A block of more than 10,000 items (here rows made by `range`) is one located error; the rows
    are not laid out (10,000 of them took a minute to lay out and build no file anyway)."""
    project = copy_project(tmp_path)
    (project / "sheets" / "long.yaml").write_text(
        "document: collection\nkinds: [toy.unit]\ntitle: Long\nblocks:\n"
        "  - type: table\n    rows: range(10001) | list\n    as: n\n    columns:\n      - {header: N, value: '{{ n }}'}\n",
        encoding="utf-8",
    )
    done = pnp(project, "check")
    assert done.returncode == 1, done.stdout
    lines = [x for x in done.stdout.splitlines() if x.startswith("sheets/long.yaml")]
    assert lines == [
        "sheets/long.yaml:6:11: error[sheet-error]: 10001 items; a block shows at most 10000: narrow the list (the document's `where`, or a slice) (at /blocks/0/rows)"
    ], lines
