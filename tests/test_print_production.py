"""Print production on real PDFs: packing kinds onto shared sheets, cutting styles, fold-and-glue,
registration labels. One small project (tests/build_project plus a second card kind) built once
per style and shared by the tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader

from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
MM = 72 / 25.4  # points in a millimetre
TOLERANCE = 0.1 * MM
# 3 x 3 poker cards (63 x 88 mm) butted on A4, worked out by hand: the 189 x 264 mm block is
# centred. Each slot: (left, bottom) of the trim in mm (PDF coordinates), rows from the top.
SLOTS_MM = [(x, y) for y in (192.5, 104.5, 16.5) for x in (10.5, 73.5, 136.5)]


def make_project(target: Path) -> Path:
    """build_project plus `test.relic`: 4 poker cards with backs, to share sheets with the cards."""
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    schema = json.loads((target / "schemas" / "test.spell.schema.json").read_text())
    schema["$id"] = schema["$id"].replace("test.spell", "test.relic")
    schema["properties"]["kind"] = {"const": "test.relic"}
    del schema["title"]  # a kind without a title: its sheets' labels name it by its key
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
    faces = poker_faces(project)
    with pdfplumber.open(combined) as pdf:
        for sheet in range(2):
            backs = _words(pdf.pages[2 * sheet + 1])
            on_sheet = faces[9 * sheet : 9 * sheet + 9]
            assert sheet == 0 or any(f.startswith("relic") for f in on_sheet)
            for (left, bottom), face in zip(SLOTS_MM, on_sheet, strict=False):
                # long-edge duplex: the back is at the mirrored slot, its id centred 44 mm below the top
                expected = ((210 - (left + 31.5)) * MM, (bottom + 88 - 44) * MM)
                assert any(
                    text == face and abs(x - expected[0]) < TOLERANCE and abs(y - expected[1]) < 1.0
                    for text, x, y in backs
                ), (face, expected)
        text = pdf.pages[2].extract_text()
    assert "Relic 1" in text and "Relic 4" in text  # the relics' fronts follow the cards on sheet 2


def test_sheets_name_their_file_kind_and_number(packed: tuple[Path, str]) -> None:
    """Each sheet's label names its kind by the schema's title (the key when it has none: test.relic)."""
    project, _ = packed
    card = "Test card: exercises every schema feature the checks rely on"
    with pdfplumber.open(project / "output" / "test" / "test.card.pdf") as pdf:
        assert f"{card} 2/2, fronts" in pdf.pages[2].extract_text()
        assert f"{card} 1/2, backs" in pdf.pages[1].extract_text()
        assert "test.card" not in pdf.pages[2].extract_text()
    with pdfplumber.open(project / "output" / "test.pdf") as pdf:
        assert f"test: {card} + test.relic 2/3, fronts" in " ".join(pdf.pages[2].extract_text().split())
        assert "test: Test spell 3/3, fronts" in pdf.pages[4].extract_text()


def _mark_positions(page: pdfplumber.page.Page) -> tuple[list[float], list[float], list[float]]:
    """x of solid vertical marks, y (PDF coordinates) of horizontal ones, x of dashed (fold) ones; in mm."""
    xs, ys, folds = set(), set(), set()
    for line in page.lines:
        dashed = bool(line.get("dash") and line["dash"][0])
        if abs(line["x0"] - line["x1"]) < 0.01:
            (folds if dashed else xs).add(round(line["x0"] / MM, 2))
        elif abs(line["top"] - line["bottom"]) < 0.01 and not dashed:  # a dashed horizontal one: a fold
            ys.add(round((page.height - line["top"]) / MM, 2))
    return sorted(xs), sorted(ys), sorted(folds)


def _close(found: list[float], expected: list[float]) -> bool:
    return len(found) == len(expected) and all(abs(f - e) < 0.1 for f, e in zip(found, expected, strict=True))


# Trim lines worked out by hand for 63 x 88 mm cards with 3 mm bleed on A4 (210 x 297 mm), 5 mm margins.
# butted: 3 x 3 cards, block 189 x 264 mm centred; gutter (pnp.toml gutter = 2): 2 x 3 cards
# 3 + 2 + 3 = 8 mm apart, block 134 x 280 mm; fold: 1 x 3 fronts whose trim ends 3 mm left of the
# fold (x = 105), backs mirrored.
STYLES = {
    "butted": ((), [10.5, 73.5, 136.5, 199.5], [16.5, 104.5, 192.5, 280.5]),
    "gutter": (("--cutting", "gutter"), [38, 101, 109, 172], [8.5, 96.5, 104.5, 192.5, 200.5, 288.5]),
    "fold": ((), [39, 102, 108, 171], [16.5, 104.5, 192.5, 280.5]),  # duplex = "fold" in pnp.toml
}


@pytest.fixture(scope="module")
def styles(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The project built in a cutting style (once a style, for the module)."""
    built: dict[str, Path] = {}

    def build(style: str) -> Path:
        if style not in built:
            project = make_project(tmp_path_factory.mktemp(style) / "project")
            toml = project / "pnp.toml"
            duplex = "fold" if style == "fold" else "long"
            toml.write_text(toml.read_text().replace('duplex = "long"', f'duplex = "{duplex}"\ngutter = 2'))
            done = pnp(project, "build", *STYLES[style][0])
            assert done.returncode == 0, done.stdout + done.stderr
            built[style] = project
        return built[style]

    return build


