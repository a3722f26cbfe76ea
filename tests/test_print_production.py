"""Print production on real PDFs: packing kinds onto shared sheets, cutting styles, fold-and-glue,
registration labels. One small project (tests/build_project plus a second card kind) built once
per style and shared by the tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader

from pnp.impose import MM, SheetSpec, grid, parse_paper

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
POKER = (63 * MM, 88 * MM)
TOLERANCE = 0.1 * MM
A4 = parse_paper("a4")


def pnp(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )


def make_project(target: Path) -> Path:
    """build_project plus `test.relic`: 4 poker cards with backs, to share sheets with the cards."""
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    schema = json.loads((target / "schemas" / "test.spell.schema.json").read_text())
    schema["$id"] = schema["$id"].replace("test.spell", "test.relic")
    schema["properties"]["kind"] = {"const": "test.relic"}
    (target / "schemas" / "test.relic.schema.json").write_text(json.dumps(schema))
    source = {"seed": "000_6347cdb41225c97f.txt", "section": "Test"}
    relics = [{"kind": "test.relic", "id": f"relic-{n}", "name": f"Relic {n}", "source": source} for n in range(1, 5)]
    (target / "cards" / "relics.json").write_text(json.dumps(relics, indent=1))
    (target / "layouts" / "test-relic.json").write_text(json.dumps({"extends": "test-base", "kinds": ["test.relic"]}))
    return target


def poker_faces(project: Path) -> list[str]:
    """Ids of the poker faces in the order the combined file packs them: cards, then relics."""
    cards = json.loads((project / "cards" / "cards.json").read_text())
    return [r["id"] for r in cards for _ in range(r.get("copies", 1))] + [f"relic-{n}" for n in range(1, 5)]


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    project = make_project(tmp_path_factory.mktemp("packed") / "project")
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project, done.stderr


def _words(page: pdfplumber.page.Page) -> list[tuple[str, float, float]]:
    return [
        (w["text"], (w["x0"] + w["x1"]) / 2, page.height - (w["top"] + w["bottom"]) / 2) for w in page.extract_words()
    ]


def test_build_prints_the_sheets_of_each_file(packed: tuple[Path, str]) -> None:
    _, stderr = packed
    assert "wrote output/test/test.card.pdf (2 sheets)" in stderr
    assert "wrote output/test/test.relic.pdf (1 sheet)" in stderr
    assert "wrote output/test/test.spell.pdf (1 sheet)" in stderr
    # 12 cards + 4 relics share 2 sheets of 9; the round tokens keep a grid of their own
    assert "wrote output/test.pdf (3 sheets)" in stderr


def test_combined_file_packs_kinds_of_one_size_onto_shared_sheets(packed: tuple[Path, str]) -> None:
    project, _ = packed
    combined = project / "output" / "test.pdf"
    assert len(PdfReader(combined).pages) == 6  # 3 sheets, each with its back page (duplex)
    layout_grid = grid(*POKER, SheetSpec(*A4))
    faces = poker_faces(project)
    with pdfplumber.open(combined) as pdf:
        for sheet in range(2):
            backs = _words(pdf.pages[2 * sheet + 1])
            on_sheet = faces[9 * sheet : 9 * sheet + 9]
            assert sheet == 0 or any(f.startswith("relic") for f in on_sheet)
            for slot, face in zip(layout_grid.fronts, on_sheet, strict=False):
                # long-edge duplex: the back is at the mirrored slot, its id centred 44 mm below the top
                expected = (A4[0] - (slot.x + slot.width / 2), slot.y + slot.height - 44 * MM)
                assert any(
                    text == face and abs(x - expected[0]) < TOLERANCE and abs(y - expected[1]) < 1.0
                    for text, x, y in backs
                ), (face, expected)
        text = pdf.pages[2].extract_text()
    assert "Relic 1" in text and "Relic 4" in text  # the relics' fronts follow the cards on sheet 2


def test_sheets_name_their_file_kind_and_number(packed: tuple[Path, str]) -> None:
    project, _ = packed
    with pdfplumber.open(project / "output" / "test" / "test.card.pdf") as pdf:
        assert "test.card 2/2, fronts" in pdf.pages[2].extract_text()
        assert "test.card 1/2, backs" in pdf.pages[1].extract_text()
    with pdfplumber.open(project / "output" / "test.pdf") as pdf:
        assert "test: test.card+test.relic 2/3, fronts" in pdf.pages[2].extract_text()
        assert "test: test.spell 3/3, fronts" in pdf.pages[4].extract_text()
