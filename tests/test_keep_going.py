"""`pnp build --keep-going`: a proof PDF of the valid records while data errors are being fixed."""

from __future__ import annotations

import json
from pathlib import Path

import pdfplumber
import pytest

from tests.runpnp import copy_project, pnp


def page_text(path: Path) -> str:
    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


@pytest.fixture
def one_invalid(tmp_path: Path) -> Path:
    """The build project with card-03's cost made a string: a schema error in one record."""
    project = copy_project("build_project", tmp_path / "project")
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    assert records[3]["id"] == "card-03"
    records[3]["cost"] = "three"
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return project


def test_without_the_flag_nothing_is_written(one_invalid: Path) -> None:
    done = pnp(one_invalid, "build")
    assert done.returncode == 1, done.stderr
    assert "cards/cards.json:" in done.stdout and "error[" in done.stdout
    assert "stopped" in done.stderr
    assert not list(one_invalid.rglob("*.pdf"))


def test_keep_going_draws_every_valid_record(one_invalid: Path) -> None:
    done = pnp(one_invalid, "build", "--keep-going")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "error[" in line]
    assert lines and all(line.startswith("cards/cards.json:") for line in lines), done.stdout
    assert "Traceback" not in done.stderr
    assert "--keep-going" in done.stderr and "wrote output/test/test.card.pdf" in done.stderr
    text = page_text(one_invalid / "output" / "test" / "test.card.pdf")
    for number in (0, 1, 2, 4, 10):
        assert f"Card {number:02d}" in text
    assert "Card 03" not in text
    spells = page_text(one_invalid / "output" / "test" / "test.spell.pdf")  # the other kind: all drawn
    assert spells.strip()
    assert (one_invalid / "output" / "test.pdf").is_file()  # the game's combined file too


def test_keep_going_then_fixed_draws_the_record(one_invalid: Path) -> None:
    assert pnp(one_invalid, "build", "--keep-going").returncode == 1
    cards = one_invalid / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[3]["cost"] = 3
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    done = pnp(one_invalid, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Card 03" in page_text(one_invalid / "output" / "test" / "test.card.pdf")


def test_keep_going_without_errors_is_a_build(tmp_path: Path) -> None:
    project = copy_project("build_project", tmp_path / "project")
    done = pnp(project, "build", "--keep-going")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Card 03" in page_text(project / "output" / "test" / "test.card.pdf")


def test_keep_going_in_a_language_draws_the_valid_records_translated(tmp_path: Path) -> None:
    """--keep-going with --lang: the German file holds the valid heroes, translated; the invalid
    one is reported at its line in the source records and left out, exit 1."""
    project = copy_project("translate_project", tmp_path / "project")
    heroes = project / "cards" / "heroes.json"
    text = heroes.read_text(encoding="utf-8")
    heroes.write_text(text.replace('"attack": 4', '"attack": "four"'), encoding="utf-8")
    line = next(n for n, row in enumerate(heroes.read_text(encoding="utf-8").splitlines(), 1) if '"four"' in row)
    done = pnp(project, "build", "--keep-going", "--lang", "de")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [row for row in done.stdout.splitlines() if "error[" in row]
    assert errors and all(row.startswith(f"cards/heroes.json:{line}:") for row in errors), done.stdout
    assert "Traceback" not in done.stderr
    (pdf,) = (project / "output").rglob("*tale.hero.pdf")
    assert "/de/" in pdf.as_posix() or pdf.parent.name == "de" or "de" in pdf.parts, pdf
    drawn = page_text(pdf)
    assert "Bogenschützin" in drawn and "Hüterin des Nordtors" in drawn  # the archer, in German
    assert "Ritter" not in drawn and "Geschworener Schild" not in drawn  # the knight is left out
