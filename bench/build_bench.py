#!/usr/bin/env python3
"""Benchmark `pnp build` on synthetic poker cards, against a plain reportlab script drawing the same.

    .venv/bin/python bench/build_bench.py [--sizes 100,1000,10000] [--decks bench,poker] [--repeat 3] [--keep DIR]

Three decks. `art` (`--decks art`, stop 38) is the `bench` deck with art of its own on every
card (an RGB PNG of 650 x 402 px each, the art box at 300 dpi; the twin script draws each card's
file), as most games' decks are. `poker` (issue 16) is a deck this benchmark was not written around, as Squib,
protograf and decksmith users draw it: 10,000 rows of one CSV file, fronts only, Liberation Sans
TTFs (Debian fonts-liberation; DejaVu when they are not installed), each card a frame, a title,
300 x 200 px art, four rounded stat boxes and ~40 words of rules; its twin, bench/raw_poker.py,
is written as the reportlab user guide teaches. `bench`, the original deck, is described next.

For each size of the `bench` deck it generates a content project of poker cards (100 records per file): a title,
four integer stats, a 40-word rules text, one image (`art/card.png`, a fixed path in the
layout) and a back, on A4, long-edge duplex. The layout `layouts/bench.card.json` is written
from the constants of bench/raw_reportlab.py, the baseline: a hand-written reportlab script
(no pnp code) that reads the same record files and draws the same elements with the same fonts
on the same 3 x 3 sheets with the same crop marks and back pages. It then times whole processes
(wall clock), interleaved, best of `--repeat` (one run only when the first took over 20 s):

- `pnp build --force`: a fresh build (check, render, write the kind's PDF; a one-kind game gets
  no combined PDF, which would be the same file again), after a first build: the faces it kept
  (output/.pnp-cache/faces, pnp.drawing.facestore) are copied, not drawn;
- `pnp build` with no output folder (`cold`): nothing kept from an earlier build, every face drawn
  (on every core, pnp.drawing.drawahead), as a user's first build;
- `python bench/raw_reportlab.py`: the baseline;
- `pnp build` with nothing changed: the no-change rebuild, which must write nothing. pnp folds
  its own sources into every input digest, so if pnp/ is edited while the benchmark runs, that
  build rightly rebuilds everything: such a run is reported on stderr, not timed, and repeated.

pnp and the script run as a user's wheel install runs them: when the pnp installed beside this
Python is an editable install, through a virtual environment without its import hook, with this
repository's pnp on its path (benchlib.as_installed).

Peak RSS is the child's own ru_maxrss (os.wait4), the largest over the fresh `pnp build` runs;
the table also gives each process's CPU time (user + system, best run) and its ratio, which
other load on the machine disturbs less than the wall clock.
The outputs are verified, or the benchmark exits with status 1: every pnp run exits 0 and
reports no problem, a fresh build writes its files and the no-change rebuild prints
"0 written"; the kind's PDF and the raw PDF (written outside the project, so that it is no input
of the build) have the same number of pages (two per sheet of nine cards with backs, one without),
and the first sheet of fronts holds the same words in both.
It prints a markdown table (with the PDF size ratio) and, per deck, each target of issue 16 and:
`poker 10k: pnp X s, raw reportlab Y s (X/Y = R), PDF S x, peak RSS M MB, no-change rebuild Z s`.

A multi-kind combined file (issue 17), at each of `--combined-sizes` (default 1000 and 10000,
one run each): the `bench` deck with every other record made a second kind of the same
size and layout, so its game has a combined file packing both kinds on shared sheets; the time
of that file is a full `pnp build --force` minus `pnp build --force bench.card bench.spare` (a
build naming its kinds writes no combined file). Verified: the combined file takes one grid,
ceil(cards / 9) sheets and the read-me's, as `pnp build` prints, with a back page each.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402 - a sibling module: the benchmarks run as scripts
import raw_poker  # noqa: E402 - the poker deck's twin: its constants are that layout's single source
import raw_reportlab as raw  # noqa: E402 - the baseline's constants are the layout's single source

REPO = Path(__file__).resolve().parents[1]
RAW_SCRIPT = Path(raw.__file__).resolve()
KIND = "bench.card"
GAME = "bench"
RECORDS_PER_FILE = 100
PER_SHEET = 9
SEED = 20240611
SLOW_RUN_S = 20.0  # a command whose first timed run takes longer is run once only
TARGET_R, TARGET_SIZE_R, TARGET_RSS_MB, TARGET_NO_CHANGE_S = 1.0, 1.0, 150.0, 0.12  # issue 16
LOAD_AT_START = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"

ADJECTIVES = ("Ember", "Frost", "Storm", "Stone", "Silver", "Shadow", "Golden", "Ancient", "Wild", "Iron")
NOUNS = ("Guard", "Drake", "Oracle", "Knight", "Wisp", "Golem", "Archer", "Shaman", "Titan", "Scout")
WORDS = (
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "on",
    "at",
    "or",
    "and",
    "if",
    "it",
    "its",
    "you",
    "your",
    "each",
    "one",
    "two",
    "three",
    "card",
    "cards",
    "unit",
    "units",
    "enemy",
    "ally",
    "allies",
    "hero",
    "turn",
    "round",
    "gain",
    "lose",
    "deal",
    "damage",
    "attack",
    "defense",
    "move",
    "moves",
    "adjacent",
    "friendly",
    "discard",
    "draw",
    "reveal",
    "exhaust",
    "ready",
    "battle",
    "ranged",
    "flying",
    "shield",
    "spell",
    "mana",
    "crystal",
    "gold",
    "instead",
    "until",
    "end",
    "start",
    "whenever",
    "target",
    "choose",
    "another",
    "opponent",
    "reroll",
    "retaliation",
    "immediately",
    "additional",
    "permanently",
)


# --- generating a project ----------------------------------------------------------------------------------------


def card_schema() -> dict[str, object]:
    stat = {"type": "integer", "minimum": 0, "maximum": 99}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pnp.invalid/schemas/bench.card.schema.json",
        "title": "Benchmark poker card",
        "type": "object",
        "properties": {
            "kind": {"const": KIND},
            "id": {"$ref": "common.schema.json#/$defs/id"},
            "source": {"$ref": "common.schema.json#/$defs/source"},
            "title": {"$ref": "common.schema.json#/$defs/name"},
            "attack": stat,
            "defense": stat,
            "health": stat,
            "speed": stat,
            "text": {"$ref": "common.schema.json#/$defs/text"},
        },
        "required": ["kind", "id", "source", "title", "attack", "defense", "health", "speed", "text"],
        "additionalProperties": False,
    }


def stat_elements(constants: Any, **extra: object) -> list[dict[str, object]]:
    """The four stat boxes of a raw script's constants (STATS, STAT_*), as layout elements."""
    return [
        {
            "type": "stat",
            "name": f"stat-{field_name}",
            "x": x,
            "y": constants.STAT_Y,
            "w": constants.STAT_W,
            "h": constants.STAT_H,
            "label": label,
            "value": "{{ " + field_name + " }}",
            "size": constants.STAT_SIZE,
            **extra,
            "fill": constants.STAT_FILL,
            "stroke": constants.STAT_STROKE,
            "stroke_width": constants.STAT_STROKE_WIDTH,
        }
        for label, field_name, x in constants.STATS
    ]