@pytest.fixture(params=sorted(STYLES))
def styled(request: pytest.FixtureRequest, styles: Callable[[str], Path]) -> tuple[str, Path]:
    return request.param, styles(request.param)


def test_crop_marks_give_the_trim_lines_of_each_cutting_style(styled: tuple[str, Path]) -> None:
    style, project = styled
    _, xs, ys = STYLES[style]
    for path in (project / "output" / "test" / "test.card.pdf", project / "output" / "test.pdf"):
        with pdfplumber.open(path) as pdf:
            found_x, found_y, folds = _mark_positions(pdf.pages[0])
        assert _close(found_x, xs), (path.name, found_x)
        assert _close(found_y, ys), (path.name, found_y)
        assert folds == ([105.0] if style == "fold" else [])


def _front_titles(page: pdfplumber.page.Page, trim_ys: list[float]) -> list[tuple[str, float, float]]:
    """Each card front found from its title ("Card 00", "Relic 1"): id, centre x of its trim and its
    top trim line (mm, PDF coordinates): the title starts 5 mm right of the trim's left edge and
    the top is the nearest trim line above it."""
    words = page.extract_words()
    found = []
    for first, second in zip(words, words[1:], strict=False):
        if first["text"] in ("Card", "Relic") and second["top"] == first["top"]:
            face = f"{first['text'].lower()}-{second['text']}"
            title_y = page.height / MM - first["top"] / MM
            top = min(y for y in trim_ys if y > title_y)
            found.append((face, (first["x0"] - 5 * MM) / MM + 31.5, top))
    return found


def test_every_back_lands_on_its_front(styled: tuple[str, Path]) -> None:
    """Fold: folding about x = 105 mm takes each back onto its own front; duplex: turning the sheet
    over its long edge does. The back's id is centred 44 mm below the top: within 0.1 mm across,
    a point (its baseline) down."""
    style, project = styled
    _, _, trim_ys = STYLES[style]
    for path in (project / "output" / "test" / "test.card.pdf", project / "output" / "test.pdf"):
        with pdfplumber.open(path) as pdf:
            fronts = _front_titles(pdf.pages[0], trim_ys)
            back_page = pdf.pages[0] if style == "fold" else pdf.pages[1]
            backs = [(t, x / MM, y / MM) for t, x, y in _words(back_page) if t.startswith(("card-", "relic-"))]
        assert len(fronts) == len(backs) == (9 if style == "butted" else 6 if style == "gutter" else 3), path.name
        for face, front_x, top in fronts:
            assert any(
                text == face and abs((210 - x) - front_x) < 0.1 and abs(y - (top - 44)) < 1 / MM for text, x, y in backs
            ), (path.name, face, front_x, top, backs)


