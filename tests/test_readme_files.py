"""The "read me first" page names every file a build makes for a game (cut sheets and the sheet
files' aids and setup sheets, with their pages), by the kinds' schema titles, with only the cutting
advice that applies; and a sheet's margin label is crossed by no crop mark (token grids whose marks
fill the bottom margin). Real builds of two small games of this file's own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pytest

from tests.runpnp import run as pnp

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def schema(kind: str, title: str, card: bool = True) -> dict[str, object]:
    return {
        "$schema": SCHEMA,
        "$id": f"https://pnp.invalid/schemas/{kind}.schema.json",
        "title": title,
        **({} if card else {"x-card": False}),
        "type": "object",
        "properties": {"kind": {"const": kind}, "id": {"type": "string"}, "name": {"type": "string"}},
        "required": ["kind", "id", "name"],
        "additionalProperties": False,
    }


def layout(kinds: list[str], size: str, bleed: float) -> dict[str, object]:
    return {
        "kinds": kinds,
        "unit": "mm",
        "size": size,
        "shape": "rect",
        "bleed": bleed,
        "front": {
            "background": "#335577",
            "elements": [{"type": "text", "x": 3, "y": 3, "w": 14, "h": 6, "text": "{{ id }}", "size": 9}],
        },
        "back": {"background": "#112233", "elements": []},
    }


def write_game(root: Path, folder: str, kinds: dict[str, tuple[str, int]], size: str, bleed: float, toml: str) -> None:
    """A game of card kinds (kind -> schema title, how many records), one layout each."""
    for name in ("cards", "schemas", "layouts", "sheets"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "pnp.toml").write_text(
        f'[project]\nname = "{folder}"\nsheets = "sheets"\n\n[build]\nduplex = "long"\n{toml}\n'
        f'[games.{folder}]\ntitle = "The {folder} game"\nfolder = "{folder}"\n'
    )
    for kind, (title, count) in kinds.items():
        (root / "schemas" / f"{kind}.schema.json").write_text(json.dumps(schema(kind, title)))
        records = [{"kind": kind, "id": f"{kind[3]}{n}", "name": f"Card {n}"} for n in range(count)]
        (root / "cards" / f"{kind}.json").write_text(json.dumps(records))
        (root / "layouts" / f"{kind}.json").write_text(json.dumps(layout([kind], size, bleed)))


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Ten poker cards (schema title "Ruse card") and three heroes, an aid listing the cards, and a
    setup sheet per scenario."""
    root = tmp_path_factory.mktemp("readme") / "project"
    kinds = {"rm.card": ("Ruse card", 10), "rm.hero": ("Ruse hero", 3)}
    write_game(root, "rm", kinds, "poker", 3, 'paper = "a4"')
    (root / "schemas" / "rm.scenario.schema.json").write_text(
        json.dumps(schema("rm.scenario", "Ruse scenario", card=False))
    )
    scenarios = [{"kind": "rm.scenario", "id": "ambush", "name": "The Ambush"}]
    scenarios.append({"kind": "rm.scenario", "id": "long-march", "name": "The Long March"})
    (root / "cards" / "rm.scenario.json").write_text(json.dumps(scenarios))
    (root / "sheets" / "card-list.yaml").write_text(
        'document: collection\nkinds: [rm.card]\noutput: "{game}/aids/card-list.pdf"\ntitle: Card list\n'
        "subtitle: What each card does\nblocks:\n  - {type: repeat, over: records, as: card, blocks: "
        '[{type: heading, level: 3, text: "{{ card.name }}"}]}\n'
    )
    march = '  - {type: text, text: "' + "The march goes on. " * 40 + '", when: "id == \'long-march\'"}\n'
    (root / "sheets" / "setup.yaml").write_text(
        'document: per-record\nkind: rm.scenario\noutput: "{game}/setup/{id}.pdf"\ntitle: "{{ name }}"\n'
        "subtitle: Setup sheet\nblocks:\n  - {type: text, text: Lay out the cards.}\n"
        + march
        * 12  # about two pages for the long march
    )
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done.stderr


def text_of(pdf: Path) -> str:
    with pdfplumber.open(pdf) as document:
        return " ".join(" ".join((page.extract_text() or "") for page in document.pages).split())


def pages(pdf: Path) -> int:
    with pdfplumber.open(pdf) as document:
        return len(document.pages)


def test_the_read_me_lists_the_aids_and_setup_sheets_with_their_pages(game: tuple[Path, str]) -> None:
    out = game[0] / "output"
    text = text_of(out / "rm" / "read-me-first.pdf")
    assert pages(out / "rm" / "setup" / "long-march.pdf") == 2  # the fixture's long sheet is long
    for name, what in (
        ("aids/card-list.pdf", "Card list (What each card does)"),
        ("setup/ambush.pdf", "The Ambush (Setup sheet)"),
        ("setup/long-march.pdf", "The Long March (Setup sheet)"),
    ):
        count = pages(out / "rm" / name)
        assert f"rm/{name}: {what}, {count} page{'s' if count != 1 else ''}" in text, text
    assert "Each is a file of its own (not in rm.pdf)" in text