def card_layout() -> dict[str, object]:
    """The pnp layout drawing what raw_reportlab.py draws (same constants)."""
    stats = stat_elements(raw, align="center")

    def at(spec: Mapping[str, float]) -> dict[str, float]:
        return {k: spec[k] for k in ("x", "y", "w", "h")}

    return {
        "description": "bench/build_bench.py: the same cards as bench/raw_reportlab.py",
        "kinds": [KIND],
        "unit": "mm",
        "size": "poker",
        "shape": "rect",
        "bleed": raw.BLEED,
        "safe": 3,
        "front": {
            "background": raw.FRONT_BACKGROUND,
            "elements": [
                {
                    "type": "text",
                    "name": "title",
                    **at(raw.TITLE),
                    "text": "{{ title }}",
                    "size": raw.TITLE["size"],
                    "bold": True,
                    "align": "center",
                    "color": raw.INK,
                },
                {"type": "image", "name": "art", **at(raw.ART), "src": raw.ART_SRC, "fit": "contain"},
                *stats,
                {
                    "type": "text",
                    "name": "rules",
                    **at(raw.RULES),
                    "text": "{{ text }}",
                    "size": raw.RULES["size"],
                    "min_size": raw.RULES["min_size"],
                    "leading": raw.LEADING,
                    "color": raw.INK,
                },
            ],
        },
        "back": {
            "background": raw.BACK_BACKGROUND,
            "elements": [
                {
                    "type": "rect",
                    "name": "frame",
                    **at(raw.BACK_FRAME),
                    "radius": raw.BACK_FRAME["radius"],
                    "stroke": raw.BACK_INK,
                    "stroke_width": raw.BACK_FRAME["stroke_width"],
                },
                {
                    "type": "text",
                    "name": "back-title",
                    **at(raw.BACK_TEXT),
                    "text": raw.BACK_WORD,
                    "size": raw.BACK_TEXT["size"],
                    "bold": True,
                    "align": "center",
                    "valign": "middle",
                    "color": raw.BACK_INK,
                },
            ],
        },
    }