def _pixel_above_first_card(project: Path, bleed: bool) -> tuple[int, int, int]:
    """Build with the card art across the top (x 0-63 mm, y 0-30 mm), and read the colour 1.5 mm
    above the top-left card's trim, in its bleed, 2 mm from its left edge (at 150 dpi)."""
    import pypdfium2

    layout = project / "layouts" / "test-card.json"
    data = json.loads(layout.read_text())
    art = {"name": "art", "type": "image", "x": 0, "y": 0, "w": 63, "h": 30, "src": "{{ image }}", "fit": "cover"}
    data["front"]["elements"][1] = {**art, **({"bleed": True} if bleed else {})}
    layout.write_text(json.dumps(data))
    done = pnp(project, "build", "test.card")
    assert done.returncode == 0, done.stdout + done.stderr
    pdf = pypdfium2.PdfDocument(project / "output" / "test" / "test.card.pdf")
    image = pdf[0].render(scale=150 / 72).to_pil().convert("RGB")
    # the top-left card's trim runs from x = 10.5 mm and its top is 280.5 mm up, 16.5 mm below the page's top
    x = (10.5 + 2) * MM * 150 / 72
    y = (16.5 - 1.5) * MM * 150 / 72  # from the top of the page, as the image counts
    pixel: tuple[int, int, int] = image.getpixel((round(x), round(y)))
    pdf.close()
    return pixel


def test_an_image_with_bleed_reaches_the_bleed_edge(tmp_path: Path) -> None:
    sky = (58, 123, 213)  # the blue of art/sun.png's corners; the band behind it is red (fire)
    with_bleed = _pixel_above_first_card(make_project(tmp_path / "with"), bleed=True)
    without = _pixel_above_first_card(make_project(tmp_path / "without"), bleed=False)
    assert all(abs(a - b) < 12 for a, b in zip(with_bleed, sky, strict=True)), with_bleed
    assert not all(abs(a - b) < 12 for a, b in zip(without, sky, strict=True)), without
    # and check warns about the second, not the first
    assert "short-of-bleed" in pnp(tmp_path / "without", "check").stdout
    assert "short-of-bleed" not in pnp(tmp_path / "with", "check").stdout


STAR_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">'
    '<polygon points="50,5 61,38 95,38 67,59 78,92 50,72 22,92 33,59 5,38 39,38" fill="#13579b"/></svg>'
)
FACES = {"regular": "", "bold": "Bold", "italic": "Oblique", "bold_italic": "BoldOblique"}


def _renamed_face(style: str, target: Path) -> None:
    """The bundled DejaVu Sans face, renamed PnpTest-<style>, so its embedded name proves which file drew."""
    from fontTools.ttLib import TTFont

    source = ROOT / "pnp" / "fonts" / (f"DejaVuSans-{FACES[style]}.ttf" if FACES[style] else "DejaVuSans.ttf")
    font = TTFont(source)
    for record in font["name"].names:
        if record.nameID in (1, 4, 6, 16):
            record.string = f"PnpTest-{style}" if record.nameID == 6 else f"PnpTest {style}"
    font.save(target)


