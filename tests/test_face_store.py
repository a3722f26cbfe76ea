"""`pnp build` after an edit draws only the faces whose digest changed and re-assembles the rest
from output/.pnp-cache/faces/ (pnp.drawing.facestore), writing the very bytes a cold build of the
same input writes. Whole pages are kept too: after an edit only the pages holding a changed face
are drawn (pnp.drawing.pdf.PAGES_DRAWN), the others copied as the last build compressed them.

The project is tests/build_project (11 cards, one of them with two copies, front and back,
and 5 spell tokens, fronts only), with the spell layout made to show a card's name through `ref`, so
that a spell's face depends on a card. Faces are counted on the real drawing
(pnp.drawing.render.FACES_DRAWN), each build a real `pnp build` in this process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pnp.drawing.pdf import PAGES_DRAWN
from pnp.drawing.render import FACES_DRAWN
from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
PDFS = ("test/test.card.pdf", "test/test.spell.pdf", "test.pdf")


def edit(path: Path, record_id: str, **changes: object) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    next(r for r in records if r["id"] == record_id).update(changes)
    path.write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")


def build(project: Path) -> tuple[int, dict[str, bytes]]:
    """Faces drawn by one `pnp build`, and the bytes of its PDFs."""
    drawn, _, pdfs = build_pages(project)
    return drawn, pdfs


def build_pages(project: Path) -> tuple[int, int, dict[str, bytes]]:
    """Faces and cut-sheet pages drawn by one `pnp build`, and the bytes of its PDFs."""
    faces, pages = sum(FACES_DRAWN.values()), sum(PAGES_DRAWN.values())
    ran = pnp(project, "build")
    assert ran.returncode == 0, ran.stderr
    pdfs = {name: (project / "output" / name).read_bytes() for name in PDFS}
    return sum(FACES_DRAWN.values()) - faces, sum(PAGES_DRAWN.values()) - pages, pdfs


def cold(project: Path, scratch: Path) -> dict[str, bytes]:
    """The PDFs of a build of the same input from nothing (no output folder, no kept faces)."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(project, scratch, ignore=shutil.ignore_patterns("output"))
    return build(scratch)[1]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("store") / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    edit(target / "cards" / "spells.json", "spell-1", source={"seed": "000_6347cdb41225c97f.txt", "section": "card-01"})
    edit(target / "cards" / "cards.json", "card-02", name="Épée — forged")  # characters outside ASCII
    layout_path = target / "layouts" / "test-spell.json"
    layout = json.loads(layout_path.read_text(encoding="utf-8"))
    home = {"name": "home", "type": "text", "x": 4, "y": 17, "w": 17, "h": 4, "size": 4}
    layout["front"]["elements"].append({**home, "text": "{{ source.section | ref }}"})
    layout_path.write_text(json.dumps(layout), encoding="utf-8")
    return target


def test_one_edit_redraws_its_faces_and_the_faces_that_show_it(project: Path, tmp_path: Path) -> None:
    first, _ = build(project)
    assert first == 2 * 12 + 5  # every face drawn once
    assert (project / "output" / ".pnp-cache" / "faces" / "test.card.faces").is_file()

    edit(project / "cards" / "spells.json", "spell-3", name="Spell three")
    drawn, pages, warm = build_pages(project)
    assert (drawn, pages) == (1, 1)  # that token's face and its page (fronts only), nothing else
    assert warm == cold(project, tmp_path / "cold")

    edit(project / "cards" / "cards.json", "card-01", name="Card the first")  # spell-1 shows it through `ref`
    drawn, pages, warm = build_pages(project)
    assert drawn == 2 + 1  # the card's front and back, and the spell's face
    assert pages == 2 + 1  # the first sheet of cards (fronts and backs), of spells; not the second of cards
    assert warm == cold(project, tmp_path / "cold")

    edit(project / "cards" / "cards.json", "card-03", name="Twice — both copies")  # two copies, seeded before
    drawn, warm = build(project)
    assert drawn == 2 * 2
    assert warm == cold(project, tmp_path / "cold")