def write_art(path: Path, size: tuple[int, int] = (300, 185)) -> None:
    """A small RGB PNG (no alpha): a gradient with a few shapes, 300 x 185 px unless told."""
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    assert pixels is not None
    for y in range(height):
        for x in range(width):
            pixels[x, y] = (60 + x * 150 // width, 90 + y * 120 // height, 160 - x * 80 // width)
    draw = ImageDraw.Draw(image)
    draw.ellipse((40, 30, 140, 130), fill=(230, 190, 60))
    draw.polygon([(150, 170), (230, 40), (290, 170)], fill=(70, 60, 90))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, optimize=True)


def rules_text(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(40)]
    for i in range(6, 36, rng.randint(7, 11)):  # a few sentences
        words[i] += "."
        words[i + 1] = words[i + 1].capitalize()
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


@dataclass
class Project:
    root: Path
    cards: int
    files: int
    bytes: int


def generate(root: Path, cards: int) -> Project:
    """Write a project of `cards` records under `root` (deterministic for a given size)."""
    rng = random.Random(SEED + cards)
    root.mkdir(parents=True, exist_ok=True)
    (root / "pnp.toml").write_text(
        '[project]\nname = "build benchmark"\nrecords = "cards"\nschemas = "schemas"\nlayouts = "layouts"\n'
        'output = "output"\n\n[build]\npaper = "a4"\nduplex = "long"\n\n'
        f'[games.{GAME}]\ntitle = "Build benchmark"\nfolder = "{GAME}"\n',
        encoding="utf-8",
    )
    (root / "schemas").mkdir(exist_ok=True)
    shutil.copy(REPO / "schemas" / "common.schema.json", root / "schemas" / "common.schema.json")
    (root / "schemas" / f"{KIND}.schema.json").write_text(json.dumps(card_schema(), indent=2) + "\n", encoding="utf-8")
    (root / "layouts").mkdir(exist_ok=True)
    benchlib.copy_icons(REPO, root)
    (root / "layouts" / f"{KIND}.json").write_text(json.dumps(card_layout(), indent=2) + "\n", encoding="utf-8")
    write_art(root / raw.ART_SRC)
    folder = root / "cards"
    folder.mkdir(exist_ok=True)
    project = Project(root, cards, 0, 0)
    for start in range(0, cards, RECORDS_PER_FILE):
        batch = [
            {
                "kind": KIND,
                "id": f"card-{n:06d}",
                "source": {"seed": "000_6347cdb41225c97f.txt", "section": "Benchmark cards"},
                "title": f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}",
                "attack": rng.randint(0, 12),
                "defense": rng.randint(0, 12),
                "health": rng.randint(1, 20),
                "speed": rng.randint(1, 6),
                "text": rules_text(rng),
            }
            for n in range(start, min(start + RECORDS_PER_FILE, cards))
        ]
        data = json.dumps(batch, indent=2, ensure_ascii=False) + "\n"
        (folder / f"cards-{start // RECORDS_PER_FILE:04d}.json").write_text(data, encoding="utf-8")
        project.files += 1
        project.bytes += len(data.encode("utf-8"))
    return project


ART_PX = (650, 402)  # the art box (55 x 34 mm) at 300 dpi: what a print-and-play maker exports


