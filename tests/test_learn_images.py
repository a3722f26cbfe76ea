"""The images records name are checked on every core before the check forks
(pnp.rules.assets.learn_images): the answers are those of a check on one core, each broken image
said once at its record's field, in pnp check and pnp build alike."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from buildkit import cards_only
from PIL import Image
from runpnp import run

IMAGES = 24  # past MIN_SHARED_IMAGES: shared between processes


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = cards_only(tmp_path_factory.mktemp("learn") / "project")
    cards = root / "cards" / "cards.json"
    records = json.loads(cards.read_text(encoding="utf-8"))
    rng = random.Random(24)
    base = records[0]
    records = [
        {**base, "id": f"card-{n:02d}", "name": f"Card {n:02d}", "image": f"art/own-{n:02d}.png"} for n in range(IMAGES)
    ]
    for n in range(IMAGES):
        mode = "RGBA" if n % 5 == 0 else "RGB"  # some decoded by PIL, the rest read as they are
        pixels = bytes(rng.randrange(256) for _ in range(30 * 20 * 3))
        Image.frombytes("RGB", (30, 20), pixels).convert(mode).save(root / "art" / f"own-{n:02d}.png")
    good = (root / "art" / "own-07.png").read_bytes()
    (root / "art" / "own-07.png").write_bytes(good[:-60] + bytes(48) + good[-12:])  # its rows broken
    (root / "art" / "own-13.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))  # no image at all
    cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return root


def problems(project: Path, *args: str) -> tuple[int, list[str]]:
    """A cold run's exit code and error lines (nothing kept from an earlier run)."""
    shutil.rmtree(project / "output", ignore_errors=True)
    done = run(project, *args)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, [line for line in done.stdout.splitlines() if "error[" in line]


def test_images_checked_on_every_core_say_what_one_core_says(project: Path) -> None:
    code, shared = problems(project, "check")
    one_code, alone = problems(project, "check", "--jobs", "1")
    assert (code, shared) == (one_code, alone) == (1, shared)
    broken = [line for line in shared if "bad-asset" in line]
    assert len(broken) == 2, shared  # each broken image once, at the field naming it
    assert any("own-07.png" in line and "/7/image" in line for line in broken), broken
    assert any("own-13.png" in line and "/13/image" in line for line in broken), broken


def test_the_build_says_the_same(project: Path) -> None:
    code, found = problems(project, "build")
    assert code == 1
    assert sorted(line for line in found if "bad-asset" in line) == sorted(
        line for line in problems(project, "check")[1] if "bad-asset" in line
    )
