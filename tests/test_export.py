"""pnp export on the small real project (tests/build_project): the files themselves are inspected.

print-shop page boxes in points, PNG sizes in pixels, Tabletop Simulator sheet grids and sizes,
pixel colours against an independent render of the print-shop PDF, determinism and incremental
runs, and the HTML gallery in a real headless browser (Debian's chromium, through selenium).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image
from pypdf import PdfReader

from pnp.outputs.export import parse_length, split_sheets, tts_grid
from tests.runpnp import Ran, process
from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ELEMENTS = {
    "fire": (0xC0, 0x39, 0x2B),
    "water": (0x24, 0x71, 0xA3),
    "air": (0x7F, 0xB3, 0xD5),
    "earth": (0x7D, 0x66, 0x08),
}
CARD_IDS = [f"card-{i:02d}" for i in range(11)]
FACES = [*CARD_IDS[:3], "card-03-1", "card-03-2", *CARD_IDS[4:]]  # card-03 has two copies


def ok(project: Path, *args: str) -> Ran:
    done = pnp(project, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


def set_layout(project: Path, **changes: object) -> None:
    path = project / "layouts" / "test-base.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))


@pytest.fixture()
def poker_us(project: Path) -> Path:
    """The test cards at 2.5 x 3.5 in with a 1/8 in (3.175 mm) bleed."""
    set_layout(project, size="poker-us", bleed=3.175)
    return project


def many_cards(project: Path, count: int) -> None:
    elements = list(ELEMENTS)
    records = [
        {
            "kind": "test.card",
            "id": f"card-{i:03d}",
            "name": f"Card {i:03d}",
            "source": {"seed": "000_6347cdb41225c97f.txt", "section": "Test"},
            "element": elements[i % 4],
            "cost": i % 10,
            "text": "Gain 1 {gold}.",
            "image": "art/sun.png",
        }
        for i in range(count)
    ]
    (project / "cards" / "cards.json").write_text(json.dumps(records, indent=1))


def boxes(pdf: Path) -> list[tuple[list[float], list[float], list[float]]]:
    return [
        ([float(v) for v in page.mediabox], [float(v) for v in page.trimbox], [float(v) for v in page.bleedbox])
        for page in PdfReader(pdf).pages
    ]


def close(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 3) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


# --- print shop ----------------------------------------------------------------------------


def test_printshop_poker_us_preset_page_boxes_in_points(poker_us: Path) -> None:
    ok(poker_us, "export", "printshop", "--preset", "poker-us", "test.card")
    pdf = poker_us / "output" / "test" / "printshop" / "test.card.pdf"
    pages = boxes(pdf)
    assert len(pages) == 2 * len(FACES)  # a back and a front per face
    for media, trim, bleed in pages:
        assert media == pytest.approx([0, 0, 198, 270], abs=0.01)  # 2.75 x 3.75 in
        assert trim == pytest.approx([9, 9, 189, 261], abs=0.01)  # inset 1/8 in = 9 pt
        assert bleed == pytest.approx(media, abs=0.01)
    raw = pdf.read_bytes()
    assert raw.count(b"/TrimBox") == raw.count(b"/BleedBox") == len(pages)
    assert not (poker_us / "output" / "test" / "printshop" / "test.spell.pdf").exists()  # not asked for


def test_printshop_default_order_is_back_then_front(project: Path) -> None:
    ok(project, "export", "printshop")
    reader = PdfReader(project / "output" / "test" / "printshop" / "test.card.pdf")
    texts = [page.extract_text() for page in reader.pages]
    assert "card-00" in texts[0] and "Card 00" not in texts[0]  # back 1 (the back shows the id)
    assert "Card 00" in texts[1]  # front 1
    assert "card-01" in texts[2] and "Card 01" in texts[3]
    assert "card-03" in texts[6] and "card-03" in texts[8]  # both copies of card-03
    ok(project, "export", "printshop", "--order", "front-back")
    reader = PdfReader(project / "output" / "test" / "printshop" / "test.card.pdf")
    assert "Card 00" in reader.pages[0].extract_text() and "card-00" in reader.pages[1].extract_text()
    spells = PdfReader(project / "output" / "test" / "printshop" / "test.spell.pdf")
    assert len(spells.pages) == 5  # "back": null: fronts only


# A 63 x 88 mm card is 178.583 x 249.449 pt (1 mm = 72 / 25.4 pt); its page is the card and its bleed all round.
@pytest.mark.parametrize(
    ("args", "media", "trim"),
    [
        ((), [0, 0, 195.591, 266.457], [8.504, 8.504, 187.087, 257.953]),  # the layout's bleed, 3 mm = 8.504 pt
        (("--preset", "poker"), [0, 0, 195.591, 266.457], [8.504, 8.504, 187.087, 257.953]),  # 63 x 88 mm, 3 mm
        (("--bleed", "0.25in"), [0, 0, 214.583, 285.449], [18, 18, 196.583, 267.449]),
        (("--bleed", "1/8in"), [0, 0, 196.583, 267.449], [9, 9, 187.583, 258.449]),
        (("--bleed", "0mm"), [0, 0, 178.583, 249.449], [0, 0, 178.583, 249.449]),
    ],
)
def test_printshop_bleed(project: Path, args: tuple[str, ...], media: list[float], trim: list[float]) -> None:
    ok(project, "export", "printshop", "test.card", *args)
    for media_box, trim_box, bleed_box in boxes(project / "output" / "test" / "printshop" / "test.card.pdf"):
        assert media_box == pytest.approx(media, abs=0.01)
        assert trim_box == pytest.approx(trim, abs=0.01)
        assert bleed_box == pytest.approx(media, abs=0.01)


def test_wider_bleed_is_filled_by_the_background(project: Path) -> None:
    """With --bleed wider than the layout's, the band and background still reach the page edge."""
    ok(project, "export", "printshop", "test.card", "--bleed", "6mm", "--order", "front-back")
    document = pdfium.PdfDocument(project / "output" / "test" / "printshop" / "test.card.pdf")
    image = document[0].render(scale=2).to_pil().convert("RGB")
    assert close(image.getpixel((1, 1)), ELEMENTS["fire"])  # card-00's band, in the corner of the bleed
    assert close(image.getpixel((1, image.height - 2)), (0xF7, 0xF1, 0xE3))  # the background
    document.close()


