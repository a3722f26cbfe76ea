"""The bundled cards as a player prints them: the real `pnp build` and `pnp export printshop` on a
copy of the bundled project, then the text pdfplumber extracts from every card PDF.

No placeholder word, no editorial remark (seed file names, JSON pointers, bracket tags, notes for
reviewers), no value marked as an inference, and no character drawn under 6 pt.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("homm3-conflux", "homm4", "mage-knight")

# words a layout once printed in place of data it did not have
PLACEHOLDERS = (
    "Portrait",
    "Spell icon",
    "Skill icon",
    "Object image",
    "Town image",
    "Artifact image",
    "Object type",
    "Town type",
    "type not given",
    "Proxy tile",
)
EDITORIAL = (
    re.compile(r"\d{3}_[0-9a-f]{16}"),  # a seed file name
    re.compile(r"\.txt\b"),
    re.compile(r"\bseed\b", re.IGNORECASE),
    re.compile(r"(?:^|\s)#?/[a-z_]+/\d+"),  # a JSON pointer such as /components/20 or scenarios/0
    re.compile(r"\[[^\]]*\]"),  # a bracket tag
    re.compile(r"transcri|inferred|not print|cut off|rulebook does not give|rulebook shows", re.IGNORECASE),
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled project, built and exported for a print shop (one card face per page)."""
    project = tmp_path_factory.mktemp("bundled")
    for name in ("cards", "schemas", "layouts", "sheets"):
        shutil.copytree(ROOT / name, project / name)
    shutil.copy(ROOT / "pnp.toml", project / "pnp.toml")
    for command in (["build"], ["export", "printshop"]):
        done = subprocess.run(
            [sys.executable, "-m", "pnp", *command], cwd=project, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return project / "output"


def _card_pdfs(output: Path) -> list[Path]:
    """Card sheets (output/<game>/<kind>.pdf) and print-shop files (one face per page); no setup sheets or aids."""
    pdfs = [p for game in GAMES for p in sorted((output / game).glob("*.*.pdf"))]
    pdfs += [p for game in GAMES for p in sorted((output / game / "printshop").glob("*.pdf"))]
    return pdfs


@pytest.fixture(scope="module")
def pages(built: Path) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(pdf and page, extracted text, characters) for every page of every card PDF."""
    out: list[tuple[str, str, list[dict[str, Any]]]] = []
    for pdf_path in _card_pdfs(built):
        with pdfplumber.open(pdf_path) as pdf:
            for number, page in enumerate(pdf.pages, 1):
                where = f"{pdf_path.relative_to(built)} p.{number}"
                out.append((where, page.extract_text() or "", list(page.chars)))
    return out


def test_every_card_kind_was_built(built: Path) -> None:
    kinds = {p.stem for p in _card_pdfs(built) if p.parent.name != "printshop"}
    assert {"homm3.unit", "homm3.summoned-unit", "homm4.town", "homm4.spell", "mk.quest", "mk.horseman"} <= kinds
    assert len(kinds) >= 25


def test_no_placeholder_word_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [(where, word) for where, text, _ in pages for word in PLACEHOLDERS if word in text]
    assert not found, found


def test_homm4_cards_print_no_empty_faction_or_class_chip(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [
        where
        for where, text, _ in pages
        if "homm4" in where and re.search(r"(?m)(?:^|\s)(?:Faction|Class)(?:\s|$)", text)
    ]
    assert not found, found


def test_quest_cards_print_no_step_without_content(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    faces = [(where, text) for where, text, _ in pages if "printshop/mk.quest.pdf" in where]
    assert faces
    bare = [where for where, text in faces if re.search(r"Step \d+\.\s*(?:Step \d+\.|$)", text.strip())]
    assert not bare, bare


def test_no_editorial_text_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    found = [(where, m.group(0)) for where, text, _ in pages for pattern in EDITORIAL if (m := pattern.search(text))]
    assert not found, found


def test_no_reviewer_note_prints(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    """A record's `note` is for reviewers: take the notes of the printed kinds and look for them."""
    import json

    notes: list[str] = []
    for path in sorted((ROOT / "cards").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data if isinstance(data, list) else [data]:
            for note in (record.get("note"), record.get("source", {}).get("note")):
                if isinstance(note, str) and len(note) > 25:
                    notes.append(note[:25])
    text = " ".join(" ".join(t.split()) for _, t, _ in pages)
    assert notes
    assert [n for n in notes if n in text] == []


def test_inferences_do_not_print_as_facts(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    def text_of(fragment: str) -> str:
        return " ".join(t for where, t, _ in pages if fragment in where)

    assert "Summoned Unit (Air)" in text_of("homm3.summoned-unit")
    assert "Air Elementals" not in text_of("homm3.summoned-unit")
    assert "Asylum" not in text_of("homm4.town")
    assert "Town Card (rulebook example)" in text_of("homm4.town")
    horsemen = text_of("mk.horseman")
    assert "One of the Four Horsemen" in horsemen
    assert not re.search(r"Horseman \((War|Death|Famine|Pestilence)\)|rides for the", horsemen)


def _size(char: dict[str, Any]) -> float:
    """The font size a character is drawn at: its box height, or its width when turned a quarter."""
    return float(char["height"] if char["upright"] else char["width"])


def test_no_text_under_6_pt(pages: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    small = sorted(
        {(where, c["text"], round(_size(c), 2)) for where, _, chars in pages for c in chars if _size(c) < 5.99}
    )
    assert not small, small[:20]


def _player_strings(node: Any, path: str) -> list[tuple[str, str]]:
    """Every string a sheet or card may print: all fields but `note`, `source` and `inferred`."""
    if isinstance(node, dict):
        return [
            found
            for key, value in node.items()
            if key not in ("note", "source", "inferred")
            for found in _player_strings(value, f"{path}/{key}")
        ]
    if isinstance(node, list):
        return [found for i, value in enumerate(node) for found in _player_strings(value, f"{path}/{i}")]
    return [(path, node)] if isinstance(node, str) else []


def test_no_record_field_that_prints_holds_editorial_text(records: list[dict[str, Any]]) -> None:
    found = [
        (record["id"], path, text)
        for record in records
        for path, text in _player_strings(record, "")
        for pattern in EDITORIAL
        if pattern.search(text)
    ]
    assert not found, found[:10]
