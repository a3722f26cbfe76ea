"""`pnp watch` in a terminal: located problems each round, cleared when fixed, only affected outputs
rebuilt, never stopped by a broken file, Ctrl-C ends it with exit status 130 and no traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pypdf import PdfReader
from watchkit import WatchProcess, copy_fixture, wait_until

SUMMARY = r"^\d+ files, \d+ records: "


def test_watch_reports_clears_rebuilds_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    project = copy_fixture(tmp_path)
    watch = WatchProcess(project)
    try:
        watch.wait_for_line(SUMMARY + "0 errors, 0 warnings$")
        cards_pdf = project / "output" / "demo" / "demo.card.pdf"
        tokens_pdf = project / "output" / "demo" / "demo.token.pdf"
        wait_until(lambda: cards_pdf.is_file() and tokens_pdf.is_file(), what="the first build")
        tokens_stamp = tokens_pdf.stat().st_mtime_ns

        # a half-saved file: one located line, and the watch goes on
        cards = project / "cards" / "cards.json"
        good = cards.read_text()
        start = len(watch.stdout)
        cards.write_text(good[: good.index('"id": "tide"')])
        last_line = good[: good.index('"id": "tide"')].count("\n") + 1
        found = watch.wait_for_line(r"^cards/cards\.json:(\d+):(\d+): error\[json-syntax\]: ", start)
        assert int(found.group(1)) == last_line
        watch.wait_for_line(SUMMARY + "1 error, 0 warnings$", start)

        # a schema problem at its line
        start = len(watch.stdout)
        records = json.loads(good)
        records[1]["cost"] = 12
        cards.write_text(json.dumps(records, indent=2) + "\n")
        cost_line = next(i for i, t in enumerate(cards.read_text().splitlines(), 1) if '"cost": 12' in t)
        watch.wait_for_line(rf"^cards/cards\.json:{cost_line}:\d+: error\[out-of-range\]: ", start)

        # fixed (and a card renamed): cleared, and only that kind's PDF rebuilt
        start = len(watch.stdout)
        records[1]["cost"] = 2
        records[1]["name"] = "Riptide"
        cards.write_text(json.dumps(records, indent=2) + "\n")
        watch.wait_for_line(r"^pnp watch: all problems fixed$", start)
        watch.wait_for_line(SUMMARY + "0 errors, 0 warnings$", start)
        wait_until(lambda: "Riptide" in "".join(p.extract_text() for p in PdfReader(cards_pdf).pages), what="rebuild")
        assert tokens_pdf.stat().st_mtime_ns == tokens_stamp  # the tokens did not change: not rewritten
        assert not any(": error[" in line for line in watch.stdout[start:]), watch.stdout[start:]

        # a broken pnp.toml: one line, then back to normal when it is fixed
        start = len(watch.stdout)
        config = project / "pnp.toml"
        good_config = config.read_text()
        config.write_text(good_config.replace("[project]", "[project"))
        watch.wait_for_line(r"^pnp watch: error: .*pnp\.toml: not valid TOML", start)
        start = len(watch.stdout)
        config.write_text(good_config)
        watch.wait_for_line(SUMMARY + "0 errors, 0 warnings$", start)

        assert watch.interrupt() == 130
        assert not any("Traceback" in line for line in watch.stderr), watch.stderr
        assert watch.stderr[-1] == "pnp watch: stopped"
    finally:
        watch.close()


def test_watch_outside_a_project_is_a_configuration_error(tmp_path: Path) -> None:
    watch = WatchProcess(tmp_path)
    assert watch.process.wait(60) == 2
    watch.wait_for_line(r"^pnp: error: no pnp\.toml in ", stream="stderr")


def test_text_that_does_not_fit_is_listed_until_fixed_without_building(tmp_path: Path) -> None:
    """--no-build: the face drawn after a save reports its overflow, later rounds count it without printing it
    again, nothing is written."""
    project = copy_fixture(tmp_path)
    watch = WatchProcess(project, "--no-build")
    overflow = (
        r"^cards/cards\.json:5:13: error\[text-overflow\]: record 'ember', layout 'demo-card': text of element 'title'"
    )
    try:
        watch.wait_for_line(SUMMARY + "0 errors, 0 warnings$")
        cards, tokens = project / "cards" / "cards.json", project / "cards" / "tokens.json"
        records = json.loads(cards.read_text())
        records[0]["name"] = "A name far too long for the title box of this card"
        start = len(watch.stdout)
        cards.write_text(json.dumps(records, indent=2) + "\n")
        watch.wait_for_line(overflow, start)
        start = len(watch.stdout)
        tokens.write_text(tokens.read_text().replace('"Coin"', '"Gold"'))  # another file: the overflow stays
        watch.wait_for_line(SUMMARY + "1 error, 0 warnings$", start)
        assert not [line for line in watch.stdout[start:] if re.match(overflow, line)]  # counted, not printed again
        start = len(watch.stdout)
        records[0]["name"] = "Ember"
        cards.write_text(json.dumps(records, indent=2) + "\n")
        watch.wait_for_line(r"^pnp watch: all problems fixed$", start)
        assert not (project / "output").exists()
        assert watch.interrupt() == 130
    finally:
        watch.close()
