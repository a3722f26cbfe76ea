"""Setup sheets, the campaign booklet and reference aids (pnp/sheets), built from the real cards/.

The A4 sheets are those `pnp build` wrote for the bundled games (built once per test run for the
content tests: tests/content/conftest.py); the Letter ones are built here by
pnp.sheets.build.build_sheets itself, and a copy of them is built again, incrementally and forced.

Text is read back with pdfplumber in content-stream order (use_text_flow), so a name wrapped
inside a table cell still reads as one phrase; whitespace is collapsed before comparing.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bundledkit import Bundled, read_pages
from pypdf import PdfReader

from pnp.core.output import Manifest
from pnp.project.config import load_project
from pnp.project.loaded import LoadedProject, load_project_records
from pnp.rules.xrefs import values_at
from pnp.sheets import build as sheets

ROOT = Path(__file__).resolve().parents[2]
A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)


def load() -> LoadedProject:
    return load_project_records(load_project(explicit=ROOT))


@pytest.fixture(scope="module")
def loaded() -> LoadedProject:
    return load()


@pytest.fixture(scope="module")
def built(bundled: Bundled) -> tuple[Path, list[Path]]:
    """The output of `pnp build` of the bundled games, and the sheet files in it (every PDF that is
    neither a kind's cards, output/<game>/<kind>.pdf, nor a game's, output/<game>.pdf, nor its read-me
    page, output/<game>/read-me-first.pdf, nor an export)."""
    out = bundled.output
    cards = {p for p in out.glob("*/*.pdf") if p.stem.count(".") == 1} | set(out.glob("*.pdf"))
    cards |= set(out.glob("*/read-me-first.pdf"))
    sheet_files = [p for p in sorted(out.rglob("*.pdf")) if p not in cards and "printshop" not in p.parts]
    return out, sheet_files


@pytest.fixture(scope="module")
def letter(tmp_path_factory: pytest.TempPathFactory, loaded: LoadedProject) -> tuple[Path, list[sheets.SheetResult]]:
    out = tmp_path_factory.mktemp("letter")
    return out, sheets.build_sheets(loaded, out, "letter", Manifest(out))


@pytest.fixture(scope="module")
def rebuilt(letter: tuple[Path, list[sheets.SheetResult]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """On a copy of the Letter sheets: a build with nothing changed, one after a scenario changed,
    one after a record the sheets print by name changed, then one of the real records again (what
    the edits rebuilt is built a second time, in another state of the output folder)."""
    first, _ = letter
    out = tmp_path_factory.mktemp("rebuilt") / "output"
    shutil.copytree(first, out)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.pdf")}
    unchanged = sheets.build_sheets(load(), out, "letter", Manifest(out))
    unchanged_stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.pdf")}
    changed = load()
    by_id(changed, "hard-place")["victory"][0]["text"] = "Defeat both Enemy Armies before round 9."
    scenario = sheets.build_sheets(changed, out, "letter", Manifest(out))
    hard_place = pdf_text(out / "homm3-conflux/setup/hard-place.pdf")
    renamed = load()
    by_id(renamed, "magic-arrow")["name"] = "Magic Arrow (renamed)"
    name = sheets.build_sheets(renamed, out, "letter", Manifest(out))
    restored = sheets.build_sheets(load(), out, "letter", Manifest(out))
    return {
        "out": out,
        "stamps": (stamps, unchanged_stamps),
        "unchanged": unchanged,
        "scenario": scenario,
        "hard-place": hard_place,
        "name": name,
        "restored": restored,
    }


def flat(text: str) -> str:
    return " ".join(text.split())


def page_texts(path: Path, bare: bool = False) -> list[str]:
    """The text of each page; `bare` leaves out the header (first line) and footer (last line).
    Read once per process (bundledkit.read_pages), unless the file changed since."""
    pages = [page.flow.splitlines() for page in read_pages(path)]
    return [flat(" ".join(lines[1:-1] if bare else lines)) for lines in pages]


def pdf_text(path: Path) -> str:
    """The whole document's text without headers and footers, so text running across pages reads on."""
    return " ".join(page_texts(path, bare=True))


def records(loaded: LoadedProject, kind: str) -> list[dict[str, Any]]:
    return [record for _f, _i, record in loaded.records(kind)]


