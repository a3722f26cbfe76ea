"""Setup sheets, the campaign booklet and reference aids (pnp/sheets.py), built from the real cards/.

Text is read back with pdfplumber in content-stream order (use_text_flow), so a name wrapped
inside a table cell still reads as one phrase; whitespace is collapsed before comparing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
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
def built(tmp_path_factory: pytest.TempPathFactory, loaded: LoadedProject) -> tuple[Path, list[sheets.SheetResult]]:
    out = tmp_path_factory.mktemp("a4")
    return out, sheets.build_sheets(loaded, out, "a4", Manifest(out))


@pytest.fixture(scope="module")
def letter(tmp_path_factory: pytest.TempPathFactory, loaded: LoadedProject) -> tuple[Path, list[sheets.SheetResult]]:
    out = tmp_path_factory.mktemp("letter")
    return out, sheets.build_sheets(loaded, out, "letter", Manifest(out))


def flat(text: str) -> str:
    return " ".join(text.split())


def page_texts(path: Path, bare: bool = False) -> list[str]:
    """The text of each page; `bare` leaves out the header (first line) and footer (last line)."""
    with pdfplumber.open(path) as pdf:
        pages = [(page.extract_text(use_text_flow=True) or "").splitlines() for page in pdf.pages]
    return [flat(" ".join(lines[1:-1] if bare else lines)) for lines in pages]


def pdf_text(path: Path) -> str:
    """The whole document's text without headers and footers, so text running across pages reads on."""
    return " ".join(page_texts(path, bare=True))


def records(loaded: LoadedProject, kind: str) -> list[dict[str, Any]]:
    return [record for _f, _i, record in loaded.records(kind)]


def referenced(loaded: LoadedProject, record: dict[str, Any]) -> dict[str, str]:
    """id -> name of every record this record references (the schema's x-ref sites)."""
    out: dict[str, str] = {}
    for site in loaded.schemas.sites(record["kind"]):
        if site.what != "ref":
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


def plain(text: str) -> str:
    """Record text as printed: markup and icon tokens removed."""
    text = re.sub(r"\{[a-z0-9-]+\}", "", text)
    return flat(text.replace("*", "").replace("_", " "))


HOMM3_SCENARIOS = [r["id"] for r in records(load(), "homm3.scenario")]
MK_SCENARIOS = [r["id"] for r in records(load(), "mk.scenario")]


def by_id(loaded: LoadedProject, rid: str) -> dict[str, Any]:
    _kind, record_file, index = loaded.index.first[rid]
    record: dict[str, Any] = record_file.records[index]
    return record


# --------------------------------------------------------------------------- every scenario


def test_every_scenario_yields_a_sheet(loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]) -> None:
    out, results = built
    assert len(HOMM3_SCENARIOS) >= 7 and len(MK_SCENARIOS) >= 10
    by_path = {r.path: r for r in results}
    for rid in HOMM3_SCENARIOS:
        path = out / "homm3-conflux" / "setup" / f"{rid}.pdf"
        assert path.is_file(), rid
        assert by_path[path].written and by_path[path].problems == ()
    for rid in MK_SCENARIOS:
        path = out / "mage-knight" / "setup" / f"{rid}.pdf"
        assert path.is_file(), rid
        assert by_path[path].written and by_path[path].problems == ()
    for campaign in records(loaded, "homm3.campaign"):
        assert (out / "homm3-conflux" / f"campaign-{campaign['id']}.pdf").is_file()
    assert all(r.problems == () for r in results), [r.problems for r in results if r.problems]


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
def test_homm3_sheet_sections_and_names(
    rid: str, loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]
) -> None:
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
    for rule in text_of(loaded, record):
        assert plain(rule) in text, f"{rid}: rule text missing: {rule[:60]}"


MK_VARIANT_SECTIONS = {"setup": "Setup", "scenario_end": "Scenario end", "scoring": "Scoring"}


@pytest.mark.parametrize("rid", MK_SCENARIOS)
def test_mage_knight_sheet_has_every_variant(
    rid: str, loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]
) -> None:
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
        if record.get("references"):
            expected.append("Components named in this scenario")
        for heading in expected:
            assert heading in part, f"{variant['name']}: no section {heading!r}"
        length = variant["length"]["rounds"]
        assert f"{length} Round" in part
        for setup in variant.get("setup", []):
            assert str(setup.get("countryside_tiles", "")) in part
        for rule in record.get("special_rules", []) + variant.get("special_rules", []):
            assert plain(rule["text"]) in part
    for ref, name in referenced(loaded, record).items():
        assert name in text, f"{rid}: {ref} printed without its name {name!r}"


def test_page_headers_and_footers(loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]) -> None:
    out, _ = built
    record = by_id(loaded, "troubled-walking-on-clouds")
    pages = page_texts(out / "homm3-conflux" / "setup" / "troubled-walking-on-clouds.pdf")
    assert len(pages) >= 2  # long sheets flow onto further pages
    for number, page in enumerate(pages, 1):
        assert page.startswith(record["name"]), "title repeated on every page"
        assert page.endswith(f"page {number} of {len(pages)}")
        assert loaded.project.game("homm3.scenario").title in page