def generate_art(root: Path, cards: int) -> Project:
    """The bench deck with art of its own on every card (`art`: art/card-NNNNNN.png, an RGB PNG of
    ART_PX, each of other colours and shapes), as most games' decks are: every image is read,
    checked and put into the PDF once per card, where the bench deck has one image for all."""
    from PIL import Image, ImageDraw

    project = generate(root, cards)
    rng = random.Random(SEED + cards + 1)
    schema = card_schema()
    schema["properties"]["art"] = {"$ref": "common.schema.json#/$defs/image"}  # type: ignore[index]
    (root / "schemas" / f"{KIND}.schema.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    layout = card_layout()
    for element in layout["front"]["elements"]:  # type: ignore[index]
        if element.get("type") == "image":
            element["src"] = "{{ art }}"
    (root / "layouts" / f"{KIND}.json").write_text(json.dumps(layout, indent=2) + "\n", encoding="utf-8")
    width, height = ART_PX
    for path in sorted((root / "cards").glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        for record in records:
            record["art"] = f"art/{record['id']}.png"
            image = Image.new("RGB", ART_PX, tuple(rng.randrange(40, 220) for _ in range(3)))
            draw = ImageDraw.Draw(image)
            for _ in range(12):
                x, y = rng.randrange(width), rng.randrange(height)
                size = rng.randrange(30, 200)
                draw.ellipse((x, y, x + size, y + size * 2 // 3), fill=tuple(rng.randrange(256) for _ in range(3)))
            image.save(root / record["art"])
        data = json.dumps(records, indent=2, ensure_ascii=False) + "\n"
        path.write_text(data, encoding="utf-8")
        project.bytes += len(data.encode("utf-8"))
    return project


# --- the poker deck: a deck pnp's benchmark was not written around (issue 16) -----------------------------------

POKER_KIND, POKER_GAME = "poker.card", "poker"


def poker_schema() -> dict[str, object]:
    stat = {"type": "integer", "minimum": 0, "maximum": 99}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pnp.invalid/schemas/poker.card.schema.json",
        "title": "Poker deck card",
        "type": "object",
        "properties": {
            "kind": {"const": POKER_KIND},
            "id": {"type": "string", "pattern": "^[a-z0-9-]+$"},
            "title": {"type": "string", "minLength": 1},
            "attack": stat,
            "defense": stat,
            "health": stat,
            "speed": stat,
            "text": {"type": "string"},
        },
        "required": ["kind", "id", "title", "attack", "defense", "health", "speed", "text"],
        "additionalProperties": False,
    }


def poker_layout() -> dict[str, object]:
    """The layout a designer would write for bench/raw_poker.py's cards (same constants), fronts only."""
    p = raw_poker

    def at(spec: Mapping[str, float]) -> dict[str, float]:
        return {k: spec[k] for k in ("x", "y", "w", "h")}

    stats = stat_elements(p)
    return {
        "description": "bench/build_bench.py: the poker deck of bench/raw_poker.py",
        "kinds": [POKER_KIND],
        "unit": "mm",
        "size": "poker",
        "shape": "rect",
        "bleed": p.BLEED,
        "safe": 3,
        "front": {
            "background": p.BACKGROUND,
            "elements": [
                {
                    "type": "rect",
                    "name": "frame",
                    **at(p.FRAME),
                    "radius": p.FRAME["radius"],
                    "stroke": p.FRAME_STROKE,
                    "stroke_width": p.FRAME["stroke_width"],
                },
                {
                    "type": "text",
                    "name": "title",
                    **at(p.TITLE),
                    "text": "{{ title }}",
                    "size": p.TITLE["size"],
                    "bold": True,
                    "align": "center",
                    "wrap": False,
                    "color": p.INK,
                    "font": {"regular": "fonts/Sans.ttf", "bold": "fonts/Sans-Bold.ttf"},
                },
                {"type": "image", "name": "art", **at(p.ART), "src": p.ART_SRC, "fit": "contain"},
                *[{**stat, "font": {"regular": "fonts/Sans.ttf", "bold": "fonts/Sans-Bold.ttf"}} for stat in stats],
                {
                    "type": "text",
                    "name": "rules",
                    **at(p.RULES),
                    "text": "{{ text }}",
                    "size": p.RULES["size"],
                    "min_size": p.RULES["min_size"],
                    "leading": p.LEADING,
                    "color": p.INK,
                    "font": {"regular": "fonts/Sans.ttf", "bold": "fonts/Sans-Bold.ttf"},
                },
            ],
        },
        "back": None,
    }


def generate_poker(root: Path, cards: int) -> Project:
    """A CSV-generated poker deck of `cards` rows (deterministic for a given size), fronts only."""
    import csv
    import io

    rng = random.Random(SEED + 7 * cards)
    root.mkdir(parents=True, exist_ok=True)
    (root / "pnp.toml").write_text(
        '[project]\nname = "poker benchmark"\n\n[build]\npaper = "a4"\nduplex = "none"\n\n'
        f'[sources]\n"cards/deck.csv" = "{POKER_KIND}"\n\n'
        f'[games.{POKER_GAME}]\ntitle = "Poker benchmark"\nfolder = "{POKER_GAME}"\n',
        encoding="utf-8",
    )
    (root / "schemas").mkdir(exist_ok=True)
    schema = json.dumps(poker_schema(), indent=2) + "\n"
    (root / "schemas" / f"{POKER_KIND}.schema.json").write_text(schema, encoding="utf-8")
    (root / "layouts").mkdir(exist_ok=True)
    (root / "layouts" / f"{POKER_KIND}.json").write_text(json.dumps(poker_layout(), indent=2) + "\n", encoding="utf-8")
    (root / "fonts").mkdir(exist_ok=True)
    shutil.copy(raw_poker.FONT_FILES[0], root / "fonts" / "Sans.ttf")
    shutil.copy(raw_poker.FONT_FILES[1], root / "fonts" / "Sans-Bold.ttf")
    write_art(root / raw_poker.ART_SRC, raw_poker.ART_PX)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "title", "attack", "defense", "health", "speed", "text"])
    for n in range(cards):
        title = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
        stats = [rng.randint(0, 12), rng.randint(0, 12), rng.randint(1, 20), rng.randint(1, 6)]
        writer.writerow([f"card-{n:06d}", title, *stats, rules_text(rng)])
    (root / "cards").mkdir(exist_ok=True)
    data = buffer.getvalue()
    (root / "cards" / "deck.csv").write_text(data, encoding="utf-8")
    return Project(root, cards, 1, len(data.encode("utf-8")))


@dataclass(frozen=True)
class Deck:
    """A benchmark deck: how to generate its project, its kind, its plain reportlab twin, its sides."""

    name: str
    kind: str
    game: str
    generate: Callable[[Path, int], Project]
    raw_script: Path
    sides: int  # pages per sheet of cards: 2 with duplex backs, 1 fronts only


DECKS = (
    Deck("bench", KIND, GAME, lambda root, cards: generate(root, cards), RAW_SCRIPT, 2),
    Deck("art", KIND, GAME, lambda root, cards: generate_art(root, cards), RAW_SCRIPT, 2),
    Deck(
        "poker",
        POKER_KIND,
        POKER_GAME,
        lambda root, cards: generate_poker(root, cards),
        Path(raw_poker.__file__).resolve(),
        1,
    ),
)


# --- running and timing --------------------------------------------------------------------------------------------


@dataclass
class Timed:
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + system time of the process
    peak_rss_kb: int = 0
    stdout: str = ""
    stderr: str = ""

    @property
    def best(self) -> float:
        return min(self.times, default=math.nan)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu, default=math.nan)

    @property
    def runs(self) -> int:
        return len(self.times)

    @property
    def peak_mb(self) -> float:
        return self.peak_rss_kb / 1024