@pytest.fixture(scope="module")
def family_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Cards whose rules and motto use a four-face family, and whose {gold} icon is an SVG."""
    project = make_project(tmp_path_factory.mktemp("family") / "project")
    (project / "fonts").mkdir()
    for style in FACES:
        _renamed_face(style, project / "fonts" / f"{style}.ttf")
    family = {style: f"fonts/{style}.ttf" for style in FACES}
    layout = project / "layouts" / "test-card.json"
    data = json.loads(layout.read_text())
    for element in data["front"]["elements"]:
        if element["name"] == "rules":
            element["font"] = family
    motto = {"name": "motto", "type": "text", "x": 40, "y": 80, "w": 18, "h": 6, "text": "*Motto*", "size": 6}
    data["front"]["elements"].append({**motto, "italic": True, "font": family})
    layout.write_text(json.dumps(data))
    (project / "art" / "star.svg").write_text(STAR_SVG)
    icons_file = project / "layouts" / "icons.json"
    icons = json.loads(icons_file.read_text())
    icons["icons"]["gold"]["image"] = "art/star.svg"
    icons_file.write_text(json.dumps(icons))
    done = pnp(project, "build", "test.card")
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def test_a_font_family_embeds_each_of_its_faces(family_project: Path) -> None:
    import pikepdf

    names = set()
    with pikepdf.open(family_project / "output" / "test" / "test.card.pdf") as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor":
                names.add(str(obj.FontName).split("+", 1)[-1])
        base_fonts = {
            str(o.BaseFont) for o in pdf.objects if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/Font"
        }
    assert {f"PnpTest-{style}" for style in FACES} <= names, names
    assert not any("Helvetica" in name for name in base_fonts), base_fonts  # the SVG brought no font of its own


def _content(obj: object, seen: set[tuple[int, int]]) -> bytes:
    """A page's or form's content, with that of every form XObject it draws (however issue 16 nests them)."""
    import pikepdf

    data = b""
    if isinstance(obj, pikepdf.Page):
        data = (
            obj.obj.Contents.read_bytes()
            if isinstance(obj.obj.Contents, pikepdf.Stream)
            else b"".join(s.read_bytes() for s in obj.obj.Contents)
        )
        resources = obj.obj.get("/Resources", {})
    else:
        assert isinstance(obj, pikepdf.Stream)
        data = obj.read_bytes()
        resources = obj.get("/Resources", {})
    for xobject in dict(resources.get("/XObject", {})).values():
        if xobject.get("/Subtype") == "/Form" and xobject.objgen not in seen:
            seen.add(xobject.objgen)
            data += b"\n" + _content(xobject, seen)
    return data


def _image_sizes(obj: object, seen: set[tuple[int, int]]) -> list[tuple[int, int]]:
    import pikepdf

    resources = obj.obj.get("/Resources", {}) if isinstance(obj, pikepdf.Page) else obj.get("/Resources", {})  # type: ignore[attr-defined]
    sizes = []
    for xobject in dict(resources.get("/XObject", {})).values():
        if xobject.objgen in seen:
            continue
        seen.add(xobject.objgen)
        if xobject.get("/Subtype") == "/Image":
            sizes.append((int(xobject.Width), int(xobject.Height)))
        elif xobject.get("/Subtype") == "/Form":
            sizes += _image_sizes(xobject, seen)
    return sizes


def test_an_svg_icon_is_drawn_as_vector_paths(family_project: Path) -> None:
    import pikepdf

    with pikepdf.open(family_project / "output" / "test" / "test.card.pdf") as pdf:
        page = pdf.pages[0]
        content = _content(page, set())
        sizes = _image_sizes(page, set())
    # the star's fill (#13579b) is set, and polygons drawn with moveto/lineto ... fill
    assert b"0.07451 0.341176 0.607843 rg" in content or b".07451 .341176 .607843 rg" in content, content[:400]
    assert re_count(rb"[\d.]+ [\d.]+ l\b", content) >= 10
    assert sizes and all(size == (120, 80) for size in sizes), sizes  # the only raster is the art (sun.png)


def re_count(pattern: bytes, data: bytes) -> int:
    import re

    return len(re.findall(pattern, data))


def test_pnp_toml_chooses_the_cutting_style(tmp_path: Path) -> None:
    """[build] cutting = "gutter" with gutter = 2, without a command-line option: the gutter trims."""
    project = make_project(tmp_path / "project")
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('duplex = "long"', 'duplex = "long"\ncutting = "gutter"\ngutter = 2'))
    done = pnp(project, "build", "test.card")
    assert done.returncode == 0, done.stdout + done.stderr
    with pdfplumber.open(project / "output" / "test" / "test.card.pdf") as pdf:
        xs, ys, _ = _mark_positions(pdf.pages[0])
    assert _close(xs, STYLES["gutter"][1]) and _close(ys, STYLES["gutter"][2]), (xs, ys)


def test_an_icon_image_that_is_not_there_is_located_in_icons_json(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    icons_file = project / "layouts" / "icons.json"
    icons = json.loads(icons_file.read_text())
    icons["icons"]["gold"]["image"] = "art/nope.svg"
    icons_file.write_text(json.dumps(icons, indent=1))
    done = pnp(project, "check", "--no-render")
    line = next(n for n, text in enumerate(icons_file.read_text().splitlines(), 1) if "nope.svg" in text)
    assert done.returncode == 1
    assert (
        f"layouts/icons.json:{line}:" in done.stdout
        and "icon 'gold': image 'art/nope.svg' does not exist" in done.stdout
    )


def test_fold_leaves_faces_without_backs_the_whole_page(styles: Callable[[str], Path]) -> None:
    """Round tokens have no back: in fold they use the whole page's grid, past the fold line, and no fold line."""
    project = styles("fold")
    for path in (project / "output" / "test" / "test.spell.pdf", project / "output" / "test.pdf"):
        with pdfplumber.open(path) as pdf:
            page = pdf.pages[-1]
            xs, _, folds = _mark_positions(page)
            assert "Spell 5" in (page.extract_text() or "")
        # 7 columns of 25 mm tokens from 17.5 mm: the 5 tokens' trims run to 142.5 mm, past the fold at 105
        assert folds == [] and max(xs) == pytest.approx(142.5, abs=0.1), (path.name, xs)


