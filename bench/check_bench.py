#!/usr/bin/env python3
"""Benchmark `pnp check` on synthetic projects, against check-jsonschema and a bare json.load.

    .venv/bin/python bench/check_bench.py [--sizes 1000,10000,100000] [--repeat 3] [--keep DIR]

For each size it generates a content project (100 records per file, ~350 bytes per record)
with about 1% schema-invalid records of five kinds, 1% dangling references and a handful of
duplicate ids, all listed, and times whole processes in the same run, best of `--repeat`:

- `pnp check --format json` on the project;
- the same with `--jobs 1`: one process (by default, on a multi-core machine, a forked child
  validates while the main process parses, indexes and cross-checks);
- `check-jsonschema -o json` on the same files, with the same schemas bundled into one wrapper
  schema (`{"type": "array", "items": {"$ref": <bench.card>}}`, both schemas embedded in
  `$defs` with their `$id`s, so every `$ref` resolves offline);
- `python -c` that `json.load`s every record file;
- the floor: `python -c` that reads every record file with orjson and validates it with
  jsonschema-rs against the check-jsonschema wrapper schema (no locating, no cross-checks);
- the reference checks' cost: `pnp check --ignore references` only filters the output (the
  checks still run, see `run_check`), so the cost is measured on a second project, identical
  except that its schema has no `x-ref` keyword (`pnp` without x-ref), and reported as
  (pnp - pnp without x-ref) / pnp without x-ref.

Every planted problem must be in the output of the timed `pnp check` run (same file, JSON
pointer and code), and every planted schema error in the check-jsonschema output (same file
and record), or the benchmark exits with status 1.

Then, with `--render-sizes` (default 1000,10000), on the poker-card projects of
bench/build_bench.py (which have a layout, so `pnp check` draws every card): `pnp check` cold
(no render cache), `pnp check` warm (the cache of the previous run, best of `--repeat`),
`pnp check --no-render`, and a fresh `pnp build`, each a whole process. Every run must exit 0.

First (`--startup-repeat`, default 10 runs; `--startup-only` stops there), start-up on a
`pnp new "Ember Wild"` project: the interpreter alone, `pnp --version`, `pnp check` first (no
output folder), full (its stored result removed) and with nothing changed (the stored result
replayed, which must print what the full check printed), the same with `--no-render`, and
`pnp build` with nothing to do; each a whole process, best of the runs.

It prints markdown tables and, last:
`check 100k: pnp X s, check-jsonschema Y s (Y/X = R), json.load Z s (X/Z = F)`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import benchlib  # noqa: E402 - a sibling module: the benchmarks run as scripts

REPO = Path(__file__).resolve().parents[1]
KIND = "bench.card"
CARD_URI = "https://pnp.invalid/schemas/bench.card.schema.json"
COMMON_URI = "https://pnp.invalid/schemas/common.schema.json"
RECORDS_PER_FILE = 100
SEED = 20240601
SCHEMA_CODES = ("type-mismatch", "enum-mismatch", "required-property", "unexpected-property", "out-of-range")
REF_CODE = "missing-reference"
DUP_CODE = "duplicate-id"
CATEGORIES = (*SCHEMA_CODES, REF_CODE, DUP_CODE)
SLOW_RUN_S = 20.0  # a tool whose first run takes longer is run once only

ELEMENTS = ("fire", "water", "air", "earth", "order", "chaos")
TYPOS = {"fire": "fier", "water": "watter", "air": "iar", "earth": "erth", "order": "ordre", "chaos": "Chaos"}
ADJECTIVES = ("Ember", "Frost", "Storm", "Stone", "Silver", "Shadow", "Golden", "Ancient", "Wild", "Iron")
NOUNS = ("Guard", "Drake", "Oracle", "Knight", "Wisp", "Golem", "Archer", "Shaman", "Titan", "Scout")
TEXTS = (  # "#" becomes a random digit, so texts vary like real card text
    "On play, gain # {gold}. Once per round, discard # card: +# {attack}.",
    "Ranged: deal # {damage} to one enemy unit; # {damage} if it flies.",
    "Adjacent friendly units get +# {defense}. Exhaust: heal # {damage}.",
    "Pay # {mana}: move up to # {movement}, then {melee} with +# {attack}.",
    "At the start of your turn, gain # {crystal}: spend it as # {mana}.",
)


# --- generating a project ----------------------------------------------------------------------------------------


def card_schema(with_refs: bool) -> dict[str, object]:
    ally: dict[str, object] = {"$ref": "common.schema.json#/$defs/id", "description": "A card this one works with."}
    if with_refs:
        ally["x-ref"] = KIND
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": CARD_URI,
        "title": "Benchmark card",
        "type": "object",
        "properties": {
            "kind": {"const": KIND},
            "id": {"$ref": "common.schema.json#/$defs/id"},
            "name": {"$ref": "common.schema.json#/$defs/name"},
            "source": {"$ref": "common.schema.json#/$defs/source"},
            "copies": {"$ref": "common.schema.json#/$defs/copies"},
            "element": {"$ref": "#/$defs/element"},
            "cost": {"type": "integer", "minimum": 0, "maximum": 10},
            "attack": {"type": "integer", "minimum": 0, "maximum": 20},
            "defense": {"type": "integer", "minimum": 0, "maximum": 20},
            "ally": ally,
            "text": {"$ref": "common.schema.json#/$defs/text"},
        },
        "required": ["kind", "id", "name", "source", "element", "cost", "attack", "defense"],
        "additionalProperties": False,
        "$defs": {"element": {"description": "The card's element.", "enum": list(ELEMENTS)}},
    }


def card_id(n: int) -> str:
    return f"card-{n:06d}"


@dataclass(frozen=True)
class Planted:
    file: str  # relative to the project root, posix
    index: int  # record index in the file
    pointer: str
    code: str


@dataclass
class Project:
    root: Path
    records: int
    files: list[str]
    bytes: int
    planted: list[Planted] = field(default_factory=list)


def generate(root: Path, records: int, with_refs: bool = True) -> Project:
    """Write a project of `records` cards under `root` (deterministic for a given size)."""
    rng = random.Random(SEED + records)
    root.mkdir(parents=True, exist_ok=True)
    (root / "pnp.toml").write_text(
        '[project]\nname = "check benchmark"\nrecords = "cards"\nschemas = "schemas"\nlayouts = "layouts"\n',
        encoding="utf-8",
    )
    (root / "schemas").mkdir(exist_ok=True)
    shutil.copy(REPO / "schemas" / "common.schema.json", root / "schemas" / "common.schema.json")
    (root / "schemas" / f"{KIND}.schema.json").write_text(
        json.dumps(card_schema(with_refs), indent=2) + "\n", encoding="utf-8"
    )
    (root / "layouts").mkdir(exist_ok=True)
    benchlib.copy_icons(REPO, root)
    cards = root / "cards"
    cards.mkdir(exist_ok=True)

    # Which records carry a planted problem: disjoint sets, ~1% schema errors, ~1% dangling refs.
    n_invalid = max(len(SCHEMA_CODES), records // 100)
    n_dangling = max(1, records // 100)
    n_dups = max(2, records // 20000)
    chosen = rng.sample(range(records), n_invalid + n_dangling + 2 * n_dups)
    invalid = {n: SCHEMA_CODES[k % len(SCHEMA_CODES)] for k, n in enumerate(chosen[:n_invalid])}
    dangling = set(chosen[n_invalid : n_invalid + n_dangling])
    dup_pairs = list(zip(chosen[-2 * n_dups :: 2], chosen[-2 * n_dups + 1 :: 2], strict=True))
    renamed = {copy: original for copy, original in dup_pairs}  # record `copy` takes the id of `original`

    project = Project(root, records, [], 0)
    where: dict[int, tuple[str, int]] = {}
    for start in range(0, records, RECORDS_PER_FILE):
        name = f"cards/cards-{start // RECORDS_PER_FILE:04d}.json"
        batch = []
        for i, n in enumerate(range(start, min(start + RECORDS_PER_FILE, records))):
            where[n] = (name, i)
            record: dict[str, object] = {
                "kind": KIND,
                "id": card_id(renamed.get(n, n)),
                "name": f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {n}",
                "source": {"seed": "000_6347cdb41225c97f.txt", "section": "Benchmark cards"},
                "element": rng.choice(ELEMENTS),
                "cost": rng.randint(0, 10),
                "attack": rng.randint(0, 20),
                "defense": rng.randint(0, 20),
            }
            if rng.random() < 0.6 or n in dangling:
                target = rng.randrange(records)
                while target in renamed:  # a renamed record's own id no longer exists
                    target = rng.randrange(records)
                record["ally"] = card_id(target)
            record["text"] = "".join(str(rng.randint(1, 9)) if c == "#" else c for c in rng.choice(TEXTS))
            pointer = f"/{i}"
            if n in invalid:
                code = invalid[n]
                if code == "type-mismatch":
                    record["cost"] = str(record["cost"])
                    pointer += "/cost"
                elif code == "enum-mismatch":
                    record["element"] = TYPOS[str(record["element"])]
                    pointer += "/element"
                elif code == "required-property":
                    del record["name"]
                elif code == "unexpected-property":
                    record["colour"] = "red"
                    pointer += "/colour"
                elif code == "out-of-range":
                    record["attack"] = 99
                    pointer += "/attack"
                project.planted.append(Planted(name, i, pointer, code))
            if n in dangling:
                variant = n % 3
                if variant == 0:  # beyond the last id
                    record["ally"] = card_id(records + rng.randrange(1, 1000))
                elif variant == 1:  # a dropped digit
                    record["ally"] = card_id(rng.randrange(records))[:-1]
                else:  # a transposition
                    record["ally"] = "crad-" + card_id(rng.randrange(records))[5:]
                project.planted.append(Planted(name, i, f"/{i}/ally", REF_CODE))
            batch.append(record)
        data = json.dumps(batch, indent=2, ensure_ascii=False) + "\n"
        (root / name).write_text(data, encoding="utf-8")
        project.files.append(name)
        project.bytes += len(data.encode("utf-8"))
    for copy, original in dup_pairs:  # both places are reported
        for n in (copy, original):
            name, i = where[n]
            project.planted.append(Planted(name, i, f"/{i}/id", DUP_CODE))
    if with_refs:
        write_cjs_schema(root)
    return project


def write_cjs_schema(root: Path) -> Path:
    """One schema file for check-jsonschema: an array of bench.card, both schemas embedded."""
    common = json.loads((root / "schemas" / "common.schema.json").read_text(encoding="utf-8"))
    card = json.loads((root / "schemas" / f"{KIND}.schema.json").read_text(encoding="utf-8"))
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pnp.invalid/bench/cards-array.schema.json",
        "type": "array",
        "items": {"$ref": CARD_URI},
        "$defs": {"common": common, "card": card},
    }
    path = root / "check-jsonschema.schema.json"
    path.write_text(json.dumps(wrapper, indent=2) + "\n", encoding="utf-8")
    return path


# --- running and timing --------------------------------------------------------------------------------------------


def tool(name: str) -> str:
    return benchlib.tool(name, "check_bench")


@dataclass
class Timed:
    best: float = float("inf")
    runs: int = 0
    stdout: str = ""


def run(cmd: list[str], cwd: Path, ok_codes: tuple[int, ...], timed: Timed) -> None:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok_codes:
        sys.exit(f"check_bench: {' '.join(cmd[:3])} ... exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    timed.runs += 1
    if elapsed < timed.best:
        timed.best = elapsed
    timed.stdout = proc.stdout  # every run gives the same output; keep the last


JSON_LOAD = (
    "import glob, json\n"
    "for path in sorted(glob.glob('cards/**/*.json', recursive=True)):\n"
    "    with open(path, 'rb') as f:\n"
    "        json.load(f)\n"
)


FLOOR = (
    "import glob, orjson, jsonschema_rs\n"
    "with open('check-jsonschema.schema.json', 'rb') as f:\n"
    "    validator = jsonschema_rs.validator_for(orjson.loads(f.read()))\n"
    "errors = 0\n"
    "for path in sorted(glob.glob('cards/**/*.json', recursive=True)):\n"
    "    with open(path, 'rb') as f:\n"
    "        errors += sum(1 for _ in validator.iter_errors(orjson.loads(f.read())))\n"
    "print(errors)\n"
)


@dataclass
class SizeResult:
    project: Project
    pnp: Timed
    pnp_single: Timed
    pnp_ignore: Timed
    pnp_norefs: Timed
    cjs: Timed
    json_load: Timed
    floor: Timed
    found: Counter[str]
    expected: Counter[str]
    extra: list[str]
    cjs_found: int
    cjs_expected: int
    norefs_refs_reported: int

    @property
    def refs_overhead(self) -> float:
        return (self.pnp.best - self.pnp_norefs.best) / self.pnp_norefs.best


def forget_stored_check(root: Path) -> None:
    """Remove the results a previous `pnp check` stored (pnp/verify/cache.py): the next one checks.
    The project's key and what a check learned of files (facts.json) stay, as in a user's project."""
    (root / "output" / ".pnp-cache" / "check" / "results.json").unlink(missing_ok=True)


def bench_size(records: int, workdir: Path, repeat: int, cjs: bool = True) -> SizeResult:
    t0 = time.perf_counter()
    project = generate(workdir / f"records-{records}", records)
    norefs = generate(workdir / f"records-{records}-no-x-ref", records, with_refs=False)
    print(
        f"# {records} records: {len(project.files)} files, {project.bytes / 1e6:.1f} MB "
        f"({project.bytes / records:.0f} bytes/record), {len(project.planted)} planted problems, "
        f"generated in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    pnp, cjs_bin = tool("pnp"), tool("check-jsonschema")
    cjs_cmd = [cjs_bin, "-o", "json", "--schemafile", "check-jsonschema.schema.json", *project.files]
    commands = {
        "json": ([sys.executable, "-c", JSON_LOAD], project.root, (0,)),
        "floor": ([sys.executable, "-c", FLOOR], project.root, (0,)),
        "pnp": ([pnp, "check", "--format", "json"], project.root, (1,)),
        "pnp_single": ([pnp, "check", "--format", "json", "--jobs", "1"], project.root, (1,)),
        "pnp_ignore": ([pnp, "check", "--format", "json", "--ignore", "references"], project.root, (1,)),
        "pnp_norefs": ([pnp, "check", "--format", "json"], norefs.root, (1,)),
        "cjs": (cjs_cmd, project.root, (1,)),
    }
    if not cjs:
        del commands["cjs"]
    timings = {name: Timed() for name in [*commands, "cjs"]}
    run(*commands["json"], Timed())  # warm the page cache and the interpreter's .pyc files
    for _ in range(repeat):  # interleaved, so a noisy moment hurts every tool alike
        for name, (cmd, cwd, ok) in commands.items():
            if timings[name].runs and timings[name].best > SLOW_RUN_S:
                continue
            forget_stored_check(cwd)  # time a check, not a replay of the previous run's result
            run(cmd, cwd, ok, timings[name])
            print(f"  {name}: {timings[name].best:.3f} s (best of {timings[name].runs})", file=sys.stderr, flush=True)

    # pnp: every planted problem reported (file + pointer + code)?
    reported = {
        (Path(p["file"]).as_posix(), p["pointer"], p["code"]) for p in json.loads(timings["pnp"].stdout)["problems"]
    }
    expected = Counter(p.code for p in project.planted)
    found = Counter(p.code for p in project.planted if (p.file, p.pointer, p.code) in reported)
    planted_keys = {(p.file, p.pointer, p.code) for p in project.planted}
    extra = sorted(f"{f} {ptr} {code}" for f, ptr, code in reported - planted_keys)
    norefs_refs = sum(1 for p in json.loads(timings["pnp_norefs"].stdout)["problems"] if p["code"] == REF_CODE)

    # check-jsonschema: every planted schema error reported (file + record index)?
    cjs_out = json.loads(timings["cjs"].stdout) if timings["cjs"].runs else {}
    cjs_hits = set()
    for error in cjs_out.get("errors", []):
        path = str(error.get("path", ""))  # "$[12].cost" or "$[12]"
        if path.startswith("$[") and "]" in path:
            cjs_hits.add((Path(error["filename"]).as_posix(), int(path[2 : path.index("]")])))
    schema_planted = [p for p in project.planted if p.code in SCHEMA_CODES]
    cjs_found = sum(1 for p in schema_planted if (p.file, p.index) in cjs_hits)
    return SizeResult(
        project,
        timings["pnp"],
        timings["pnp_single"],
        timings["pnp_ignore"],
        timings["pnp_norefs"],
        timings["cjs"],
        timings["json"],
        timings["floor"],
        found,
        expected,
        extra,
        cjs_found,
        len(schema_planted),
        norefs_refs,
    )


# --- reporting -----------------------------------------------------------------------------------------------------


def label(records: int) -> str:
    return f"{records // 1000}k" if records % 1000 == 0 and records >= 1000 else str(records)


def seconds(t: Timed) -> str:
    return f"{t.best:.2f}" + ("" if t.runs > 1 else "¹")


def print_tables(results: list[SizeResult], repeat: int) -> None:
    print(
        f"pnp check benchmark: {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}; wall clock of whole processes, "
        f"best of {repeat} (¹ one run only: the first took over {SLOW_RUN_S:.0f} s)"
    )
    print()
    print(
        "| records | files | MB | pnp s | pnp --jobs 1 s | check-jsonschema s | R = cjs/pnp | json.load s "
        "| F = pnp/json.load | refs overhead | planted found (pnp) | planted schema errors found (check-jsonschema) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        total, found = sum(r.expected.values()), sum(r.found.values())
        print(
            f"| {r.project.records:,} | {len(r.project.files):,} | {r.project.bytes / 1e6:.1f} "
            f"| {seconds(r.pnp)} | {seconds(r.pnp_single)} | {seconds(r.cjs) if r.cjs.runs else '-'} "
            f"| {f'{r.cjs.best / r.pnp.best:.1f}' if r.cjs.runs else '-'} "
            f"| {seconds(r.json_load)} | {r.pnp.best / r.json_load.best:.2f} "
            f"| {r.refs_overhead * 100:+.0f}% | {found}/{total} | {r.cjs_found}/{r.cjs_expected} |"
        )
    print()
    print("The floor: orjson reading every file and jsonschema-rs validating it (no locating, no cross-checks)")
    print()
    print("| records | pnp s | floor s | pnp / floor |")
    print("|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r.project.records:,} | {seconds(r.pnp)} | {seconds(r.floor)} | {r.pnp.best / r.floor.best:.2f} |")
    print()
    print("Reference checks: pnp on the project, with `--ignore references` (filters the output only: the checks")
    print("still run), and on an identical project whose schema has no `x-ref` (no reference checks at all);")
    print("refs overhead = pnp / pnp without x-ref - 1.")
    print()
    print("| records | pnp s | pnp --ignore references s | pnp without x-ref s | refs overhead |")
    print("|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.project.records:,} | {seconds(r.pnp)} | {seconds(r.pnp_ignore)} | {seconds(r.pnp_norefs)} "
            f"| {r.refs_overhead * 100:+.0f}% |"
        )
    print()
    print("Planted problems found by pnp check (file + JSON pointer + code), per code:")
    print()
    print("| records | " + " | ".join(CATEGORIES) + " | other problems reported |")
    print("|---:|" + "---:|" * len(CATEGORIES) + "---:|")
    for r in results:
        cells = " | ".join(f"{r.found[c]}/{r.expected[c]}" for c in CATEGORIES)
        print(f"| {r.project.records:,} | {cells} | {len(r.extra)} |")
    print()


@dataclass
class RenderResult:
    cards: int
    cold: Timed
    warm: Timed
    no_render: Timed
    build: Timed
    edited: Timed  # pnp check after one card's title changed (one face drawn again)
    edited_no_render: Timed  # pnp check --no-render on the same edit
    edited_build: Timed  # pnp build after one more card's title changed, following a full build


def edit_one_card(root: Path, n: int) -> None:
    """Change the title of the n-th card of the first record file (a one-word edit)."""
    path = root / "cards" / "cards-0000.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[n]["title"] = records[n]["title"] + " edited"
    path.write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def bench_render(cards: int, workdir: Path, repeat: int) -> RenderResult:
    """`pnp check` drawing every card (cold and with its cache warm) beside `pnp build`, same project."""
    import build_bench

    root = workdir / f"render-{cards}"
    if root.exists():
        shutil.rmtree(root)
    build_bench.generate(root, cards)
    pnp = [tool("pnp")]
    names = ("cold", "warm", "no_render", "build", "edited", "edited_no_render", "edited_build")
    timings = {name: Timed() for name in names}
    print(f"render {cards:,} cards", file=sys.stderr, flush=True)
    shutil.rmtree(root / "output", ignore_errors=True)
    run([*pnp, "check", "--format", "json"], root, (0,), timings["cold"])
    for _ in range(repeat):  # full checks with the render cache warm, not replays (see bench_startup)
        forget_stored_check(root)
        run([*pnp, "check", "--format", "json"], root, (0,), timings["warm"])
        forget_stored_check(root)
        run([*pnp, "check", "--no-render", "--format", "json"], root, (0,), timings["no_render"])
    edit_one_card(root, 0)
    forget_stored_check(root)
    run([*pnp, "check", "--format", "json"], root, (0,), timings["edited"])
    forget_stored_check(root)
    run([*pnp, "check", "--no-render", "--format", "json"], root, (0,), timings["edited_no_render"])
    shutil.rmtree(root / "output", ignore_errors=True)
    run([*pnp, "build"], root, (0,), timings["build"])
    edit_one_card(root, 1)
    run([*pnp, "build"], root, (0,), timings["edited_build"])
    for name, timed in timings.items():
        print(f"  {name}: {timed.best:.3f} s (best of {timed.runs})", file=sys.stderr, flush=True)
    if json.loads(timings["cold"].stdout)["errors"] or timings["cold"].stdout != timings["warm"].stdout:
        sys.exit(
            f"check_bench: pnp check on the render project of {cards} cards found errors, or the cache changed them"
        )
    return RenderResult(cards, *(timings[name] for name in names))


def print_render_table(results: list[RenderResult]) -> None:
    print(
        "pnp check drawing every card (poker cards of bench/build_bench.py: a layout with text, stats, an image "
        "and a back), beside pnp build on the same project; cold: no render cache, warm: best of the repeats"
    )
    print()
    print("| cards | check cold s | check warm s | check --no-render s | build s | cold / build |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.cards:,} | {seconds(r.cold)} | {seconds(r.warm)} | {seconds(r.no_render)} | {seconds(r.build)} "
            f"| {r.cold.best / r.build.best:.2f} |"
        )
    print()
    print(
        "After a one-word edit of one card (its title): pnp check draws that card's faces only "
        "(pnp/drawing/facecache.py); pnp build after a full build and one more such edit"
    )
    print()
    print("| cards | check s | check --no-render s | check / --no-render | build s | build / full build |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.cards:,} | {seconds(r.edited)} | {seconds(r.edited_no_render)} "
            f"| {r.edited.best / r.edited_no_render.best:.2f} | {seconds(r.edited_build)} "
            f"| {r.edited_build.best / r.build.best:.2f} |"
        )
    print()


STARTUP_ROWS = (
    ("python -c pass", "the interpreter alone"),
    ("pnp --version", "pnp's command line loaded, nothing done"),
    ("pnp check, first", "no output folder: every card drawn, caches written"),
    ("pnp check, full", "the stored result removed: records loaded and checked, drawing from the render cache"),
    ("pnp check, nothing changed", "the stored result replayed (pnp/verify/cache.py)"),
    ("pnp check --no-render, full", "the stored result removed"),
    ("pnp check --no-render, nothing changed", "replayed"),
    ("pnp build, nothing to do", "the build stamp matches (pnp/project/stamp.py)"),
)


def bench_startup(workdir: Path, repeat: int) -> dict[str, Timed]:
    """Start-up on a small project (`pnp new "Ember Wild"`): each row a whole process, best of `repeat`."""
    pnp = tool("pnp")
    subprocess.run([pnp, "new", "Ember Wild"], cwd=workdir, check=True, capture_output=True)
    root = workdir / "ember-wild"
    timings = {name: Timed() for name, _ in STARTUP_ROWS}
    print("start-up on a pnp new project", file=sys.stderr, flush=True)
    for _ in range(repeat):
        shutil.rmtree(root / "output", ignore_errors=True)
        run([pnp, "check"], root, (0,), timings["pnp check, first"])
        first = timings["pnp check, first"].stdout
        run([sys.executable, "-c", "pass"], root, (0,), timings["python -c pass"])
        run([pnp, "--version"], root, (0,), timings["pnp --version"])
        forget_stored_check(root)
        run([pnp, "check"], root, (0,), timings["pnp check, full"])
        run([pnp, "check"], root, (0,), timings["pnp check, nothing changed"])
        if timings["pnp check, nothing changed"].stdout != first:
            sys.exit("check_bench: the replayed pnp check printed something else than the full one")
        forget_stored_check(root)
        run([pnp, "check", "--no-render"], root, (0,), timings["pnp check --no-render, full"])
        run([pnp, "check", "--no-render"], root, (0,), timings["pnp check --no-render, nothing changed"])
        run([pnp, "build"], root, (0,), Timed())
        run([pnp, "build"], root, (0,), timings["pnp build, nothing to do"])
    return timings


def print_startup_table(timings: dict[str, Timed]) -> None:
    runs = min(t.runs for t in timings.values())
    print(f'Start-up on a `pnp new "Ember Wild"` project (2 files, 3 records, one layout, one sheet), best of {runs}')
    print()
    print("| run | s | what it does |")
    print("|---|---:|---|")
    for name, what in STARTUP_ROWS:
        print(f"| {name} | {timings[name].best:.3f} | {what} |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated record counts")
    parser.add_argument("--render-sizes", default="1000,10000", help="card counts for check with drawing ('' skips)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool; the best is kept (default 3)")
    parser.add_argument("--keep", type=Path, help="generate the projects in DIR and keep them")
    parser.add_argument("--startup-repeat", type=int, default=10, help="runs of each start-up row (0 skips them)")
    parser.add_argument("--startup-only", action="store_true", help="only the start-up rows, on a pnp new project")
    parser.add_argument("--no-cjs", action="store_true", help="skip check-jsonschema (minutes at 100,000 records)")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    render_sizes = [int(s.replace("_", "")) for s in args.render_sizes.split(",") if s.strip()]
    if not sizes or any(s < 100 for s in sizes) or args.repeat < 1:
        parser.error("sizes must be at least 100 records, repeat at least 1")

    # An editable install (make's) leaves pnp's own modules uncompiled, and where
    # PYTHONDONTWRITEBYTECODE is set every run would compile them again (~50 ms); a wheel
    # install compiles them once, as this does. Time what users run, not the compiler.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "pnp")], check=True)
    if args.startup_repeat > 0:
        with tempfile.TemporaryDirectory(prefix="pnp-startup-bench-") as tmp:
            startup = bench_startup(Path(tmp), args.startup_repeat)
        print_startup_table(startup)
        if args.startup_only:
            return 0
    results: list[SizeResult] = []
    rendered: list[RenderResult] = []
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        results = [bench_size(n, args.keep.resolve(), args.repeat, not args.no_cjs) for n in sizes]
        rendered = [bench_render(n, args.keep.resolve(), args.repeat) for n in render_sizes]
    else:
        with tempfile.TemporaryDirectory(prefix="pnp-check-bench-") as tmp:
            results = [bench_size(n, Path(tmp), args.repeat, not args.no_cjs) for n in sizes]
            rendered = [bench_render(n, Path(tmp), args.repeat) for n in render_sizes]

    print_tables(results, args.repeat)
    if rendered:
        print_render_table(rendered)
    status = 0
    for r in results:
        missed = sum(r.expected.values()) - sum(r.found.values())
        if missed:
            print(f"FAIL {r.project.records}: pnp check missed {missed} planted problems", file=sys.stderr)
            status = 1
        if r.cjs.runs and r.cjs_found != r.cjs_expected:
            print(
                f"FAIL {r.project.records}: check-jsonschema reported {r.cjs_found} of {r.cjs_expected} planted "
                "schema errors: it is not validating what pnp validates, so R means nothing",
                file=sys.stderr,
            )
            status = 1
        if r.norefs_refs_reported:
            print(f"FAIL {r.project.records}: the project without x-ref still has reference checks", file=sys.stderr)
            status = 1
        if r.extra:
            print(f"note {r.project.records}: {len(r.extra)} problems reported beyond the planted ones, e.g.:")
            for line in r.extra[:5]:
                print(f"  {line}")
    last = results[-1]
    print(
        f"check {label(last.project.records)}: pnp {last.pnp.best:.2f} s, floor {last.floor.best:.2f} s "
        f"(pnp/floor = {last.pnp.best / last.floor.best:.2f}), check-jsonschema {last.cjs.best:.2f} s "
        f"(Y/X = {last.cjs.best / last.pnp.best:.1f}), json.load {last.json_load.best:.2f} s "
        f"(X/Z = {last.pnp.best / last.json_load.best:.2f})"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