def run(cmd: list[str], cwd: Path, timed: Timed | None = None, env: Mapping[str, str] | None = None) -> Timed:
    """Run one process; wall clock, and its own peak RSS from os.wait4 (not the benchmark's)."""
    timed = timed if timed is not None else Timed()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if proc.returncode != 0:
        sys.exit(f"build_bench: {' '.join(cmd[:3])} ... exited {proc.returncode}:\n{stdout[-2000:]}{stderr[-2000:]}")
    timed.times.append(elapsed)
    timed.cpu.append(usage.ru_utime + usage.ru_stime)
    timed.peak_rss_kb = max(timed.peak_rss_kb, usage.ru_maxrss)  # KiB on Linux
    timed.stdout, timed.stderr = stdout, stderr
    return timed


def pnp_sources() -> str:
    """A digest of pnp's own code, which `pnp build` folds into every output's input digest."""
    package = REPO / "pnp"
    hasher = hashlib.sha256()
    for path in sorted(package.glob("*.py")) + [package / "layout.schema.json"]:
        hasher.update(path.read_bytes())
    return hasher.hexdigest()


def written_count(stderr: str) -> int:
    match = re.search(r"pnp build: (\d+) written, (\d+) up to date", stderr)
    if match is None:
        sys.exit(f"build_bench: no summary line in the pnp build output:\n{stderr[-2000:]}")
    return int(match.group(1))


def run_no_change(cmd: list[str], cwd: Path, timed: Timed, sources: tuple[str, str], attempts: int = 5) -> str | None:
    """Time `pnp build` with nothing changed; it must write nothing. None when it did, else why not.

    pnp folds its own source files into every input digest, so an edit of pnp/ by someone else
    while the benchmark runs makes the next build rebuild everything, rightly. Such a run is not
    a no-change run: it is not timed, and the build is run again (now with nothing changed).
    `sources` is pnp's sources digest just before and just after the last build that wrote files;
    a rebuild is a failure only when the sources stayed the same from before that build until
    after this one.
    """
    ref, ref_after = sources
    for _ in range(attempts):
        before = pnp_sources()
        attempt = run(cmd, cwd)
        after = pnp_sources()
        if written_count(attempt.stderr) == 0:
            timed.times.extend(attempt.times)
            timed.cpu.extend(attempt.cpu)
            timed.peak_rss_kb = max(timed.peak_rss_kb, attempt.peak_rss_kb)
            timed.stdout, timed.stderr = attempt.stdout, attempt.stderr
            return None
        if ref == ref_after == before == after:
            return f"the no-change rebuild wrote files: {attempt.stderr.strip()[-300:]}"
        print(
            f"  no_change: pnp/ was edited during the benchmark, so it rebuilt in {attempt.best:.2f} s "
            "(not timed); again",
            file=sys.stderr,
            flush=True,
        )
        ref, ref_after = before, after
    return f"pnp/ kept changing during the benchmark: no no-change rebuild in {attempts} attempts; rerun it"