def test_preset_of_another_size_is_a_usage_error(project: Path) -> None:
    done = pnp(project, "export", "printshop", "--preset", "poker-us")
    assert done.returncode == 2
    assert "preset 'poker-us'" in done.stderr and "'test.card'" in done.stderr and "63.0 x 88.0 mm" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (project / "output").exists()


def test_token_preset_gives_the_token_page_and_its_safe_zone(project: Path) -> None:
    """token-25: 25 mm tokens, 2 mm bleed, 2 mm safe zone; warnings name the preset's zone."""
    done = ok(project, "export", "printshop", "test.spell", "--preset", "token-25")
    for media, trim, _ in boxes(project / "output" / "test" / "printshop" / "test.spell.pdf"):
        assert media == pytest.approx([0, 0, 82.205, 82.205], abs=0.01)  # 29 mm: 25 mm and 2 mm of bleed each side
        assert trim == pytest.approx([5.669, 5.669, 76.535, 76.535], abs=0.01)  # from 2 mm to 27 mm
    # the ring (x 1, w 23 mm) is 1 mm from the cut: outside the preset's 2 mm safe zone (the layout's is 2 mm too)
    assert "element 'ring' (circle) comes within 1.0 mm of the" in done.stdout
    assert "outside the 2 mm safe zone of preset 'token-25'" in done.stdout


def test_unknown_preset_is_a_usage_error_with_the_closest_name(project: Path) -> None:
    done = pnp(project, "export", "printshop", "--preset", "pokr")
    assert done.returncode == 2 and "unknown preset 'pokr'; did you mean 'poker'?" in done.stderr
    assert "Traceback" not in done.stderr and not (project / "output").exists()


@pytest.mark.parametrize("bleed", ["3cm", "abc", "-1mm", "1/0in"])
def test_bad_bleed_is_one_line(project: Path, bleed: str) -> None:
    done = pnp(project, "export", "printshop", "--bleed", bleed)
    assert done.returncode == 2
    assert done.stderr.startswith("pnp: error: bleed") and len(done.stderr.splitlines()) == 1


