"""An 8-bit grey or RGB PNG goes into the PDF as it is (pnp/drawing/pngpass.py: its compressed rows,
read with the PNG predictor), and shows the very pixels of the file; every other PNG goes
through reportlab as before. Checked on a real build: each card shows art of its own kind."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from buildkit import cards_only
from PIL import Image
from runpnp import run

# name -> (mode, size, PIL save options, taken as it is)
ART = {
    "rgb": ("RGB", (60, 41), {}, True),
    "grey": ("L", (41, 60), {}, True),
    "alpha": ("RGBA", (50, 33), {}, False),
    "palette": ("P", (33, 50), {}, False),
    "deep": ("I;16", (44, 30), {}, False),
    "keyed": ("RGB", (30, 44), {"transparency": (0, 0, 0)}, False),
}


def noise(mode: str, size: tuple[int, int], seed: int) -> Image.Image:
    """An image whose every pixel differs from its neighbours, so a wrong row or filter shows."""
    rng = random.Random(seed)
    rgb = Image.frombytes("RGB", size, bytes(rng.randrange(256) for _ in range(size[0] * size[1] * 3)))
    if mode == "P":
        return rgb.quantize(64)
    if mode == "I;16":
        return rgb.convert("L").convert("I").point(lambda v: v * 257).convert("I;16")
    return rgb.convert(mode)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pikepdf.Pdf]:
    project = cards_only(tmp_path_factory.mktemp("png") / "project")
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    for n, (name, (mode, size, options, _)) in enumerate(ART.items()):
        noise(mode, size, n).save(project / "art" / f"{name}.png", **options)
        records[n]["image"] = f"art/{name}.png"
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    done = run(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    (pdf_path,) = (project / "output").rglob("test.card.pdf")
    return project, pikepdf.open(pdf_path)


def images(pdf: pikepdf.Pdf) -> dict[tuple[int, int], pikepdf.Stream]:
    """Every image XObject of the document, by its size in pixels."""
    found: dict[tuple[int, int], pikepdf.Stream] = {}
    for page in pdf.pages:
        for _, xobject in page.images.items():
            found[(int(xobject.Width), int(xobject.Height))] = xobject
    return found


def test_grey_and_rgb_pngs_go_in_as_they_are_with_their_own_pixels(built: tuple[Path, pikepdf.Pdf]) -> None:
    project, pdf = built
    found = images(pdf)
    for name, (_, size, _, as_is) in ART.items():
        xobject = found[size]
        predicted = xobject.get("/DecodeParms") is not None
        assert predicted == as_is, (name, dict(xobject.items()))
        with Image.open(project / "art" / f"{name}.png") as source:
            if as_is:
                assert xobject.DecodeParms.Predictor == 15 and xobject.DecodeParms.Columns == size[0]
                shown = pikepdf.PdfImage(xobject).as_pil_image()
                assert shown.mode == source.mode and shown.tobytes() == source.tobytes(), name


def test_a_viewer_shows_what_the_pixels_stored_plainly_show(built: tuple[Path, pikepdf.Pdf], tmp_path: Path) -> None:
    """pdfium (Chrome's renderer) draws the first sheet exactly as it draws the same sheet with
    each taken-as-is image stored as plain compressed pixels (as reportlab stores them): a wrong
    predictor or filter parameter would show black or noise."""
    _, pdf = built
    path = Path(pdf.filename)
    plain = pikepdf.open(path)
    changed = 0
    for page in plain.pages[:1]:
        for _, xobject in page.images.items():
            if xobject.get("/DecodeParms") is not None:
                pixels = pikepdf.PdfImage(xobject).as_pil_image().tobytes()
                xobject.write(zlib.compress(pixels), filter=pikepdf.Name.FlateDecode)  # no parameters now
                changed += 1
    assert changed >= 2  # the grey and the RGB art (and the other cards' sun, an RGB PNG)
    plain.save(tmp_path / "plain.pdf")
    ours = pdfium.PdfDocument(path)[0].render(scale=4).to_pil().convert("RGB")
    theirs = pdfium.PdfDocument(tmp_path / "plain.pdf")[0].render(scale=4).to_pil().convert("RGB")
    assert ours.tobytes() == theirs.tobytes()


def test_no_stream_is_ascii85_encoded(built: tuple[Path, pikepdf.Pdf], tmp_path: Path) -> None:
    """Every stream is Flate (or a JPEG's DCT) alone: reportlab's default adds ASCII85 on top of
    the images it stores itself (alpha, palette, 16 bits, JPEG), a quarter more bytes each."""
    project, pdf = built
    Image.new("RGB", (40, 30), (200, 30, 60)).save(project / "art" / "photo.jpg", quality=90)
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    records[len(ART)]["image"] = "art/photo.jpg"
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    done = run(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    for path in (project / "output").rglob("*.pdf"):
        with pikepdf.open(path) as document:
            filters = [
                str(item)
                for stream in document.objects
                if isinstance(stream, pikepdf.Stream)
                for item in (
                    stream.get("/Filter")
                    if isinstance(stream.get("/Filter"), pikepdf.Array)
                    else [stream.get("/Filter")]
                )
            ]
        assert "/ASCII85Decode" not in filters, path
        if path.name == "test.card.pdf":
            assert "/DCTDecode" in filters and "/FlateDecode" in filters