def test_a_new_character_redraws_the_kind_and_a_sheet_file_redraws_nothing(project: Path, tmp_path: Path) -> None:
    build(project)
    edit(project / "cards" / "cards.json", "card-04", name="Naïve ßword")  # characters no card had: new codes
    drawn, warm = build(project)
    # every face whose fonts are seeded with the new characters: the cards, and the spells, whose
    # layout reads other records through `ref` (seeded with every record's characters)
    assert drawn == 2 * 12 + 5
    assert warm == cold(project, tmp_path / "cold")

    (project / "sheets").mkdir(exist_ok=True)
    aid = 'document: collection\nkinds: [test.spell]\noutput: "{game}/aid.pdf"\ntitle: An aid\nblocks:\n'
    (project / "sheets" / "aid.yaml").write_text(aid + "  - {type: heading, text: Spells}\n", encoding="utf-8")
    drawn, _ = build(project)
    assert drawn == 0


def test_a_tampered_store_is_ignored(project: Path, tmp_path: Path) -> None:
    build(project)
    store = project / "output" / ".pnp-cache" / "faces" / "test.spell.faces"
    data = store.read_bytes()
    at = data.rindex(b" Tj")
    store.write_bytes(data[:at] + b" TJ" + data[at + 3 :])  # one operator of one kept face changed
    edit(project / "cards" / "spells.json", "spell-2", name="Spell two")
    drawn, warm = build(project)
    assert drawn == 5  # no kept spell face trusted
    assert warm == cold(project, tmp_path / "cold")
    assert b" TJ" not in warm["test/test.spell.pdf"]


def test_fold_sheets_copy_their_pages_too(project: Path, tmp_path: Path) -> None:
    """Fronts and backs on one page (fold-and-glue): a page is kept and copied as a whole."""
    names = ("fold/test/test.card.pdf", "fold/test/test.spell.pdf")

    def folded(root: Path) -> tuple[int, dict[str, bytes]]:
        pages = sum(PAGES_DRAWN.values())
        ran = pnp(root, "build", "--duplex", "fold")
        assert ran.returncode == 0, ran.stderr
        return sum(PAGES_DRAWN.values()) - pages, {name: (root / "output" / name).read_bytes() for name in names}

    folded(project)
    edit(project / "cards" / "spells.json", "spell-4", name="Spell four")
    pages, warm = folded(project)
    assert pages == 1  # the spells' one page; the cards' pages copied
    scratch = tmp_path / "cold-fold"
    shutil.copytree(project, scratch, ignore=shutil.ignore_patterns("output"))
    assert warm == folded(scratch)[1]


def test_a_project_font_that_copies_a_bundled_one_keeps_faces(tmp_path: Path) -> None:
    """reportlab registers a second file of the same face as an alias of the first (a project's
    fonts/Plain.ttf that is DejaVuSans): faces are still kept, whatever was drawn before in the
    process (this once depended on which test ran first)."""
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    (target / "fonts").mkdir(exist_ok=True)
    shutil.copy(ROOT / "pnp" / "fonts" / "DejaVuSans.ttf", target / "fonts" / "Plain.ttf")
    layout_path = target / "layouts" / "test-spell.json"
    layout = json.loads(layout_path.read_text(encoding="utf-8"))
    plain = {"name": "plain", "type": "text", "x": 4, "y": 17, "w": 17, "h": 4, "size": 4, "font": "fonts/Plain.ttf"}
    layout["front"]["elements"].append({**plain, "text": "{{ name }}"})
    layout_path.write_text(json.dumps(layout), encoding="utf-8")
    first, _ = build(target)
    assert first == 2 * 12 + 5
    for kind in ("test.card", "test.spell"):
        assert (target / "output" / ".pnp-cache" / "faces" / f"{kind}.faces").is_file(), kind
    edit(target / "cards" / "spells.json", "spell-3", name="Spell three")
    assert build(target)[0] == 1


def store_header(path: Path) -> dict[str, Any]:
    """The header of a store file: after MAGIC, the signature and the header's length (pnp.drawing.facefile)."""
    _magic, _signature, size, rest = path.read_bytes().split(b"\n", 3)
    header: dict[str, Any] = json.loads(rest[: int(size)])
    return header