def page_count(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


def first_page_words(path: Path) -> Counter[str]:
    """The card words of a first sheet (pnp's registration label in the margin left out)."""
    import re

    from pypdf import PdfReader

    text = PdfReader(path).pages[0].extract_text()
    # the label names the kind by its schema title (several words) or its key, then "N/M, fronts"
    return Counter(re.sub(r"(?m)^[^\n]*\b\d+/\d+, (?:fronts|backs)", "", text).split())


@dataclass
class SizeResult:
    deck: Deck
    project: Project
    pnp: Timed
    raw: Timed
    no_change: Timed
    cold: Timed
    pages: int
    pnp_pdf_bytes: int
    combined_pdf_bytes: int
    raw_pdf_bytes: int
    failures: list[str]

    @property
    def ratio(self) -> float:
        return self.pnp.best / self.raw.best

    @property
    def size_ratio(self) -> float:
        return self.pnp_pdf_bytes / self.raw_pdf_bytes

    @property
    def cold_ratio(self) -> float:
        return self.cold.best / self.raw.best


def bench_size(deck: Deck, cards: int, workdir: Path, repeat: int) -> SizeResult:
    t0 = time.perf_counter()
    project = deck.generate(workdir / f"{deck.name}-{cards}", cards)
    root = project.root
    print(
        f"# {deck.name} deck, {cards} cards: {project.files} record files, {project.bytes / 1e6:.1f} MB, "
        f"generated in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    python, pnp = benchlib.as_installed(workdir, "build_bench")  # both run by the interpreter a user's install has
    raw_pdf = root.parent / f"{root.name}-raw" / f"{deck.kind}.pdf"  # outside the project: not one of its inputs
    commands = {
        "pnp": [pnp, "build", "--force"],
        "raw": [python, str(deck.raw_script), str(root), str(raw_pdf)],
        "no_change": [pnp, "build"],
        "cold": [pnp, "build"],  # after removing output/: nothing kept from the last build
    }
    failures: list[str] = []
    # a first build, untimed: warms the page cache, and writes what Python and pnp keep for the next
    # start as a user's first run does (.pyc files, pnp.core.classcache), PYTHONDONTWRITEBYTECODE or not
    writing = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm = run([pnp, "build", "--force"], root, env=writing)
    if written_count(warm.stderr) < 1:
        failures.append(f"{cards}: the first pnp build wrote nothing")
    timings = {name: Timed() for name in commands}
    sources = (pnp_sources(), pnp_sources())
    for _ in range(repeat):  # interleaved, so a noisy moment hurts every command alike
        for name, cmd in commands.items():
            if timings[name].runs and timings[name].best > SLOW_RUN_S:
                continue
            if name == "cold":
                shutil.rmtree(root / "output")
            if name == "no_change":
                failure = run_no_change(cmd, root, timings[name], sources)
                if failure:
                    failures.append(f"{cards}: {failure}")
            else:
                before = pnp_sources()
                run(cmd, root, timings[name])
                if name == "pnp":
                    sources = (before, pnp_sources())
            print(f"  {name}: {timings[name].best:.3f} s (best of {timings[name].runs})", file=sys.stderr, flush=True)
            if name == "pnp" and written_count(timings[name].stderr) < 1:
                failures.append(f"{cards}: pnp build --force did not write the kind's PDF")
    for name in ("pnp", "no_change", "cold"):
        if timings[name].stdout.strip():
            failures.append(f"{cards}: {name} reported problems:\n{timings[name].stdout[-1000:]}")
    if "0 written" not in timings["no_change"].stderr:
        failures.append(f"{cards}: the no-change rebuild did not print '0 written'")

    kind_pdf = root / "output" / deck.game / f"{deck.kind}.pdf"
    combined_pdf = root / "output" / f"{deck.game}.pdf"  # not written for a one-kind game: it would be the kind's file
    if combined_pdf.exists():
        failures.append(f"{cards}: {combined_pdf.relative_to(root)} duplicates the game's only kind's PDF")
    expected = deck.sides * math.ceil(cards / PER_SHEET)
    counts = {path: page_count(path) for path in (kind_pdf, raw_pdf)}
    for path, count in counts.items():
        if count != expected:
            failures.append(f"{cards}: {path.name} has {count} pages, expected {expected}")
    pnp_words, raw_words = first_page_words(kind_pdf), first_page_words(raw_pdf)
    if pnp_words != raw_words:
        only_pnp, only_raw = pnp_words - raw_words, raw_words - pnp_words
        failures.append(
            f"{cards}: the first sheets differ in their words: pnp only {sorted(only_pnp.elements())[:10]}, "
            f"raw only {sorted(only_raw.elements())[:10]}"
        )
    return SizeResult(
        deck,
        project,
        timings["pnp"],
        timings["raw"],
        timings["no_change"],
        timings["cold"],
        expected,
        kind_pdf.stat().st_size,
        combined_pdf.stat().st_size if combined_pdf.exists() else 0,
        raw_pdf.stat().st_size,
        failures,
    )


# --- a multi-kind combined file ------------------------------------------------------------------------------------

SPARE_KIND = "bench.spare"


@dataclass
class CombinedResult:
    cards: int
    full: Timed  # pnp build --force: both kinds' files and the combined file
    kinds_only: Timed  # pnp build --force KIND SPARE_KIND: the kinds' files only (a partial build skips it)
    sheets: int
    combined_pdf_bytes: int
    failures: list[str]

    @property
    def combined_s(self) -> float:
        return self.full.best - self.kinds_only.best


def split_kinds(root: Path) -> None:
    """Every other record of a `bench` project becomes a second kind, drawn by the same layout
    (a copy), so the game has two kinds of one size: a combined file that packs both."""
    schema = json.dumps(card_schema(), indent=2).replace(KIND, SPARE_KIND)  # its $id and its kind
    (root / "schemas" / f"{SPARE_KIND}.schema.json").write_text(schema + "\n", encoding="utf-8")
    layout = {**card_layout(), "kinds": [SPARE_KIND]}
    (root / "layouts" / f"{SPARE_KIND}.json").write_text(json.dumps(layout, indent=2) + "\n", encoding="utf-8")
    for path in sorted((root / "cards").glob("cards-*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        data = [{**record, "kind": SPARE_KIND} if n % 2 else record for n, record in enumerate(records)]
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def bench_combined(cards: int, workdir: Path) -> CombinedResult:
    """Time the combined file of a two-kind `bench` game: a full build minus a build of the kinds
    only (one run each, after an untimed warm-up build)."""
    root = generate(workdir / f"combined-{cards}", cards).root
    split_kinds(root)
    _, pnp = benchlib.as_installed(workdir, "build_bench")
    failures: list[str] = []
    run([pnp, "build", "--force"], root)  # warm-up, untimed
    full = run([pnp, "build", "--force"], root)
    kinds_only = run([pnp, "build", "--force", KIND, SPARE_KIND], root)
    combined = root / "output" / f"{GAME}.pdf"
    sheets = math.ceil(cards / PER_SHEET) + 1  # one size: both kinds share one grid; the read-me sheet leads
    if f"wrote output/{GAME}.pdf ({sheets} sheet" not in full.stderr:
        failures.append(f"combined {cards}: pnp build did not report output/{GAME}.pdf with {sheets} sheets")
    if not combined.exists() or page_count(combined) != 2 * sheets:
        failures.append(f"combined {cards}: output/{GAME}.pdf is missing or has not {2 * sheets} pages")
    if f"wrote output/{GAME}.pdf" in kinds_only.stderr:
        failures.append(f"combined {cards}: the build of the kinds only rewrote the combined file")
    size = combined.stat().st_size if combined.exists() else 0
    print(
        f"  combined {cards}: full {full.best:.3f} s, kinds only {kinds_only.best:.3f} s", file=sys.stderr, flush=True
    )
    return CombinedResult(cards, full, kinds_only, sheets, size, failures)


def print_combined(results: list[CombinedResult]) -> None:
    print(
        f"Multi-kind combined file (`bench` deck split into {KIND} and {SPARE_KIND}, one size, A4 duplex): "
        "one run each; combined s = full build - build of the kinds only"
    )
    print()
    print("| cards | full build s | kinds only s | combined s | per 1000 cards s | sheets | combined PDF MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.cards:,} | {r.full.best:.2f} | {r.kinds_only.best:.2f} | {r.combined_s:.2f} "
            f"| {r.combined_s / r.cards * 1000:.2f} | {r.sheets:,} | {r.combined_pdf_bytes / 1e6:.2f} |"
        )
    print()


# --- reporting -----------------------------------------------------------------------------------------------------


def label(cards: int) -> str:
    return f"{cards // 1000}k" if cards % 1000 == 0 and cards >= 1000 else str(cards)


def seconds(t: Timed) -> str:
    return f"{t.best:.2f}" + ("" if t.runs > 1 else "¹")


def accelerated() -> str:
    try:
        import _rl_accel  # noqa: F401
    except ImportError:
        return "without the C accelerator (pip install 'reportlab[accel]')"
    return "with the C accelerator (rl_accel)"


def print_table(results: list[SizeResult], repeat: int, sources: str) -> None:
    import reportlab

    edited = "" if sources == pnp_sources() else ", edited during the run"
    version = re.search(r'__version__ = "([^"]+)"', (REPO / "pnp" / "__init__.py").read_text(encoding="utf-8"))
    print(
        f"pnp build benchmark: pnp {version.group(1) if version else '?'} (sources sha256 {sources[:12]}{edited}), "
        f"{platform.python_implementation()} {platform.python_version()}, reportlab "
        f"{reportlab.Version} {accelerated()}, {os.cpu_count()} CPUs, {platform.system()} {platform.machine()}; "
        f"load average {LOAD_AT_START}; "
        f"{'pnp of this tree without the editable install hook' if benchlib.editable_install() else 'pnp as installed'}; "
        f"wall clock of whole processes, best of {repeat} "
        f"(¹ one run only: the first took over {SLOW_RUN_S:.0f} s)"
    )
    print()
    print(
        "| deck | cards | pnp s | raw s | R = pnp/raw | cold s | R cold | peak RSS MB | no-change s | pages | pnp PDF MB | raw PDF MB "
        "| size pnp/raw | raw peak RSS MB | pnp CPU s | raw CPU s | R (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.deck.name} | {r.project.cards:,} | {seconds(r.pnp)} | {seconds(r.raw)} | {r.ratio:.2f} "
            f"| {seconds(r.cold)} | {r.cold_ratio:.2f} | {r.pnp.peak_mb:.0f} "
            f"| {seconds(r.no_change)} | {r.pages:,} | {r.pnp_pdf_bytes / 1e6:.2f} "
            f"| {r.raw_pdf_bytes / 1e6:.2f} | {r.size_ratio:.2f} | {r.raw.peak_mb:.0f} | {r.pnp.best_cpu:.2f} | {r.raw.best_cpu:.2f} "
            f"| {r.pnp.best_cpu / r.raw.best_cpu:.2f} |"
        )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="comma-separated card counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command; the best is kept (default 3)")
    parser.add_argument("--keep", type=Path, help="generate the projects in DIR and keep them")
    parser.add_argument(
        "--decks", default="bench,poker", help="comma-separated decks: bench, art, poker (default bench,poker)"
    )
    parser.add_argument(
        "--combined-sizes",
        default="1000,10000",
        help="card counts of a two-kind bench game whose combined file is timed, one run each ('' for none)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    if not sizes or any(s < 1 for s in sizes) or args.repeat < 1:
        parser.error("sizes must be at least 1 card, repeat at least 1")
    combined_sizes = [int(s.replace("_", "")) for s in args.combined_sizes.split(",") if s.strip()]
    decks = [deck for deck in DECKS if deck.name in args.decks.split(",")]
    if not decks and not combined_sizes:
        parser.error(f"decks: name some of {', '.join(d.name for d in DECKS)}")

    sources_at_start = pnp_sources()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        results = [bench_size(d, n, args.keep.resolve(), args.repeat) for d in decks for n in sizes]
        combined = [bench_combined(n, args.keep.resolve()) for n in combined_sizes]
    else:
        with tempfile.TemporaryDirectory(prefix="pnp-build-bench-") as tmp:
            results = [bench_size(d, n, Path(tmp), args.repeat) for d in decks for n in sizes]
            combined = [bench_combined(n, Path(tmp)) for n in combined_sizes]

    if results:
        print_table(results, args.repeat, sources_at_start)
    if combined:
        print_combined(combined)
    status = 0
    for failure in [f for r in results for f in r.failures] + [f for c in combined for f in c.failures]:
        print(f"FAIL {failure}", file=sys.stderr)
        status = 1
    for deck in decks:
        last = [r for r in results if r.deck is deck][-1]
        checks = (
            (f"R = pnp/raw at most {TARGET_R}", last.ratio, TARGET_R, "{:.2f}"),
            (f"R cold = pnp with no output folder/raw at most {TARGET_R}", last.cold_ratio, TARGET_R, "{:.2f}"),
            (f"PDF size pnp/raw at most {TARGET_SIZE_R}", last.size_ratio, TARGET_SIZE_R, "{:.2f}"),
            (f"peak RSS at most {TARGET_RSS_MB:.0f} MB", last.pnp.peak_mb, TARGET_RSS_MB, "{:.0f} MB"),
            (f"no-change rebuild at most {TARGET_NO_CHANGE_S} s", last.no_change.best, TARGET_NO_CHANGE_S, "{:.2f} s"),
        )
        for what, value, target, fmt in checks:
            verdict = "met" if value <= target else f"MISSED by {(value / target - 1) * 100:.0f}%"
            print(f"{deck.name} {label(last.project.cards)}: target {what}: {fmt.format(value)}, {verdict}")
        print(
            f"{deck.name} {label(last.project.cards)}: pnp {last.pnp.best:.2f} s, raw reportlab {last.raw.best:.2f} s "
            f"(X/Y = {last.ratio:.2f}), cold {last.cold.best:.2f} s ({last.cold_ratio:.2f}), PDF {last.size_ratio:.2f}x, peak RSS {last.pnp.peak_mb:.0f} MB, "
            f"no-change rebuild {last.no_change.best:.2f} s"
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