def test_parse_length() -> None:
    assert parse_length("3mm") == pytest.approx(8.5039, abs=1e-4)  # 3 x 72 / 25.4 pt
    assert parse_length("0.125in") == parse_length("1/8in") == pytest.approx(9.0)
    assert parse_length("9pt") == 9.0


def test_safe_zone_warnings_name_the_layout_element_once(project: Path) -> None:
    done = ok(project, "export", "printshop")
    warnings = re.findall(r"^(\S+): warning\[outside-safe-zone\]: (\w+) element '([^']+)'", done.stdout, re.M)
    # cost box starts 2 mm from the top, the rotated edge label 0.5 mm from the left, the hex ends 2 mm from the
    # bottom; the ring is 1 mm from the cut with a 2 mm safe zone. Where an element sits is the layout's, so each
    # is reported once, at the layout line that places it, not once per card or copy.
    assert sorted(warnings) == [
        ("layouts/test-card.json:10:7", "front", "hex"),
        ("layouts/test-card.json:6:7", "front", "cost"),
        ("layouts/test-card.json:9:7", "front", "edge"),
        ("layouts/test-spell.json:11:7", "front", "ring"),
    ]
    card_layout = (project / "layouts" / "test-card.json").read_text().splitlines()
    assert '"name": "cost"' in card_layout[5] and '"name": "edge"' in card_layout[8]
    # the line docs/export.md quotes is real output
    doc = (ROOT / "docs" / "export.md").read_text()
    quoted = [line for line in doc.splitlines() if line.startswith("layouts/")]
    assert quoted and all(line in done.stdout.splitlines() for line in quoted)


def test_safe_zone_respects_when_and_bleed(project: Path) -> None:
    records = project / "cards" / "cards.json"
    data = json.loads(records.read_text())
    del data[0]["image"]  # "art" is drawn only "when image is defined"
    records.write_text(json.dumps(data, indent=2))
    layout = project / "layouts" / "test-card.json"
    spec = json.loads(layout.read_text())
    spec["front"]["elements"][1]["x"] = 1  # art: from 1 mm, inside the zone only when it is not drawn
    layout.write_text(json.dumps(spec))
    done = ok(project, "export", "printshop", "test.card")
    assert "front element 'art' (image) comes within 1.0 mm of the left edge" in done.stdout  # card-01 draws it
    for record in data:
        record.pop("image", None)
    records.write_text(json.dumps(data, indent=2))
    done = ok(project, "export", "printshop", "test.card")
    assert "element 'art'" not in done.stdout  # no record draws it


# --- PNG -------------------------------------------------------------------------------------


def test_png_sizes_at_300_dpi(poker_us: Path) -> None:
    ok(poker_us, "export", "png")
    folder = poker_us / "output" / "test" / "png" / "test.card"
    names = sorted(p.name for p in folder.glob("*.png"))
    assert names == sorted(f"{face}-{side}.png" for face in FACES for side in ("front", "back"))
    for path in folder.glob("*.png"):
        with Image.open(path) as image:
            assert image.size == (750, 1050), path  # 2.5 x 3.5 in at 300 dpi
            assert image.mode == "RGBA"  # rounded cards, as cut: transparent outside their corners
    spells = sorted((poker_us / "output" / "test" / "png" / "test.spell").glob("*.png"))
    assert [p.name for p in spells] == [f"spell-{i}-front.png" for i in range(1, 6)]  # no back
    with Image.open(spells[0]) as image:
        assert image.size == (295, 295)  # 25 mm at 300 dpi, rounded
    ok(poker_us, "export", "png", "--bleed", "test.card")
    with Image.open(folder / "card-00-front.png") as image:
        assert image.size == (825, 1125)  # 2.75 x 3.75 in
    ok(poker_us, "export", "png", "--dpi", "150", "test.card")
    with Image.open(folder / "card-00-front.png") as image:
        assert image.size == (375, 525)


