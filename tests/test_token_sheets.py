"""Token sheets on real PDFs: tokens of three sizes (20 mm discs, 25 mm squares with backs, 30 mm
hexagons with backs; tests/token_project) share one sheet of the combined file, each with its
whole bleed and its own cut guide, backs mirrored onto their fronts. Built once per module."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader

from tests.runpnp import copy_project, pnp

MM = 72 / 25.4
A4_WIDTH, A4_HEIGHT = 210.0, 297.0  # mm
BLEED = 2.0  # every token layout's bleed, mm
SIZES = {"d": (20.0, 20.0), "s": (25.0, 25.0), "h": (30 * 2 / math.sqrt(3), 30.0)}  # trims, mm (layouts/)
COUNTS = {"d": 24, "s": 12, "h": 12}  # cards/


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    project = tmp_path_factory.mktemp("tokens") / "project"
    copy_project("token_project", project)
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    return project, done.stderr


def centres(page: pdfplumber.page.Page) -> dict[str, tuple[float, float]]:
    """Each token's id label -> its centre in mm from the page's lower left (labels are centred on the trim)."""
    found = {}
    for word in page.extract_words():
        if word["text"][0] in SIZES and word["text"][1:].isdigit():
            x = (word["x0"] + word["x1"]) / 2 / MM
            y = (page.height - (word["top"] + word["bottom"]) / 2) / MM
            found[word["text"]] = (x, y)
    return found


@pytest.fixture(scope="module")
def pages(built: tuple[Path, str]) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
    project, _ = built
    with pdfplumber.open(project / "output" / "tok.pdf") as pdf:
        return centres(pdf.pages[0]), centres(pdf.pages[1])


def test_three_sizes_share_one_sheet_and_build_says_so(built: tuple[Path, str]) -> None:
    project, stderr = built
    for kind in ("disc", "square", "hex"):
        assert f"wrote output/tok/tok.{kind}.pdf (1 sheet)" in stderr
    assert "wrote output/tok.pdf (1 sheet)" in stderr  # 1 sheet, where the kinds' own files take 3
    assert len(PdfReader(project / "output" / "tok.pdf").pages) == 2  # its fronts and its backs


def test_every_token_is_on_the_sheet_once_in_a_stable_order(
    pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]],
) -> None:
    fronts, backs = pages
    assert sorted(fronts) == sorted(f"{k}{n}" for k, count in COUNTS.items() for n in range(1, count + 1))
    assert sorted(backs) == sorted(f"{k}{n}" for k in "sh" for n in range(1, COUNTS[k] + 1))  # discs have no back
    # tallest kind first: every hexagon above every square, the squares in reading order
    assert min(y for t, (_, y) in fronts.items() if t[0] == "h") > max(y for t, (_, y) in fronts.items() if t[0] == "s")
    squares = [fronts[f"s{n}"] for n in range(1, 13)]
    assert squares == sorted(squares, key=lambda c: (-round(c[1]), c[0]))


def test_no_token_or_bleed_reaches_another_and_all_stay_in_the_margins(
    pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]],
) -> None:
    fronts, _ = pages
    for (a, (ax, ay)), (b, (bx, by)) in itertools.combinations(fronts.items(), 2):
        if a[0] == b[0] == "h":  # honeycomb neighbours: flat sides 2 x bleed apart, or more
            assert math.dist((ax, ay), (bx, by)) >= 30 + 2 * BLEED - 0.3, (a, b)
            continue
        (aw, ah), (bw, bh) = SIZES[a[0]], SIZES[b[0]]
        apart_x = abs(ax - bx) - (aw + bw) / 2
        apart_y = abs(ay - by) - (ah + bh) / 2
        assert max(apart_x, apart_y) >= 2 * BLEED - 0.3, (a, b, apart_x, apart_y)  # labels: +-0.2 mm
    for token, (x, y) in fronts.items():
        width, height = SIZES[token[0]]
        assert x - width / 2 - BLEED >= 5 - 0.1 and x + width / 2 + BLEED <= A4_WIDTH - 5 + 0.1, token
        assert y - height / 2 - BLEED >= 5 - 0.3 and y + height / 2 + BLEED <= A4_HEIGHT - 5 + 0.3, token


def extent(found: dict[str, tuple[float, float]]) -> tuple[float, float, float, float]:
    """The trims' bounding box of the tokens found (mm): left, right, bottom, top."""
    return (
        min(x - SIZES[t[0]][0] / 2 for t, (x, _) in found.items()),
        max(x + SIZES[t[0]][0] / 2 for t, (x, _) in found.items()),
        min(y - SIZES[t[0]][1] / 2 for t, (_, y) in found.items()),
        max(y + SIZES[t[0]][1] / 2 for t, (_, y) in found.items()),
    )


def test_the_packed_group_is_centred_on_the_sheet(
    pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]],
) -> None:
    """Like a card grid: as much paper left of the group as right of it, above as below (labels
    sit a fraction of a millimetre off their trims' centres, hence the vertical allowance)."""
    fronts, _ = pages
    left, right, bottom, top = extent(fronts)
    assert abs(left - (A4_WIDTH - right)) < 0.2, (left, right)
    assert abs(bottom - (A4_HEIGHT - top)) < 0.6, (bottom, top)
    assert bottom > 5 + 20  # not on the bottom margin: the group is much shorter than the page


def test_every_back_is_its_fronts_mirror_image(
    pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]],
) -> None:
    fronts, backs = pages
    for token, (x, y) in backs.items():
        front_x, front_y = fronts[token]
        assert abs((A4_WIDTH - x) - front_x) < 0.1 and abs(y - front_y) < 0.1, (token, x, front_x)


def test_each_square_token_has_its_own_corner_guides(
    built: tuple[Path, str], pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]
) -> None:
    project, _ = built
    fronts, _ = pages
    with pdfplumber.open(project / "output" / "tok.pdf") as pdf:
        page = pdf.pages[0]
        ends = [
            (
                (line["x0"] / MM, (page.height - line["bottom"]) / MM),
                (line["x1"] / MM, (page.height - line["top"]) / MM),
            )
            for line in page.lines
        ]
    for n in range(1, 13):
        x, y = fronts[f"s{n}"]  # the label's centre: the trim's, give or take the font's descent
        corners = []
        for cx, cy in itertools.product((x - 12.5, x + 12.5), (y - 12.5, y + 12.5)):
            near = [p for e in ends for p in e if abs(p[0] - cx) < 0.1 and abs(p[1] - cy) < 0.5]
            corner = max(set(near), key=near.count) if near else (cx, cy)
            ticks = [e for e in ends if corner in e]  # a horizontal and a vertical tick from each trim corner, outwards
            assert len(ticks) == 2, (n, cx, cy, near)
            for (x0, y0), (x1, y1) in ticks:
                far_x, far_y = (x1, y1) if (x0, y0) == corner else (x0, y0)
                assert (far_x - corner[0]) * (cx - x) >= 0 and (far_y - corner[1]) * (cy - y) >= 0, (n, corner)
                assert 0.5 <= math.dist((x0, y0), (x1, y1)) <= BLEED + 0.01, (n, x0, y0, x1, y1)
            corners.append(corner)
        xs, ys = sorted({round(c[0], 2) for c in corners}), sorted({round(c[1], 2) for c in corners})
        assert len(xs) == len(ys) == 2 and abs(xs[1] - xs[0] - 25) < 0.1 and abs(ys[1] - ys[0] - 25) < 0.1, n


def test_a_token_keeps_its_whole_bleed_where_its_own_file_had_a_neighbour(
    built: tuple[Path, str], pages: tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]
) -> None:
    """s6 ends the first row of squares on the token sheet; in tok.square.pdf (butted) the next square
    touches its right edge, so that file draws no bleed there. On the token sheet its blue reaches on."""
    import pypdfium2

    project, _ = built
    fronts, _ = pages
    x, y = fronts["s6"]
    dpi = 150
    pdf = pypdfium2.PdfDocument(project / "output" / "tok.pdf")
    image = pdf[0].render(scale=dpi / 72).to_pil().convert("RGB")
    pdf.close()

    def colour(right_of_trim: float) -> tuple[int, int, int]:
        pixel: tuple[int, int, int] = image.getpixel(
            (round((x + 12.5 + right_of_trim) * dpi / 25.4), round((A4_HEIGHT - y) * dpi / 25.4))
        )
        return pixel

    assert all(abs(a - b) < 12 for a, b in zip(colour(1.5), (0x85, 0xC1, 0xE9), strict=True)), colour(1.5)
    assert colour(BLEED + 1.0) == (255, 255, 255)  # and no further: nothing to its right


def test_the_token_sheet_is_byte_identical_when_built_again(built: tuple[Path, str]) -> None:
    project, _ = built
    first = (project / "output" / "tok.pdf").read_bytes()
    done = pnp(project, "build", "--force")
    assert done.returncode == 0, done.stderr
    assert (project / "output" / "tok.pdf").read_bytes() == first


def test_fold_puts_each_back_beside_its_front_across_the_fold(tmp_path: Path) -> None:
    project = tmp_path / "project"
    copy_project("token_project", project)
    done = pnp(project, "build", "--duplex", "fold")
    assert done.returncode == 0, done.stdout + done.stderr
    with pdfplumber.open(project / "output" / "fold" / "tok.pdf") as pdf:
        first = pdf.pages[0]
        words = [
            (w["text"], (w["x0"] + w["x1"]) / 2 / MM, (first.height - (w["top"] + w["bottom"]) / 2) / MM)
            for w in first.extract_words()
            if w["text"][0] in "sh" and w["text"][1:].isdigit()
        ]
    assert words
    for token in {t for t, _, _ in words}:
        (front_x, front_y), (back_x, back_y) = sorted((x, y) for t, x, y in words if t == token)
        assert front_x + SIZES[token[0]][0] / 2 <= A4_WIDTH / 2 and abs(front_y - back_y) < 0.1, token
        assert abs((A4_WIDTH - back_x) - front_x) < 0.1, (token, front_x, back_x)  # mirrored about the fold line
    fronts = {t: (x, y) for t, x, y in words if x < A4_WIDTH / 2}
    left, right, bottom, top = extent(fronts)
    assert abs(right - (A4_WIDTH / 2 - BLEED)) < 0.2, right  # against the fold, as a card grid is
    assert abs(bottom - (A4_HEIGHT - top)) < 0.6, (bottom, top)  # and centred top to bottom


def test_short_edge_backs_mirror_their_fronts_top_to_bottom(tmp_path: Path) -> None:
    project = copy_project("token_project", tmp_path / "project")
    done = pnp(project, "build", "--duplex", "short")
    assert done.returncode == 0, done.stdout + done.stderr
    with pdfplumber.open(project / "output" / "short" / "tok.pdf") as pdf:
        fronts, backs = centres(pdf.pages[0]), centres(pdf.pages[1])
    assert sorted(backs) == sorted(t for t in fronts if t[0] in "sh")
    for kind in "sh":
        # turned over the short edge: same x, y mirrored (a label's centre sits a fixed fraction of a
        # millimetre off its trim's, on both sides alike, so front y + back y is one constant)
        sums = [y + fronts[t][1] for t, (_, y) in backs.items() if t[0] == kind]
        assert max(sums) - min(sums) < 0.1 and abs(sums[0] - A4_HEIGHT) < 0.5, (kind, sums)
    for token, (x, _) in backs.items():
        assert abs(x - fronts[token][0]) < 0.1, token


HEX_HIGH = 40.0  # the honeycomb test's hexagons: 40 mm across flats, gutter cutting
HEX_WIDE = HEX_HIGH * 2 / math.sqrt(3)


def honeycomb_project(tmp_path: Path, duplex: str, sheets: str) -> Path:
    """tests/token_project with 24 hexagons of 40 mm cut with gutters: a grid of their boxes holds
    18 on A4 (3 columns of 46.2 + 4 mm, 6 rows of 40 + 4 mm, inside 5 mm margins), so 2 sheets;
    a honeycomb holds them all on 1. In fold (fronts on half the page) 9 a sheet, 3 sheets; 12, 2."""
    import json

    project = copy_project("token_project", tmp_path / "project")
    toml = project / "pnp.toml"
    text = toml.read_text().replace('duplex = "long"', f'duplex = "{duplex}"')  # output/ holds this duplex mode
    toml.write_text(text + "\n[paper]\nmargin = 5\n")  # the 5 mm margins worked out above
    layout_path = project / "layouts" / "tok-hex.json"
    layout = json.loads(layout_path.read_text())
    layout["size"] = {"width": round(HEX_WIDE, 3), "height": HEX_HIGH}
    layout["cutting"] = "gutter"
    layout_path.write_text(json.dumps(layout))
    records = [{"kind": "tok.hex", "id": f"h{n}", "name": f"H{n}"} for n in range(1, 25)]
    (project / "cards" / "hex.json").write_text(json.dumps(records, indent=1))
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"wrote output/tok/tok.hex.pdf ({sheets})" in done.stderr
    return project


def test_a_hex_kind_alone_is_a_honeycomb_in_its_own_file_backs_mirrored(tmp_path: Path) -> None:
    project = honeycomb_project(tmp_path, "long", "1 sheet")
    own = project / "output" / "tok" / "tok.hex.pdf"
    with pdfplumber.open(own) as pdf:
        assert len(pdf.pages) == 2  # one sheet: fronts and backs
        fronts, backs = centres(pdf.pages[0]), centres(pdf.pages[1])
        crop = [
            ln for ln in pdf.pages[0].lines if abs(math.hypot(ln["x1"] - ln["x0"], ln["y1"] - ln["y0"]) - 4 * MM) < 0.1
        ]
    assert sorted(fronts) == sorted(backs) == sorted(f"h{n}" for n in range(1, 25))
    for token, (x, y) in backs.items():
        assert abs((A4_WIDTH - x) - fronts[token][0]) < 0.1 and abs(y - fronts[token][1]) < 0.1, token
    for (a, pa), (b, pb) in itertools.combinations(fronts.items(), 2):  # flat sides 2 x bleed apart, or more
        assert math.dist(pa, pb) >= HEX_HIGH + 2 * BLEED - 0.3, (a, b)
    columns = sorted({round(x, 1) for x, _ in fronts.values()})
    pitch = 0.75 * (HEX_WIDE + 2 * BLEED * 2 / math.sqrt(3))  # 3/4 of a hexagon grown by half the 2-bleed gap
    assert len(columns) == 4 and all(abs(b - a - pitch) < 0.15 for a, b in itertools.pairwise(columns)), columns
    for x, y in fronts.values():  # inside the 5 mm margins, bleed included
        assert x - HEX_WIDE / 2 - BLEED >= 5 - 0.1 and x + HEX_WIDE / 2 + BLEED <= A4_WIDTH - 5 + 0.1
        assert y - HEX_HIGH / 2 - BLEED >= 5 - 0.3 and y + HEX_HIGH / 2 + BLEED <= A4_HEIGHT - 5 + 0.3
    assert crop == []  # no crop marks: each hexagon carries its own hairline cut guide, as on token sheets
    first = own.read_bytes()
    assert pnp(project, "build", "--force").returncode == 0
    assert own.read_bytes() == first


def test_a_honeycomb_in_fold_puts_each_back_on_its_front(tmp_path: Path) -> None:
    project = honeycomb_project(tmp_path, "fold", "2 sheets")
    with pdfplumber.open(project / "output" / "tok" / "tok.hex.pdf") as pdf:
        page = pdf.pages[0]
        words = [
            (w["text"], (w["x0"] + w["x1"]) / 2 / MM, (page.height - (w["top"] + w["bottom"]) / 2) / MM)
            for w in page.extract_words()
            if w["text"][0] == "h" and w["text"][1:].isdigit()
        ]
    names = {t for t, _, _ in words}
    assert len(names) > 1
    for token in names:
        (front_x, front_y), (back_x, back_y) = sorted((x, y) for t, x, y in words if t == token)
        assert front_x + HEX_WIDE / 2 + BLEED <= A4_WIDTH / 2 + 0.1 and abs(front_y - back_y) < 0.1, token
        assert abs((A4_WIDTH - back_x) - front_x) < 0.1, (token, front_x, back_x)