def referenced(loaded: LoadedProject, record: dict[str, Any], skip: str = "") -> dict[str, str]:
    """id -> name of every record this record references (the schema's x-ref sites), but those under `skip`."""
    out: dict[str, str] = {}
    for site in loaded.schemas.sites(record["kind"]):
        if site.what != "ref" or (skip and site.path[:1] == (skip,)):
            continue
        for _pointer, value in values_at(record, site.path, ""):
            if site.by != "id":
                value = loaded.index.by_field(site.kinds, site.by)[value]
            _kind, record_file, index = loaded.index.first[value]
            out[value] = record_file.records[index]["name"]
    return out


def text_of(loaded: LoadedProject, node: Any) -> list[str]:
    """Every rule / effect text under a node (the 'text' fields of rules)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "text" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(text_of(loaded, value))
    elif isinstance(node, list):
        for item in node:
            found.extend(text_of(loaded, item))
    return found


ICONS = json.loads((Path(__file__).resolve().parents[2] / "layouts" / "icons.json").read_text(encoding="utf-8"))[
    "icons"
]


def plain(text: str) -> str:
    """Record text as printed: markup removed, an icon token as a sheet draws it (its image, no
    text; an icon without an image: its label, on a pill)."""
    text = re.sub(
        r"\{([a-z0-9-]+)\}",
        lambda m: (
            f" {icon['label']} " if "label" in (icon := ICONS.get(m.group(1), {})) and "image" not in icon else " "
        ),
        text,
    )
    return flat(text.replace("*", "").replace("_", " "))


HOMM3_SCENARIOS = [r["id"] for r in records(load(), "homm3.scenario")]
MK_SCENARIOS = [r["id"] for r in records(load(), "mk.scenario")]


def by_id(loaded: LoadedProject, rid: str) -> dict[str, Any]:
    _kind, record_file, index = loaded.index.first[rid]
    record: dict[str, Any] = record_file.records[index]
    return record


# --------------------------------------------------------------------------- every scenario


def test_every_scenario_yields_a_sheet(loaded: LoadedProject, built: tuple[Path, list[Path]], bundled: Bundled) -> None:
    out, sheet_files = built
    assert len(HOMM3_SCENARIOS) >= 7 and len(MK_SCENARIOS) >= 10
    build = bundled.said["build"]
    assert "error[" not in build["stdout"]  # warnings only (component lists the seeds list in part)
    wrote = set(re.findall(r"^wrote (\S+)", build["stderr"], re.MULTILINE))
    for game, rids in (("homm3-conflux", HOMM3_SCENARIOS), ("mage-knight", MK_SCENARIOS)):
        for rid in rids:
            path = out / game / "setup" / f"{rid}.pdf"
            assert path in sheet_files, rid
            assert f"output/{game}/setup/{rid}.pdf" in wrote, rid
    for campaign in records(loaded, "homm3.campaign"):
        assert out / "homm3-conflux" / f"campaign-{campaign['id']}.pdf" in sheet_files
    assert all(f"output/{p.relative_to(out).as_posix()}" in wrote for p in sheet_files)


HOMM3_SECTIONS = {
    "map": "Map tiles",
    "setup": "Player setup",
    "hero_placement": "Hero placement",
    "ai": "AI heroes",
    "defenders": "Defenders",
    "neutral_decks_keep": "Neutral Unit decks",
    "additional_rules": "Additional rules",
    "timed_events": "Timed events",
    "triggers": "Triggers",
    "victory": "Victory",
    "defeat": "Defeat",
    "time_out": "Time limit",
}


@pytest.mark.parametrize("rid", HOMM3_SCENARIOS)
def test_homm3_sheet_sections_and_names(rid: str, loaded: LoadedProject, built: tuple[Path, list[Path]]) -> None:
    out, _ = built
    record = by_id(loaded, rid)
    text = pdf_text(out / "homm3-conflux" / "setup" / f"{rid}.pdf")
    assert text.startswith(record["name"])  # the sheet's title
    expected = [heading for key, heading in HOMM3_SECTIONS.items() if record.get(key)]
    expected.append("Win and lose conditions")
    if record.get("mode_rules"):
        expected.append("mode rules")
    for heading in expected:
        assert heading in text, f"{rid}: no section {heading!r}"
    # facts: mode, players, length (per difficulty where it varies)
    assert {"alliance": "Alliance", "clash": "Clash", "cooperative": "Cooperative", "campaign": "Campaign"}[
        record["mode"]
    ] in text
    if "length_rounds" in record:
        assert f"{record['length_rounds']} rounds" in text
    for difficulty, rounds in record.get("length_by_difficulty", {}).items():
        assert f"{difficulty.title()} {rounds}" in text
    # every reference by name, never by id
    names = referenced(loaded, record)
    assert names, rid
    for ref, name in names.items():
        assert name in text, f"{rid}: {ref} printed without its name {name!r}"
        if ref.lower() not in name.lower():
            assert not re.search(rf"(?<![\w-]){re.escape(ref)}(?![\w-])", text), f"{rid}: id {ref!r} printed"
    # map tiles by code, timed events by round, and every rule text
    for group in record.get("map", {}).get("tiles", []):
        for pick in group.get("picks", []):
            for tile in pick.get("tiles", []):
                assert str(by_id(loaded, tile)["code"]) in text
            for pool in pick.get("pools", []):
                if "codes_printed" in pool:  # the codes as the rulebook prints them for this pool
                    assert f"({pool['codes_printed']})" in text
                    continue
                for tile in pool["tiles"]:
                    assert str(by_id(loaded, tile)["code"]) in text
    for event in record.get("timed_events", []):
        assert ", ".join(str(r) for r in event["rounds"]) in text
    for rule in text_of(loaded, record):  # a tile code may go in before the full stop: "... discovered (S3)."
        assert plain(rule).removesuffix(".") in text, f"{rid}: rule text missing: {rule[:60]}"


MK_VARIANT_SECTIONS = {"setup": "Setup", "scenario_end": "Scenario end", "scoring": "Scoring"}


@pytest.mark.parametrize("rid", MK_SCENARIOS)
def test_mage_knight_sheet_has_every_variant(rid: str, loaded: LoadedProject, built: tuple[Path, list[Path]]) -> None:
    out, _ = built
    record = by_id(loaded, rid)
    pages = page_texts(out / "mage-knight" / "setup" / f"{rid}.pdf")
    bare = page_texts(out / "mage-knight" / "setup" / f"{rid}.pdf", bare=True)
    text = " ".join(bare)
    names = [v["name"] for v in record["variants"]]
    # each variant starts on its own page, in book order, with its name in the header
    starts = [next(i for i, page in enumerate(pages) if page.startswith(name)) for name in names]
    assert starts == sorted(starts) and starts[0] == 0
    bounds = [*starts, len(pages)]
    for v, variant in enumerate(record["variants"]):
        part = " ".join(bare[bounds[v] : bounds[v + 1]])
        expected = [heading for key, heading in MK_VARIANT_SECTIONS.items() if variant.get(key)]
        if record.get("special_rules") or variant.get("special_rules"):
            expected.append("Special rules")
        if record.get("hero_options"):
            expected.append("Hero options")
        if record.get("optional_variants"):
            expected.append("Optional variants")
        for heading in expected:
            assert heading in part, f"{variant['name']}: no section {heading!r}"
        length = variant["length"]["rounds"]
        assert f"{length} Round" in part
        for setup in variant.get("setup", []):
            assert str(setup.get("countryside_tiles", "")) in part
        for rule in record.get("special_rules", []) + variant.get("special_rules", []):
            assert plain(rule["text"]) in part
    # the records' own cross-reference list ("references") is not printed (round 3b N6): the sheet names
    # what it needs in its own sentences; every other reference prints by name
    assert "Components named in this scenario" not in text
    for ref, name in referenced(loaded, record, skip="references").items():  # sites print in lower case
        assert name.lower() in text.lower(), f"{rid}: {ref} printed without its name {name!r}"
    for name in [by_id(loaded, h)["name"] for h in record.get("references", {}).get("horsemen", [])]:
        assert name in text, f"{rid}: Horseman {name!r} not named"


def test_page_headers_and_footers(loaded: LoadedProject, built: tuple[Path, list[Path]]) -> None:
    out, _ = built
    record = by_id(loaded, "troubled-walking-on-clouds")
    pages = page_texts(out / "homm3-conflux" / "setup" / "troubled-walking-on-clouds.pdf")
    assert len(pages) >= 2  # long sheets flow onto further pages
    for number, page in enumerate(pages, 1):
        assert page.startswith(record["name"]), "title repeated on every page"
        assert page.endswith(f"page {number} of {len(pages)}")
        assert "Heroes of Might and Magic III: The Board Game - Conflux" in page  # the game's title (pnp.toml)


def test_campaign_booklet_lists_its_scenarios_in_order(loaded: LoadedProject, built: tuple[Path, list[Path]]) -> None:
    out, _ = built
    (campaign,) = records(loaded, "homm3.campaign")
    assert len(campaign["scenarios"]) == 4
    path = out / "homm3-conflux" / f"campaign-{campaign['id']}.pdf"
    pages = page_texts(path)
    contents = flat(read_pages(path)[0].text)  # by position: an entry and its page on one line
    assert "Contents" in contents
    names = [by_id(loaded, s)["name"] for s in campaign["scenarios"]]
    positions = [contents.index(f"{i}. {name}") for i, name in enumerate(names, 1)]
    assert positions == sorted(positions)
    # the table of contents points at the page where each scenario sheet starts
    for i, name in enumerate(names, 1):
        listed = int(re.search(rf"{i}\. {re.escape(name)}[ .]*?(\d+)", contents).group(1))  # type: ignore[union-attr]
        assert pages[listed - 1].startswith(f"{i}. {name}")
        assert f"page {listed} of {len(pages)}" in pages[listed - 1]
    body = " ".join(pages[1:])
    assert [body.index(f"{i}. {name}") for i, name in enumerate(names, 1)] == sorted(
        body.index(f"{i}. {name}") for i, name in enumerate(names, 1)
    )
    for rule in campaign["rules"]:
        assert rule["title"] in " ".join(pages)  # the rules start on the cover, under the contents (round 3b)


# --------------------------------------------------------------------------- aids


def test_aids_show_every_record(loaded: LoadedProject, built: tuple[Path, list[Path]]) -> None:
    out, _ = built
    aids = {
        "homm3-conflux/aids/combat-tokens.pdf": ["homm3.combat-token"],
        "homm3-conflux/aids/map-locations-and-tokens.pdf": ["homm3.map-location", "homm3.token"],
        "homm3-conflux/aids/units-and-cards.pdf": [
            "homm3.unit",
            "homm3.neutral-unit",
            "homm3.ability",
            "homm3.town-building",
        ],
        "homm4/aids/reference-tables.pdf": ["homm4.table"],
        "mage-knight/aids/possessed-enemies.pdf": ["mk.possessed-enemy"],
        # round 4: the Apocalypse Dragon aid includes faction-tokens.yaml
        "mage-knight/aids/apocalypse-dragon.pdf": ["mk.faction", "mk.faction-token"],
        "mage-knight/aids/quests.pdf": ["mk.quest", "mk.quest-marker"],
    }
    for name, kinds in aids.items():
        text = pdf_text(out / name)
        for kind in kinds:
            found = records(loaded, kind)
            assert found, kind
            for record in found:
                assert record["name"] in text, f"{name}: {record['name']}"
                for ref_name in referenced(loaded, record).values():
                    assert ref_name in text, f"{name}: {record['id']} names {ref_name}"
                for key in ("effect", "rule", "placed_when", "removed_when", "faq"):
                    if isinstance(record.get(key), str):
                        assert plain(record[key]) in text, f"{name}: {record['id']} {key}"
    tables = pdf_text(out / "homm4/aids/reference-tables.pdf")
    for record in records(loaded, "homm4.table"):
        for column in record["table"]["columns"]:
            assert column in tables
        for row in record["table"]["rows"]:
            for cell in row:
                if cell is not None:
                    assert plain(str(cell)) in tables, (record["id"], cell)
    possessed = pdf_text(out / "mage-knight/aids/possessed-enemies.pdf")
    total = sum(r.get("copies", 1) for r in records(loaded, "mk.possessed-enemy"))
    assert f"The box holds {total} possessed enemy tokens" in possessed


def test_paper_sizes(built: tuple[Path, list[Path]], letter: tuple[Path, list[sheets.SheetResult]]) -> None:
    _, a4_files = built
    _, letter_results = letter
    for paths, size in ((a4_files, A4), ([r.path for r in letter_results], LETTER)):
        assert len(paths) >= 30
        for path in paths:
            for page in PdfReader(path).pages:
                box = page.mediabox
                assert (float(box.width), float(box.height)) == pytest.approx(size, abs=0.01), path


def test_fonts_are_embedded_dejavu_only(
    built: tuple[Path, list[Path]], letter: tuple[Path, list[sheets.SheetResult]]
) -> None:
    seen: set[str] = set()
    for path in [*built[1], *(r.path for r in letter[1])]:
        for page in PdfReader(path).pages:
            fonts = page["/Resources"].get_object()["/Font"].get_object()
            for ref in fonts.values():
                font = ref.get_object()
                name = str(font["/BaseFont"])
                seen.add(name.split("+")[-1])
                descriptor = font["/FontDescriptor"].get_object()
                assert "/FontFile2" in descriptor, f"{path.name}: {name} not embedded"
    assert seen and all(name.startswith("DejaVuSans") for name in seen), seen


def test_letter_sheets_are_written_without_problems(letter: tuple[Path, list[sheets.SheetResult]]) -> None:
    out, results = letter
    by_path = {r.path: r for r in results}
    for game, rids in (("homm3-conflux", HOMM3_SCENARIOS), ("mage-knight", MK_SCENARIOS)):
        for rid in rids:
            assert by_path[out / game / "setup" / f"{rid}.pdf"].written, rid
    assert all(r.problems == () for r in results), [r.problems for r in results if r.problems]


def test_letter_and_a4_give_the_same_files(
    built: tuple[Path, list[Path]], letter: tuple[Path, list[sheets.SheetResult]]
) -> None:
    """build_sheets itself (Letter) and `pnp build` (A4) write the same sheet files."""
    (a4_out, a4_files), (letter_out, results) = built, letter
    assert sorted(p.relative_to(a4_out) for p in a4_files) == sorted(r.path.relative_to(letter_out) for r in results)


def test_builds_are_byte_identical(letter: tuple[Path, list[sheets.SheetResult]], rebuilt: dict[str, Any]) -> None:
    """After three incremental builds, the real records again: the sheets the edits rebuilt are built
    once more and every file has the first build's bytes (a forced rebuild of every sheet is
    tests/test_sheets.py's, on a fixture: here it would cost a whole sheet build)."""
    out, results = letter
    again: list[sheets.SheetResult] = rebuilt["restored"]
    assert [r.path.relative_to(rebuilt["out"]) for r in again] == [r.path.relative_to(out) for r in results]
    redrawn = {r.path.name for r in again if r.written}
    assert "troubled-walking-on-clouds.pdf" in redrawn  # Magic Arrow's name back (hard-place.pdf: by the third)
    assert "hard-place.pdf" in {r.path.name for r in rebuilt["name"] if r.written}
    for first, second in zip(results, again, strict=True):
        assert first.path.read_bytes() == second.path.read_bytes(), first.path.name


