"""Rounded, round and hex faces shown as cut in the image exports: transparent outside the shape
in PNG, gallery and preview images; white (the deck sheet's own ground) on Tabletop Simulator
sheets, which are RGB. The bleed game (tests/test_bleed_edges.py) with rounded cards (3 mm
corners) for bl.a and round 63 mm discs for bl.b, exported once for the module at 50 dpi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.runpnp import run as pnp
from tests.test_bleed_edges import FRONT, write_project

DPI = 50


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = write_project(tmp_path_factory.mktemp("shapes") / "project")
    for name, shape, size in (("a", "rounded", "poker"), ("b", "round", {"width": 63, "height": 63})):
        path = project / "layouts" / f"bl-{name}.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "shape": shape, "size": size}))
    for what in ("png", "tts", "gallery"):
        done = pnp(project, "export", what, "--dpi", str(DPI))
        assert done.returncode == 0, done.stdout + done.stderr
    return project


def test_png_faces_are_transparent_outside_their_shape(exported: Path) -> None:
    card = Image.open(exported / "output" / "bl" / "png" / "bl.a" / "a-0-front.png")
    disc = Image.open(exported / "output" / "bl" / "png" / "bl.b" / "b-0-front.png")
    assert card.mode == disc.mode == "RGBA"
    w, h = card.size  # 63 x 88 mm at 50 dpi: 124 x 173 px; a 3 mm corner is 6 px
    assert card.getpixel((0, 0))[3] == card.getpixel((w - 1, h - 1))[3] == 0  # the corner is cut off
    assert card.getpixel((w // 2, 0))[3] == 255 and card.getpixel((0, h // 2))[3] == 255  # the edges stay
    assert card.getpixel((w // 2, h // 4))[:3] == pytest.approx(FRONT["red"], abs=3)
    size = disc.size[0]
    assert disc.getpixel((4, 4))[3] == 0 and disc.getpixel((size // 2, size // 2))[3] == 255
    assert disc.getpixel((size // 2, 1))[3] == 255  # the circle touches the trim at the top


def test_gallery_images_are_cut_too(exported: Path) -> None:
    images = sorted((exported / "output" / "gallery" / "img").rglob("*.png"))
    disc = next(path for path in images if "b-0" in path.name and "front" in path.name)
    image = Image.open(disc)
    assert image.mode == "RGBA" and image.getpixel((3, 3))[3] == 0


def test_tabletop_sheets_are_white_outside_the_shape(exported: Path) -> None:
    sheet = Image.open(exported / "output" / "bl" / "tts" / "bl.b-1.png").convert("RGB")
    cell = sheet.width // json.loads((exported / "output" / "bl" / "tts" / "bl.b-1.json").read_text())["width"]
    assert sheet.getpixel((3, 3)) == (255, 255, 255)  # outside the first disc: the sheet's white
    assert sheet.getpixel((cell // 2, cell // 4)) == pytest.approx(FRONT["red"], abs=3)
