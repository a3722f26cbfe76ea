"""A layout's own cutting style over the project's, on real PDFs: tests/build_project is butted
(pnp.toml's default); its round spell tokens' layout says `"cutting": "gutter"`. The trim lines
are read from the crop marks of each built file."""

from __future__ import annotations

import json
from pathlib import Path

import pdfplumber

from tests.runpnp import copy_project, pnp

MM = 72 / 25.4


def trim_xs(path: Path) -> list[float]:
    """x (mm) of the vertical crop marks above the first page's cards: its trim lines."""
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        return sorted(
            {
                round(line["x0"] / MM, 2)
                for line in page.lines
                if abs(line["x0"] - line["x1"]) < 0.01 and line["top"] < 40
            }
        )


def test_a_layout_chooses_its_own_cutting_style(tmp_path: Path) -> None:
    project = tmp_path / "project"
    copy_project("build_project", project)
    layout = project / "layouts" / "test-spell.json"
    layout.write_text(json.dumps({**json.loads(layout.read_text()), "cutting": "gutter"}))
    toml = (project / "pnp.toml").read_text()
    (project / "pnp.toml").write_text(toml.replace('duplex = "long"', 'duplex = "long"\ngutter = 1'))
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    spells = trim_xs(project / "output" / "test" / "test.spell.pdf")
    # gutter: each 25 mm token keeps its 2 mm bleed all round, 1 mm between bleeds: trims 25, 5, 25, ...
    steps = [round(b - a, 2) for a, b in zip(spells, spells[1:], strict=False)]
    assert steps and set(steps) == {25.0, 5.0}, spells
    cards = trim_xs(project / "output" / "test" / "test.card.pdf")
    assert {round(b - a, 2) for a, b in zip(cards, cards[1:], strict=False)} == {63.0}, cards  # butted, as pnp.toml
    with pdfplumber.open(project / "output" / "test.pdf") as pdf:  # the combined file keeps the spells' style
        page = next(p for p in pdf.pages if "Test spell" in (p.extract_text() or ""))
        xs = sorted(
            {
                round(line["x0"] / MM, 2)
                for line in page.lines
                if abs(line["x0"] - line["x1"]) < 0.01 and line["top"] < 40
            }
        )
    assert xs == spells