def test_second_build_skips_unchanged_and_rebuilds_changed(rebuilt: dict[str, Any]) -> None:
    out = rebuilt["out"]
    assert (out / ".pnp-manifest.json").is_file()
    stamps, unchanged_stamps = rebuilt["stamps"]
    assert stamps and unchanged_stamps == stamps
    assert [r.written for r in rebuilt["unchanged"]] == [False] * len(rebuilt["unchanged"])
    # a change to one scenario rebuilds its sheet, the booklet, the units-and-cards aid (which reads
    # every scenario through records_of) and the factions aid (which lists the campaign scenarios
    # each map tile is in), nothing else
    written = {r.path.name for r in rebuilt["scenario"] if r.written}
    assert written == {"hard-place.pdf", "campaign-masters-of-the-elements.pdf", "units-and-cards.pdf", "factions.pdf"}
    assert "before round 9" in rebuilt["hard-place"]
    # a change to a referenced record (a name) rebuilds the sheets that print it
    rebuilt_names = {r.path.name for r in rebuilt["name"] if r.written}
    assert "troubled-walking-on-clouds.pdf" in rebuilt_names and "one-bad-day.pdf" not in rebuilt_names


def test_unknown_paper_is_refused(loaded: LoadedProject, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a4"):
        sheets.build_sheets(loaded, tmp_path, "b7", Manifest(tmp_path))
    assert not any(tmp_path.iterdir())