def test_png_pixels_match_the_print_shop_pdf(poker_us: Path) -> None:
    ok(poker_us, "export", "printshop", "test.card", "--order", "front-back")
    ok(poker_us, "export", "png", "test.card")
    folder = poker_us / "output" / "test" / "png" / "test.card"
    document = pdfium.PdfDocument(poker_us / "output" / "test" / "printshop" / "test.card.pdf")
    try:
        for page_index, card in {0: "card-00", 2: "card-01", 1: "card-00"}.items():
            side = "front" if page_index % 2 == 0 else "back"
            # an independent render of the whole print-shop page (bleed included) at 300 dpi
            page = document[page_index].render(scale=300 / 72).to_pil().convert("RGB")
            assert abs(page.width - 825) <= 1 and abs(page.height - 1125) <= 1  # pypdfium2 rounds sizes up
            with Image.open(folder / f"{card}-{side}.png") as png:
                png = png.convert("RGB")
                # the card's centre, the art, the band, the rules text area, the trim corners;
                # the PNG starts 37.5 px (1/8 in) into the page, so compare with both neighbours
                for x, y in [(375, 525), (200, 300), (150, 30), (600, 900), (2, 525), (747, 525), (375, 1047)]:
                    pixel = png.getpixel((x, y))
                    neighbours = [page.getpixel((x + 37, y + 37)), page.getpixel((x + 38, y + 38))]
                    assert any(close(pixel, n, 6) for n in neighbours), (card, side, x, y, pixel, neighbours)
    finally:
        document.close()
    with Image.open(folder / "card-00-front.png") as png:
        assert close(png.convert("RGB").getpixel((150, 30)), ELEMENTS["fire"], 2)  # the band, from the palette
        assert close(png.convert("RGB").getpixel((375, 700)), (0xF7, 0xF1, 0xE3), 2)  # the card's background
        assert png.getpixel((2, 2))[3] == 0 and png.getpixel((375, 2))[3] == 255  # a rounded corner, cut
    with Image.open(folder / "card-01-front.png") as png:
        assert close(png.convert("RGB").getpixel((150, 30)), ELEMENTS["water"], 2)
    with Image.open(folder / "card-00-back.png") as png:
        assert close(png.convert("RGB").getpixel((5, 525)), (0x2C, 0x3E, 0x50), 2)
    ok(poker_us, "export", "png", "test.card", "--bleed", "--dpi", "144")
    with Image.open(folder / "card-00-front.png") as png:
        assert png.size == (396, 540)  # 2.75 x 3.75 in at 144 dpi
        assert close(png.getpixel((1, 1)), ELEMENTS["fire"], 2)  # the band runs into the bleed


# --- Tabletop Simulator ---------------------------------------------------------------------