def test_the_read_me_names_kinds_by_their_schema_titles(game: tuple[Path, str]) -> None:
    text = text_of(game[0] / "output" / "rm" / "read-me-first.pdf")
    assert "rm/rm.card.pdf: Ruse card, 10 faces, 2 sheets of paper" in text
    assert (
        "a face of rm/rm.card.pdf \N{EM DASH} Ruse card \N{EM DASH} measures 63 x 88 mm between its crop marks" in text
    )
    assert "rm.card" not in re.sub(r"\S+\.pdf", "", text)  # the kind's key only in its file's name


def test_the_read_me_gives_only_the_cutting_advice_that_applies(game: tuple[Path, str]) -> None:
    text = text_of(game[0] / "output" / "rm" / "read-me-first.pdf")
    assert "Butted faces share their cut lines" in text
    for advice in ("gap between them", "corner punch", "tokens: cut their square"):  # no gutter, all faces square
        assert advice not in text, advice


def test_the_combined_file_counts_its_read_me_sheet(game: tuple[Path, str]) -> None:
    root, stderr = game
    combined = root / "output" / "rm.pdf"
    sheets = pages(combined) // 2  # long-edge duplex: a front and a back page a sheet, the read-me's too
    assert sheets == 3  # the read-me, then 13 cards on two sheets
    assert f"wrote output/rm.pdf ({sheets} sheets)" in stderr
    assert f"rm.pdf: this page first, then the 2 files below packed together, {sheets} sheets of paper" in text_of(
        root / "output" / "rm" / "read-me-first.pdf"
    )


# Sheet labels: 20 mm tokens (2 mm bleed) fill a 110 x 100 mm page 4 x 4, 8 mm from its bottom
# edge, so the bottom crop marks (1 mm below the ink, 4 mm long) run through the label's line
# every 20 mm. A short label goes between two marks; a long one (the long kind's, the combined
# file's) turns into the left margin, beyond the side marks' ends.
LONG = "lb.a-token-with-a-rather-long-name"


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("labels") / "project"
    kinds = {"lb.t": ("Short token", 16), LONG: ("Long token", 16)}
    write_game(root, "lb", kinds, "token-20", 2, 'paper = "110x100mm"\nread-me = false')
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def label_box(page: pdfplumber.page.Page) -> tuple[str, bool, tuple[float, float, float, float]]:
    """The sheet's label ("lb.t 1/1, fronts"), whether it is upright, and its box (x0, top, x1, bottom)."""
    chars = [c for c in page.chars if not c["upright"] or c["size"] < 7]  # the faces' text is 9 pt, upright
    upright = all(c["upright"] for c in chars)
    ordered = sorted(chars, key=(lambda c: c["x0"]) if upright else (lambda c: -c["top"]))
    box = (min(c["x0"] for c in chars), min(c["top"] for c in chars), max(c["x1"] for c in chars))
    return "".join(c["text"] for c in ordered), upright, (*box, max(c["bottom"] for c in chars))


@pytest.mark.parametrize("file", ["lb/lb.t.pdf", f"lb/{LONG}.pdf", "lb.pdf"])
def test_no_crop_mark_crosses_a_sheet_label(tokens: Path, file: str) -> None:
    with pdfplumber.open(tokens / "output" / file) as pdf:
        for page in pdf.pages:
            text, upright, (x0, top, x1, bottom) = label_box(page)
            assert re.search(r" \d/\d, (fronts|backs)$", text), text
            assert 0 < x0 < x1 < page.width and 0 < top < bottom < page.height
            marks = page.lines
            assert len(marks) >= 20  # the crop marks are there, all round the grid
            crossing = [
                m for m in marks if m["x0"] <= x1 and m["x1"] >= x0 and m["top"] <= bottom and m["bottom"] >= top
            ]
            assert not crossing, (file, text, crossing)
            faces = [r for r in page.rects if r["width"] > 50]  # each face's background, bleed included
            assert not [r for r in faces if r["x0"] < x1 and r["x1"] > x0 and r["top"] < bottom and r["bottom"] > top]
            assert upright == ("lb.t " in text), text  # the short label stays in the bottom margin


def test_a_game_without_backs_is_printed_single_sided(tmp_path: Path) -> None:
    """Long-edge duplex asked for, but no face of the game has a back: the read-me says to print
    one side, and no blank page follows it in the combined file (fronts would land on backs)."""
    root = tmp_path / "project"
    write_game(root, "nb", {"nb.card": ("Plain card", 9)}, "poker", 3, 'paper = "a4"')
    plain = json.loads((root / "layouts" / "nb.card.json").read_text())
    del plain["back"]
    (root / "layouts" / "nb.card.json").write_text(json.dumps(plain))
    done = pnp(root, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    text = text_of(root / "output" / "nb" / "read-me-first.pdf")
    assert "Print single-sided: fronts only." in text and "double-sided" not in text
    combined = root / "output" / "nb.pdf"
    assert pages(combined) == pages(root / "output" / "nb" / "read-me-first.pdf") + pages(
        root / "output" / "nb" / "nb.card.pdf"
    )


def test_the_read_me_back_says_it_is_blank_on_purpose(game: tuple[Path, str]) -> None:
    """In long-edge duplex the one-page read-me gets a back of its own, so the cut sheets start on
    a front; a player who finds it empty is told why (it was an unexplained blank page)."""
    with pdfplumber.open(game[0] / "output" / "rm.pdf") as document:
        back = " ".join((document.pages[1].extract_text() or "").split())
        first_sheet = document.pages[2].extract_text() or ""
    assert back.startswith("This side is left blank on purpose"), back
    assert "left blank" not in first_sheet