def test_campaign_booklet_lists_its_scenarios_in_order(
    loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]
) -> None:
    out, _ = built
    (campaign,) = records(loaded, "homm3.campaign")
    assert len(campaign["scenarios"]) == 4
    path = out / "homm3-conflux" / f"campaign-{campaign['id']}.pdf"
    pages = page_texts(path)
    with pdfplumber.open(path) as pdf:  # in reading position: each entry and its page number on one line
        contents = flat(pdf.pages[0].extract_text() or "")
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
        assert rule["title"] in body


# --------------------------------------------------------------------------- aids


def test_aids_show_every_record(loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]]) -> None:
    out, _ = built
    aids = {
        "homm3-conflux/aids/combat-tokens.pdf": ["homm3.combat-token"],
        "homm3-conflux/aids/map-locations-and-tokens.pdf": ["homm3.map-location", "homm3.token"],
        "homm4/aids/reference-tables.pdf": ["homm4.table"],
        "mage-knight/aids/possessed-enemies.pdf": ["mk.possessed-enemy"],
        "mage-knight/aids/faction-tokens.pdf": ["mk.faction", "mk.faction-token"],
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
    assert f"{total} tokens in all" in possessed


def test_paper_sizes(
    built: tuple[Path, list[sheets.SheetResult]], letter: tuple[Path, list[sheets.SheetResult]]
) -> None:
    for (_out, results), size in ((built, A4), (letter, LETTER)):
        assert results
        for result in results:
            for page in PdfReader(result.path).pages:
                box = page.mediabox
                assert (float(box.width), float(box.height)) == pytest.approx(size, abs=0.01), result.path


def test_fonts_are_embedded_dejavu_only(built: tuple[Path, list[sheets.SheetResult]]) -> None:
    out, results = built
    seen: set[str] = set()
    for result in results:
        for page in PdfReader(result.path).pages:
            fonts = page["/Resources"].get_object()["/Font"].get_object()
            for ref in fonts.values():
                font = ref.get_object()
                name = str(font["/BaseFont"])
                seen.add(name.split("+")[-1])
                descriptor = font["/FontDescriptor"].get_object()
                assert "/FontFile2" in descriptor, f"{result.path.name}: {name} not embedded"
    assert seen and all(name.startswith("DejaVuSans") for name in seen), seen


def test_builds_are_byte_identical(
    loaded: LoadedProject, built: tuple[Path, list[sheets.SheetResult]], tmp_path: Path
) -> None:
    out, results = built
    again = sheets.build_sheets(load(), tmp_path, "a4", Manifest(tmp_path))
    assert [r.path.relative_to(tmp_path) for r in again] == [r.path.relative_to(out) for r in results]
    for first, second in zip(results, again, strict=True):
        assert first.path.read_bytes() == second.path.read_bytes(), first.path.name


def test_second_build_skips_unchanged_and_rebuilds_changed(
    built: tuple[Path, list[sheets.SheetResult]], tmp_path: Path
) -> None:
    out, results = built
    assert (out / ".pnp-manifest.json").is_file()
    stamps = {r.path: r.path.stat().st_mtime_ns for r in results}
    second = sheets.build_sheets(load(), out, "a4", Manifest(out))
    assert [r.written for r in second] == [False] * len(results)
    assert {r.path: r.path.stat().st_mtime_ns for r in second} == stamps
    # a change to one scenario rebuilds its sheet and the booklet, nothing else
    changed = load()
    by_id(changed, "hard-place")["victory"][0]["text"] = "Defeat both Enemy Armies before round 9."
    third = sheets.build_sheets(changed, out, "a4", Manifest(out))
    written = {r.path.name for r in third if r.written}
    assert written == {"hard-place.pdf", "campaign-masters-of-the-elements.pdf"}
    assert "before round 9" in pdf_text(out / "homm3-conflux/setup/hard-place.pdf")
    # a change to a referenced record (a name) rebuilds the sheets that print it
    renamed = load()
    by_id(renamed, "magic-arrow")["name"] = "Magic Arrow (renamed)"
    fourth = sheets.build_sheets(renamed, out, "a4", Manifest(out))
    rebuilt = {r.path.name for r in fourth if r.written}
    assert "troubled-walking-on-clouds.pdf" in rebuilt and "one-bad-day.pdf" not in rebuilt
    # force rebuilds everything; restore the fixture's files for the other tests
    final = sheets.build_sheets(load(), out, "a4", Manifest(out), force=True)
    assert all(r.written for r in final)


def test_unknown_paper_is_refused(loaded: LoadedProject, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a4"):
        sheets.build_sheets(loaded, tmp_path, "b7", Manifest(tmp_path))
    assert not any(tmp_path.iterdir())
