"""A back per record: a layout's `back` chosen by a record field (`{"by", "choices", "default"}`),
on real PDFs (tests/build_project's cards, whose `element` picks the back), and `pnp check`
locating a back chosen by a field the kind does not have."""

from __future__ import annotations

import json
from pathlib import Path

import pdfplumber
import pytest

from tests.runpnp import copy_project, pnp

MM = 72 / 25.4


def _face(word: str, colour: str) -> dict[str, object]:
    text = {"type": "text", "x": 5, "y": 40, "w": 53, "h": 8, "text": word + " {{ id }}", "size": 12, "align": "center"}
    return {"background": colour, "elements": [{**text, "name": "back-id", "valign": "middle"}]}


def _project(target: Path, by: str) -> Path:
    copy_project("build_project", target)
    layout = target / "layouts" / "test-card.json"
    data = json.loads(layout.read_text())
    data["back"] = {
        "by": by,
        "choices": {"fire": _face("Flame", "#c0392b"), "water": _face("Wave", "#2471a3")},
        "default": _face("Plain", "#2c3e50"),
    }
    layout.write_text(json.dumps(data, indent=1))
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = _project(tmp_path_factory.mktemp("backs") / "project", "element")
    done = pnp(project, "build", "test.card")
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def _labels(page: pdfplumber.page.Page) -> dict[str, tuple[str, float]]:
    """Card id -> (the word before it, x of the pair's centre in mm)."""
    words = page.extract_words()
    found = {}
    for first, second in zip(words, words[1:], strict=False):
        if second["text"].startswith("card-"):
            found[second["text"]] = (first["text"], (first["x0"] + second["x1"]) / 2 / MM)
    return found


def test_each_record_gets_the_back_its_field_chooses_at_its_front(built: Path) -> None:
    records = json.loads((built / "cards" / "cards.json").read_text())
    expected = {r["id"]: {"fire": "Flame", "water": "Wave"}.get(r["element"], "Plain") for r in records}
    with pdfplumber.open(built / "output" / "test" / "test.card.pdf") as pdf:
        backs = _labels(pdf.pages[1]) | _labels(pdf.pages[3])  # the backs pages of both sheets
    assert sorted(backs) == sorted(expected)
    for card, (word, _) in backs.items():
        assert word == expected[card], (card, word)


def test_a_back_chosen_by_a_field_the_kind_lacks_is_located_by_check(tmp_path: Path) -> None:
    project = _project(tmp_path / "project", "elemnt")
    done = pnp(project, "check")
    assert done.returncode == 1
    layout = (project / "layouts" / "test-card.json").read_text().splitlines()
    line = next(n for n, text in enumerate(layout, 1) if '"by": "elemnt"' in text)
    assert (
        f"layouts/test-card.json:{line}:" in done.stdout
        and "error[unknown-layout-field]: the back is chosen by field 'elemnt'" in done.stdout
        and "did you mean 'element'?" in done.stdout
    ), done.stdout
    assert pnp(project, "build").returncode == 1  # and build delivers nothing either