def sheets(project: Path) -> list[tuple[dict[str, object], Path]]:
    folder = project / "output" / "test" / "tts"
    found = []
    for info_path in sorted(folder.glob("test.card-*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        info = json.loads(info_path.read_text())
        found.append((info, folder / str(info["face"])))
    return found


@pytest.mark.parametrize(("count", "per_sheet"), [(70, [35, 35]), (100, [50, 50])])
def test_tts_sheets_grid_and_size_limits(project: Path, count: int, per_sheet: list[int]) -> None:
    many_cards(project, count)
    # 200 dpi (not the default 300, for time): nine 63 mm cards are 4,465 px wide, so the
    # 100-card sheets (50 a sheet) must still be scaled down to 4096 px
    ok(project, "export", "tts", "test.card", "--dpi", "200")
    found = sheets(project)
    assert [info["count"] for info, _ in found] == per_sheet
    assert (count < 100) or all(int(str(info["width"])) * 63 / 25.4 * 200 > 4096 for info, _ in found)
    names: list[str] = []
    for info, face in found:
        columns, rows, cards = int(info["width"]), int(info["height"]), int(info["count"])  # type: ignore[call-overload]
        assert 2 <= columns <= 10 and 2 <= rows <= 7
        assert cards <= columns * rows - 1  # the last slot is the hidden face
        with Image.open(face) as sheet:
            assert sheet.mode == "RGB"
            assert max(sheet.size) <= 4096
            assert sheet.width % columns == 0 and sheet.height % rows == 0
            cell_w, cell_h = sheet.width // columns, sheet.height // rows
            assert cell_w / cell_h == pytest.approx(63 / 88, abs=0.01)
            # slot 0 is the first card of the sheet: its band has its element's colour
            first = int(str(info["cards"][0]).rsplit("-", 1)[1])  # type: ignore[index]
            assert close(sheet.getpixel((cell_w // 4, cell_h // 20)), ELEMENTS[list(ELEMENTS)[first % 4]], 6)
            # the hidden face: the last slot, a plain card in the back's colour (these backs all differ)
            assert close(sheet.getpixel((sheet.width - cell_w // 2, sheet.height - cell_h // 2)), (0x2C, 0x3E, 0x50), 1)
        back = face.parent / str(info["back"])
        assert info["unique_backs"] is True and back.name == face.name.replace(".png", "-back.png")
        with Image.open(back) as back_sheet, Image.open(face) as sheet:
            assert back_sheet.size == sheet.size and back_sheet.mode == "RGB"
        names.extend(info["cards"])  # type: ignore[arg-type]
    assert names == [f"card-{i:03d}" for i in range(count)]


def test_tts_single_back_for_identical_backs(project: Path) -> None:
    set_layout(
        project,
        back={
            "background": "#2c3e50",
            "elements": [
                {
                    "name": "back-id",
                    "type": "text",
                    "x": 5,
                    "y": 40,
                    "w": 53,
                    "h": 8,
                    "text": "TEST",
                    "size": 12,
                    "align": "center",
                    "valign": "middle",
                    "color": "#ecf0f1",
                }
            ],
        },
    )
    ok(project, "export", "tts")
    folder = project / "output" / "test" / "tts"
    info = json.loads((folder / "test.card-1.json").read_text())
    assert info == {**info, "width": 5, "height": 3, "count": 12, "back": "test.card-back.png", "unique_backs": False}
    assert not (folder / "test.card-1-back.png").exists()
    with Image.open(folder / "test.card-1.png") as sheet, Image.open(folder / "test.card-back.png") as back:
        cell = (sheet.width // 5, sheet.height // 3)
        assert back.size == cell
        hidden = sheet.crop((sheet.width - cell[0], sheet.height - cell[1], sheet.width, sheet.height))
        assert hidden.tobytes() == back.convert("RGB").tobytes()  # the hidden face is the back
    spells = json.loads((folder / "test.spell-1.json").read_text())
    assert (spells["width"], spells["height"], spells["count"], spells["back"]) == (2, 3, 5, "test.spell-back.png")


def test_tts_grid_limits() -> None:
    full = tts_grid(69, 744, 1039)
    assert (full.columns, full.rows) == (10, 7) and full.size == (4090, 4004)
    for count in range(1, 70):
        grid = tts_grid(count, 744, 1039)
        assert grid.columns * grid.rows >= count + 1
        assert 2 <= grid.columns <= 10 and 2 <= grid.rows <= 7
        assert max(grid.size) <= 4096  # Tabletop Simulator's largest sheet, in pixels
    assert tts_grid(3, 100, 140).size == (200, 280)  # small cards are never scaled up
    with pytest.raises(ValueError):
        tts_grid(70, 744, 1039)
    for count in (1, 69, 70, 138, 139, 150, 1000):
        parts = split_sheets(count)
        assert sum(len(p) for p in parts) == count and all(len(p) <= 69 for p in parts)
        assert len(parts) == math.ceil(count / 69) and max(map(len, parts)) - min(map(len, parts)) <= 1


# --- every export: checked, deterministic, incremental, atomic -------------------------------------


EXPORTS = [("printshop",), ("png",), ("tts",), ("gallery",)]


def test_exports_are_byte_identical_across_runs_and_a_second_export_rewrites_nothing(
    project: Path, tmp_path: Path
) -> None:
    """Two copies exported alike, one in this process and one by real processes (another hash
    seed each: no set order leaks into a file), are byte-identical; then (one set of first exports
    for both halves) exporting again writes nothing, and a change rewrites its kind only."""
    other = tmp_path / "again"
    shutil.copytree(project, other)
    for args in EXPORTS:
        ok(project, "export", *args)
        done = process(other, "export", *args)
        assert done.returncode == 0, done.stdout + done.stderr
    # the manifest holds digests of absolute input paths; everything else must be identical
    files = sorted(p for p in (project / "output").rglob("*") if p.is_file() and p.name != ".pnp-manifest.json")
    assert len(files) > 60
    for path in files:
        assert path.read_bytes() == (other / path.relative_to(project)).read_bytes(), path
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in files}
    for args in EXPORTS:
        done = ok(project, "export", *args)
        assert re.search(r": 0 written, [1-9]\d* up to date", done.stderr), done.stderr
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in files} == before
    spells = project / "cards" / "spells.json"
    spells.write_text(spells.read_text().replace("Spell 1", "Spell One"))
    done = ok(project, "export", "png")
    assert "output/test/png/test.spell" in done.stderr and "test.card" not in done.stderr
    done = ok(project, "export", "printshop")
    assert "wrote output/test/printshop/test.spell.pdf" in done.stderr and "test.card" not in done.stderr
    # a record removed: its images go too
    records = project / "cards" / "cards.json"
    records.write_text(json.dumps(json.loads(records.read_text())[:-1], indent=2))
    ok(project, "export", "png")
    ok(project, "export", "gallery")
    assert not (project / "output" / "test" / "png" / "test.card" / "card-10-front.png").exists()
    assert not list((project / "output" / "gallery").rglob("card-10-*.png"))
    assert (project / "output" / "test" / "png" / "test.card" / "card-09-front.png").exists()


def test_a_referenced_record_redraws_the_cards_that_show_it(project: Path) -> None:
    layout = project / "layouts" / "test-card.json"
    spec = json.loads(layout.read_text())
    spec["front"]["elements"].append(
        {"name": "spells", "type": "text", "x": 5, "y": 70, "w": 53, "h": 6, "text": "{{ spells | ref | join(', ') }}"}
    )
    layout.write_text(json.dumps(spec))
    records = project / "cards" / "cards.json"
    data = json.loads(records.read_text())
    data[0]["spells"] = ["spell-1"]
    records.write_text(json.dumps(data, indent=2))
    ok(project, "export", "printshop", "test.card")
    pdf = project / "output" / "test" / "printshop" / "test.card.pdf"
    assert "Spell 1" in PdfReader(pdf).pages[1].extract_text()  # the referenced record's name
    spells = project / "cards" / "spells.json"
    spells.write_text(spells.read_text().replace('"Spell 1"', '"Spell One"'))
    done = ok(project, "export", "printshop", "test.card")
    assert "wrote output/test/printshop/test.card.pdf" in done.stderr
    assert "Spell One" in PdfReader(pdf).pages[1].extract_text()


@pytest.mark.parametrize("args", EXPORTS)
def test_export_with_errors_writes_nothing(project: Path, args: tuple[str, ...]) -> None:
    records = project / "cards" / "cards.json"
    records.write_text(records.read_text().replace('"element": "fire"', '"element": "fyre"', 1))
    done = pnp(project, "export", *args)
    assert done.returncode == 1
    assert "enum-mismatch" in done.stdout and "cards/cards.json:" in done.stdout
    assert "Traceback" not in done.stderr
    assert not (project / "output").exists()


def test_text_that_does_not_fit_stops_its_kind_only(project: Path) -> None:
    ok(project, "export", "png")
    folder = project / "output" / "test" / "png" / "test.card"
    before = (folder / "card-02-front.png").read_bytes()
    records = project / "cards" / "cards.json"
    data = json.loads(records.read_text())
    data[2]["text"] = "A very long rules text. " * 60
    records.write_text(json.dumps(data, indent=2))
    spells = project / "cards" / "spells.json"
    spells.write_text(spells.read_text().replace("Spell 1", "Spell One"))
    done = pnp(project, "export", "png")
    assert done.returncode == 1
    assert "text-overflow" in done.stdout and "'card-02'" in done.stdout
    assert (folder / "card-02-front.png").read_bytes() == before
    assert "output/test/png/test.spell" in done.stderr  # the other kind is written
    assert not list(folder.glob(".*.tmp"))


def test_copies_that_cannot_be_counted_stop_the_kind(project: Path) -> None:
    layout = project / "layouts" / "test-card.json"
    spec = json.loads(layout.read_text())
    spec["copies"] = "{{ name }}"
    layout.write_text(json.dumps(spec))
    done = pnp(project, "export", "png")
    assert done.returncode == 1 and "copies must give a whole number" in done.stdout
    assert done.stdout.count("error[template-error]") == 1 and "layouts/test-card.json:1:" in done.stdout  # once
    assert not (project / "output" / "test" / "png" / "test.card").exists()
    assert (project / "output" / "test" / "png" / "test.spell" / "spell-1-front.png").is_file()


def test_usage_errors_are_one_line(project: Path) -> None:
    """The real process: its exit status and what it prints on stderr."""
    done = process(project, "export", "png", "no.such-kind")
    assert done.returncode == 2 and "unknown kind 'no.such-kind'" in done.stderr and "Traceback" not in done.stderr
    done = process(project, "export", "png", "--dpi", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    done = process(project, "export")
    assert all(name in done.stdout + done.stderr for name in ("printshop", "png", "tts", "gallery"))


# --- gallery --------------------------------------------------------------------------------


def test_gallery_page_offline_with_fields_and_problems(project: Path) -> None:
    ok(project, "export", "gallery")
    gallery = project / "output" / "gallery"
    html = (gallery / "index.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert len(sources) == 16  # 11 cards (card-03's copies shown once) + 5 spells
    for source in sources:
        assert (gallery / source).is_file(), source
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing from the network
    assert "<h2>Test game</h2>" in html and 'id="kind-test.card"' in html and 'id="kind-test.spell"' in html
    assert "Deal 1 {damage} to a unit." in html  # a field, as written in the record
    assert "000_6347cdb41225c97f.txt" in html  # nested fields as JSON
    assert "outside-safe-zone" in html
    with Image.open(gallery / "img" / "test" / "test.card" / "card-00-front.png") as image:
        assert image.size == (248, 346)  # 63 x 88 mm at 100 dpi


def test_gallery_with_errors_shows_them_on_their_card(project: Path) -> None:
    records = project / "cards" / "cards.json"
    records.write_text(records.read_text().replace('"element": "fire"', '"element": "fyre"', 1))
    done = pnp(project, "export", "gallery", "--with-errors")
    assert done.returncode == 1 and "written with the errors shown on the page" in done.stderr
    html = (project / "output" / "gallery" / "index.html").read_text()
    figure = re.search(r'<figure class="([^"]+)"[^>]*data-name="card 00 card-00".*?</figure>', html, re.S)
    assert figure is not None and "has-error" in figure.group(1)
    assert "error[enum-mismatch]" in figure.group(0) and "cards/cards.json:" in figure.group(0)
    other = re.search(r'<figure class="([^"]+)"[^>]*data-name="card 01 card-01".*?</figure>', html, re.S)
    assert other is not None and "enum-mismatch" not in other.group(0)
    assert len(re.findall(r"<img ", html)) == 16


@pytest.fixture()
def browser():  # type: ignore[no-untyped-def]
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (/usr/bin/chromium, /usr/bin/chromedriver); "
            "make test installs them with apt-get when run as root"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def test_gallery_in_a_real_browser(project: Path, browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    ok(project, "export", "gallery")
    browser.get((project / "output" / "gallery" / "index.html").as_uri())
    assert "build test project" in browser.title
    images = browser.find_elements(By.TAG_NAME, "img")
    assert len(images) == 16  # one per card
    loaded = browser.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
    assert all(loaded), loaded

    def visible() -> list[str]:
        return [
            card.get_attribute("data-name")
            for card in browser.find_elements(By.CSS_SELECTOR, "figure.card")
            if card.is_displayed()
        ]

    assert len(visible()) == 16
    search = browser.find_element(By.ID, "search")
    search.send_keys("Card 03")
    assert visible() == ["card 03 card-03"]
    assert browser.find_element(By.ID, "count").text == "1 of 16 cards"
    assert not browser.find_element(By.ID, "kind-test.spell").is_displayed()  # an empty group hides
    browser.save_screenshot(str(tmp_path / "gallery-search.png"))
    search.clear()
    search.send_keys("spell")
    assert len(visible()) == 5 and all(name.startswith("spell ") for name in visible())
    search.clear()
    search.send_keys("nothing like this")
    assert visible() == [] and browser.find_element(By.ID, "no-match").is_displayed()
    browser.execute_script(
        "var s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input'))"
    )
    assert len(visible()) == 16
    browser.find_element(By.ID, "backs").click()
    assert browser.find_elements(By.TAG_NAME, "img")[0].get_attribute("src").endswith("card-00-back.png")
    shot = Path(os.environ.get("PNP_SCREENSHOT", tmp_path / "gallery.png"))
    browser.find_element(By.ID, "backs").click()
    browser.save_screenshot(str(shot))
    with Image.open(shot) as screenshot:
        assert screenshot.size[0] > 0
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe
