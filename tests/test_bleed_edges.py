"""Bleed on every cut edge, measured on the pixels of built pages.

A tiny game of two poker-card kinds with dark full-bleed fronts and backs (two tones, alternating
record by record): `bl.a` has 5 cards (a sheet that is not full), `bl.b` 9 (a full sheet of its
own, spread over two sheets of the combined file). For every face on every page, at three points
along each trim edge: just inside the trim the ink is the face's own colour, and `bleed - 0.5 mm`
outside it the ink is the face's own colour too, unless a face is butted there (then that face's
colour: the shared cut line has the right ink on both sides). The slots are worked out by hand
below, for butted and gutter cutting, long- and short-edge duplex and fold-and-glue; the combined
file opens with the read-me page (and a blank back in duplex), which holds no face.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from tests.rasterise import pages
from tests.runpnp import run as pnp

DPI = 100
BLEED = 3.0
W, H = 63.0, 88.0
PAGE_W, PAGE_H = 210.0, 297.0
FRONT = {"red": (120, 20, 20), "blue": (20, 40, 120)}
BACK = {"red": (20, 90, 30), "blue": (90, 20, 100)}
COUNTS = {"bl.a": 5, "bl.b": 9}


def write_project(root: Path, toml_extra: str = "") -> Path:
    """The bleed game: two kinds, one layout each (a shared abstract base), no art."""
    for folder in ("cards", "schemas", "layouts"):
        (root / folder).mkdir(parents=True)
    (root / "pnp.toml").write_text(
        '[project]\nname = "bleed"\n\n[build]\npaper = "a4"\nduplex = "long"\n'
        + toml_extra
        + '\n[games.bl]\ntitle = "Bleed"\nfolder = "bl"\n'
    )
    base = {
        "abstract": True,
        "unit": "mm",
        "size": "poker",
        "shape": "rect",
        "bleed": BLEED,
        "safe": 3,
        "palettes": {
            "front": {t: hexcolour(c) for t, c in FRONT.items()},
            "back": {t: hexcolour(c) for t, c in BACK.items()},
        },
        "front": {
            "background": {"by": "tone", "palette": "front", "default": "#000000"},
            "elements": [
                {"type": "text", "x": 5, "y": 40, "w": 53, "h": 8, "text": "{{ id }}", "size": 9, "color": "#ffffff"}
            ],
        },
        "back": {"background": {"by": "tone", "palette": "back", "default": "#000000"}, "elements": []},
    }
    (root / "layouts" / "bl-base.json").write_text(json.dumps(base))
    for kind, count in COUNTS.items():
        name = kind.split(".")[1]
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://pnp.invalid/schemas/{kind}.schema.json",
            "type": "object",
            "properties": {"kind": {"const": kind}, "id": {"type": "string"}, "tone": {"enum": list(FRONT)}},
            "required": ["kind", "id", "tone"],
            "additionalProperties": False,
        }
        (root / "schemas" / f"{kind}.schema.json").write_text(json.dumps(schema))
        records = [{"kind": kind, "id": f"{name}-{n}", "tone": tone(n)} for n in range(count)]
        (root / "cards" / f"{name}.json").write_text(json.dumps(records))
        (root / "layouts" / f"bl-{name}.json").write_text(json.dumps({"extends": "bl-base", "kinds": [kind]}))
    return root


def hexcolour(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{v:02x}" for v in rgb)


def tone(n: int) -> str:
    return "red" if n % 2 == 0 else "blue"


# Trim boxes' lower-left corners (mm, PDF coordinates), worked out by hand for 63 x 88 mm cards
# with 3 mm bleed on A4 (5 mm margins), in slot order (rows from the top, left to right).
# butted: 3 x 3, block 189 x 264 mm centred. gutter: 6 mm between trims, 2 x 3, block 132 x 276 mm.
# fold: one column of 3 whose trim ends 3 mm left of the fold (x = 105); backs mirrored about it.
SLOTS = {
    "butted": [(x, y) for y in (192.5, 104.5, 16.5) for x in (10.5, 73.5, 136.5)],
    "gutter": [(x, y) for y in (198.5, 104.5, 10.5) for x in (39.0, 108.0)],
    "fold": [(39.0, y) for y in (192.5, 104.5, 16.5)],
}
SLOTS["short"] = SLOTS["butted"]  # butted, backs turned over the short edge
ARGS = {"butted": (), "gutter": ("--cutting", "gutter"), "fold": ("--duplex", "fold"), "short": ("--duplex", "short")}

Face = tuple[float, float, tuple[int, int, int]]  # trim's lower-left corner (mm) and its colour


def expected_pages(style: str, sequence: list[str]) -> list[list[Face]]:
    """The faces of each page of a file holding the faces `sequence` (their tones), in order."""
    slots = SLOTS[style]
    result: list[list[Face]] = []
    for start in range(0, len(sequence), len(slots)):
        on_sheet = sequence[start : start + len(slots)]
        fronts = [(x, y, FRONT[t]) for (x, y), t in zip(slots, on_sheet, strict=False)]
        if style == "short":  # the paper turned over its short edge: y mirrored
            backs = [(x, PAGE_H - y - H, BACK[t]) for (x, y), t in zip(slots, on_sheet, strict=False)]
        else:  # over its long edge (or folded about the page's vertical centre): x mirrored
            backs = [(PAGE_W - x - W, y, BACK[t]) for (x, y), t in zip(slots, on_sheet, strict=False)]
        result.extend([fronts + backs] if style == "fold" else [fronts, backs])
    return result


def colour_at(image: Image.Image, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    px = round(x_mm / 25.4 * DPI)
    py = round((PAGE_H - y_mm) / 25.4 * DPI)
    value = image.getpixel((px, py))
    assert isinstance(value, tuple)
    return (int(value[0]), int(value[1]), int(value[2]))


def near(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return all(abs(p - q) <= 30 for p, q in zip(a, b, strict=True))


def edge_faults(image: Image.Image, faces: list[Face]) -> list[str]:
    """Every sample point whose ink is not what it should be, described."""
    faults = []
    out = BLEED - 0.5
    for x, y, colour in faces:
        for edge, (dx, dy) in {"left": (-1, 0), "right": (1, 0), "bottom": (0, -1), "top": (0, 1)}.items():
            for share in (0.15, 0.5, 0.85):
                if dx:
                    edge_x = x if dx < 0 else x + W
                    inside, outside = (edge_x - dx * 0.8, y + share * H), (edge_x + dx * out, y + share * H)
                else:
                    edge_y = y if dy < 0 else y + H
                    inside, outside = (x + share * W, edge_y - dy * 0.8), (x + share * W, edge_y + dy * out)
                owner = [c for fx, fy, c in faces if fx < outside[0] < fx + W and fy < outside[1] < fy + H]
                wanted = owner[0] if owner else colour
                for point, want in ((inside, colour), (outside, wanted)):
                    got = colour_at(image, *point)
                    if not near(got, want):
                        faults.append(f"face at ({x}, {y}) {edge} edge, point {point}: {got}, wanted {want}")
    return faults


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The bleed game built in a style (once a style, for the module)."""
    done: dict[str, Path] = {}

    def build(style: str) -> Path:
        if style not in done:
            project = write_project(tmp_path_factory.mktemp(style) / "project")
            ran = pnp(project, "build", *ARGS[style])
            assert ran.returncode == 0, ran.stdout + ran.stderr
            done[style] = project
        return done[style]

    return build


def built_file(project: Path, style: str, name: str) -> Path:
    """Where a build in `style` writes `name` (bl.a.pdf, or bl.pdf for the combined file)."""
    folder = project / "output" / (style if style in ("fold", "short") else "")  # another duplex mode: its own folder
    return folder / name if name == "bl.pdf" else folder / "bl" / name


@pytest.mark.parametrize("style", sorted(SLOTS))
@pytest.mark.parametrize("file", ["bl.a.pdf", "bl.b.pdf", "bl.pdf"])
def test_every_cut_edge_carries_the_bleed(built: Callable[[str], Path], style: str, file: str) -> None:
    project = built(style)
    if file == "bl.pdf":
        sequence = [tone(n) for kind in COUNTS for n in range(COUNTS[kind])]
    else:
        sequence = [tone(n) for n in range(COUNTS[file.removesuffix(".pdf")])]
    expected = expected_pages(style, sequence)
    images = pages(built_file(project, style, file), DPI)
    if file == "bl.pdf":  # the read-me page first (and a blank back in duplex): no faces there
        images = images[1 if style == "fold" else 2 :]
    assert len(images) == len(expected)
    faults = [
        f"page {n + 1}: {fault}"
        for n, (image, faces) in enumerate(zip(images, expected, strict=True))
        for fault in edge_faults(image, faces)
    ]
    assert not faults, "\n".join(faults[:12])


@pytest.mark.parametrize("style", ["butted", "fold"])
def test_no_two_embedded_fonts_of_a_file_share_a_name(built: Callable[[str], Path], style: str) -> None:
    """Each kind's file embeds its own subsets of a font, each named AAAAAA+ by reportlab; the
    combined file holds them all, each under a tag of its own (prepress preflight checks this)."""
    import pikepdf

    files = sorted(built(style).joinpath("output").rglob("*.pdf"))
    assert any(path.name == "bl.pdf" for path in files)
    for path in files:
        with pikepdf.open(path) as pdf:
            names = [
                str(obj.BaseFont)
                for obj in pdf.objects
                if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == pikepdf.Name.Font
            ]
            described = [
                str(obj.FontName)
                for obj in pdf.objects
                if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == pikepdf.Name.FontDescriptor
            ]
        assert names and len(set(names)) == len(names), (path.name, names)
        assert len(set(described)) == len(described) == len(names), (path.name, described)