def test_cards_too_wide_for_half_the_page_fold_about_its_horizontal_centre(tmp_path: Path) -> None:
    """On 100 x 297 mm paper a poker card does not fit beside its back: the fold is y = 148.5 mm,
    fronts below it, and folding takes each back's id onto its front's centre (x to 0.1 mm)."""
    project = make_project(tmp_path / "project")
    done = pnp(project, "build", "test.card", "--paper", "100x297mm", "--duplex", "fold")
    assert done.returncode == 0, done.stdout + done.stderr
    with pdfplumber.open(project / "output" / "100x297mm-fold" / "test" / "test.card.pdf") as pdf:
        page = pdf.pages[0]
        words = _words(page)
        dashed = [line for line in page.lines if line.get("dash") and line["dash"][0]]
    fronts = [(x / MM, y / MM) for text, x, y in words if text == "Card"]
    backs = [(text, x / MM, y / MM) for text, x, y in words if text.startswith("card-")]
    assert len(fronts) == len(backs) == 1
    assert dashed and all(abs((page.height - line["top"]) / MM - 148.5) < 0.1 for line in dashed)
    with pdfplumber.open(project / "output" / "100x297mm-fold" / "test" / "test.card.pdf") as pdf:
        xs, ys, _ = _mark_positions(pdf.pages[0])
    # trims: one column centred (18.5 to 81.5 mm); front 57.5-145.5 mm, back its mirror 151.5-239.5 mm
    assert _close(xs, [18.5, 81.5]) and _close(ys, [57.5, 145.5, 151.5, 239.5]), (xs, ys)
    (_, back_x, back_y), (front_x, _) = backs[0], fronts[0]
    assert abs(back_x - 50) < 0.1  # the back's id centred across the back, which lies over the front
    assert abs(back_y - (239.5 - 44)) < 1 / MM  # 44 mm below the back's top (its baseline within a point)
    assert front_x < 50  # the title starts left of centre: the front is where the marks say
