"""A page kept from the last build goes into the kind's PDF without reportlab's canvas (a copy of
the first kept page's dictionary, pnp.drawing.pagestream.CopiedPage), and the PDF is written by
pagestream's own loop over its objects (`format_quickly`): both must give the bytes reportlab's
canvas and writer give. The collector is held off while a build draws (pnp.outputs.build), so a
kind's document must be freed as it goes: no cycle.

The project is tests/build_project with 40 cards (5 sheets of 9), the art on some of them, so that
the kept pages show different forms and images, in different orders.
"""

from __future__ import annotations

import gc
import json
import shutil
import weakref
from pathlib import Path
from typing import Any

import pytest

from pnp.drawing import pagestream
from tests.test_face_store import build, build_pages, cold, edit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pages") / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    cards = target / "cards" / "cards.json"
    first: dict[str, Any] = json.loads(cards.read_text(encoding="utf-8"))[0]
    deck = []
    for n in range(40):
        card = {**first, "id": f"card-{n:02d}", "name": f"Card {n:02d}", "cost": n % 7}
        if (n // 9) % 2 or n % 4 == 1:  # a sheet with art on some cards only, another with none first
            card.pop("image")
        deck.append(card)
    cards.write_text(json.dumps(deck, indent=2), encoding="utf-8")
    return target


def test_kept_pages_are_the_bytes_reportlab_writes(deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(deck)
    before = tmp_path / "before"  # the same kept faces and pages, for a build the old way
    shutil.copytree(deck, before)
    for project in (deck, before):
        edit(project / "cards" / "cards.json", "card-39", name="Card the last")
    drawn, pages, warm = build_pages(deck)
    assert (drawn, pages) == (2, 2)  # the last sheet's fronts and backs; 8 pages copied
    assert warm == cold(deck, tmp_path / "cold")
    with monkeypatch.context() as patch:  # every page shown by the canvas, the PDF written by reportlab
        patch.setattr(pagestream, "format_quickly", lambda doc: None)
        patch.setattr(pagestream, "_blank_state", lambda canvas: None)
        assert build(before)[1] == warm
        assert cold(deck, tmp_path / "plain") == warm


def test_a_kinds_document_is_freed_without_the_collector(deck: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    documents: list[weakref.ref[Any]] = []
    quick = pagestream.format_quickly

    def noted(doc: Any) -> None:
        documents.append(weakref.ref(doc))
        quick(doc)

    monkeypatch.setattr(pagestream, "format_quickly", noted)
    shutil.rmtree(deck / "output")
    collecting = gc.isenabled()
    gc.disable()
    try:
        build(deck)  # cold: both kinds drawn
        edit(deck / "cards" / "cards.json", "card-05", name="Card five, once more")
        build(deck)  # warm: the cards' pages copied but one sheet's
        assert len(documents) == 3
        assert [ref() for ref in documents] == [None] * 3  # freed by their references alone
    finally:
        if collecting:
            gc.enable()