def test_an_edit_appends_its_drawing_and_the_store_is_written_anew_once_half_is_stale(tmp_path: Path) -> None:
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    build(target)
    store = target / "output" / ".pnp-cache" / "faces" / "test.spell.faces"
    first = store_header(store)
    assert sorted(set(first["body"])) == list(range(len(first["bodies"])))  # every drawing used

    edit(target / "cards" / "spells.json", "spell-2", name="Spell two, edited")
    drawn, warm = build(target)
    assert drawn == 1
    appended = store_header(store)
    assert appended["bodies"][: len(first["bodies"])] == first["bodies"]  # the file's drawings, as they were
    assert len(appended["bodies"]) == len(first["bodies"]) + 1  # and the new one after them
    assert len(set(appended["body"])) == len(first["bodies"])  # one of them no face uses any more
    assert warm == cold(target, tmp_path / "cold")

    for n in (1, 3, 4):
        edit(target / "cards" / "spells.json", f"spell-{n}", name=f"Spell {n}, edited")
    drawn, warm = build(target)
    assert drawn == 3
    anew = store_header(store)
    assert sorted(set(anew["body"])) == list(range(len(anew["bodies"])))  # no stale drawing left
    assert len(anew["bodies"]) == len(first["bodies"])
    assert warm == cold(target, tmp_path / "cold")
    edit(target / "cards" / "spells.json", "spell-5", name="Spell five, edited")
    drawn, warm = build(target)  # drawn from the store written anew
    assert drawn == 1
    assert warm == cold(target, tmp_path / "cold")


def test_a_common_back_is_drawn_once_and_copied_on_every_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A back that reads no record (a plain background and static elements) is one face for the
    whole deck: drawn once a document, copied on every card, and the PDFs are the bytes of drawing
    it on every card."""
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    base = target / "layouts" / "test-base.json"
    layout = json.loads(base.read_text(encoding="utf-8"))
    layout["back"]["elements"][0]["text"] = "Test — a common back"  # reads no record
    base.write_text(json.dumps(layout, ensure_ascii=False), encoding="utf-8")
    drawn, first = build(target)
    assert drawn == 12 + 1 + 5  # the cards' fronts (a card with two copies), their one back, the spells
    with monkeypatch.context() as patch:  # every back drawn on its own card, as before
        from pnp.drawing.render import Renderer

        patch.setattr(Renderer, "alike_faces", lambda self: frozenset())
        assert cold(target, tmp_path / "each") == first
    edit(target / "cards" / "cards.json", "card-05", name="Card five, edited")
    drawn, warm = build(target)
    assert drawn == 1  # that card's front; its back is the deck's
    assert warm == cold(target, tmp_path / "cold")


def test_a_common_back_that_finds_a_problem_names_each_card(tmp_path: Path) -> None:
    """What drawing a face finds names its record, so a common back that finds something (a
    character its font lacks) is drawn on each card, by check and build, cold and warm."""
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "build_project", target, ignore=shutil.ignore_patterns("output"))
    base = target / "layouts" / "test-base.json"
    layout = json.loads(base.read_text(encoding="utf-8"))
    layout["back"]["elements"][0]["text"] = "Back \U0001f525"  # no glyph in DejaVu Sans
    base.write_text(json.dumps(layout, ensure_ascii=False), encoding="utf-8")
    cards = [r["id"] for r in json.loads((target / "cards" / "cards.json").read_text(encoding="utf-8"))]

    def named(output: str) -> list[str]:
        return [line.split("record '")[1].split("'")[0] for line in output.splitlines() if "missing-glyph" in line]

    checked = pnp(target, "check")
    assert named(checked.stdout) == cards, checked.stdout
    built = pnp(target, "build")
    assert built.returncode == 0 and named(built.stdout + built.stderr) == cards
    edit(target / "cards" / "cards.json", "card-05", name="Card five, edited")
    warm = pnp(target, "build")
    assert named(warm.stdout + warm.stderr) == cards  # the kept backs, each with its own record's warning
