"""`pnp watch` redraws what an edit touches and nothing else: each round's changed cards and the
faces it draws (Preview.faces_drawn), on a real watcher (pnp.live.watch.Watcher) over a real project.

tests/watch_project: two card records (cards.json) and two tokens (tokens.json), with a third
token file written as CSV here, so that an edit of a spreadsheet is tried too.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from pnp.live.watch import Watcher, WatchOptions

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def watcher(tmp_path: Path) -> Watcher:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "watch_project", project, ignore=shutil.ignore_patterns("output"))
    (project / "cards" / "more.csv").write_text("kind,id,name\ndemo.token,moon,Moon\ndemo.token,sun,Sun\n")
    found = Watcher(project / "pnp.toml", WatchOptions(build=False), io.StringIO())
    found.round()
    return found


def round_of(watcher: Watcher, *paths: Path) -> tuple[tuple[str, ...], int]:
    """The cards a round marks changed, and the faces it draws."""
    before = watcher.preview.faces_drawn
    watcher.round(list(paths))
    return watcher.preview.snapshot.changed, watcher.preview.faces_drawn - before


def test_one_json_edit_redraws_that_card_only(watcher: Watcher) -> None:
    cards = watcher.project.root / "cards" / "tokens.json"
    records = json.loads(cards.read_text())
    records[1]["name"] = "Shooting star"
    cards.write_text(json.dumps(records))
    assert round_of(watcher, cards) == (("demo.token:star",), 1)


def test_one_csv_row_edited_redraws_that_row_only(watcher: Watcher) -> None:
    sheet = watcher.project.root / "cards" / "more.csv"
    sheet.write_text("kind,id,name\ndemo.token,moon,Moon\ndemo.token,sun,The Sun\n")
    assert round_of(watcher, sheet) == (("demo.token:sun",), 1)


def test_a_sheet_file_or_an_unrelated_file_redraws_no_card(watcher: Watcher) -> None:
    root = watcher.project.root
    (root / "sheets").mkdir()
    sheet = root / "sheets" / "aid.yaml"
    sheet.write_text("title: An aid\nblocks: []\n")
    notes = root / "notes.png"
    notes.write_bytes(b"\x89PNG\r\n\x1a\n not an image any face draws")
    assert round_of(watcher, sheet, notes) == ((), 0)


def test_a_layout_edit_redraws_its_kind_only(watcher: Watcher) -> None:
    layout_path = watcher.project.root / "layouts" / "demo-token.json"
    layout = json.loads(layout_path.read_text())
    layout["front"]["background"] = "#102030"
    layout_path.write_text(json.dumps(layout))
    changed, drawn = round_of(watcher, layout_path)
    tokens = {c.key for c in watcher.preview.snapshot.cards if c.kind == "demo.token"}
    assert set(changed) == tokens and len(tokens) == 4
    assert drawn == sum(len(c.sides) for c in watcher.preview.snapshot.cards if c.kind == "demo.token")


def test_a_round_writes_the_kind_pdfs_and_the_combined_file_follows_when_saves_pause(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "watch_project", project, ignore=shutil.ignore_patterns("output"))
    watcher = Watcher(project / "pnp.toml", WatchOptions(build=True), io.StringIO())
    watcher.round()
    cards_pdf, combined = project / "output" / "demo" / "demo.card.pdf", project / "output" / "demo.pdf"
    assert cards_pdf.is_file() and not combined.exists()  # the round: each kind's own PDF, in place
    assert watcher.rest_pending and not watcher.rest_due()  # a save may follow at once
    watcher.round_ended -= 60  # the saves paused
    assert watcher.rest_due()
    watcher.build_rest()
    assert combined.is_file() and not watcher.rest_pending
    stamp = combined.stat().st_mtime_ns
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text())
    records[0]["name"] = "Renamed"
    cards.write_text(json.dumps(records))
    watcher.round([cards])
    assert combined.stat().st_mtime_ns == stamp  # not during the round
    watcher.build_rest()
    assert combined.stat().st_mtime_ns != stamp  # once the saves pause
