#!/usr/bin/env python3
"""Benchmark `pnp check` on an adopted card-data repository, against check-jsonschema.

    .venv/bin/python bench/adopt_bench.py [--cards 10000] [--repeat 3] [--keep DIR]

The repository is tests/adopt_repo (docs/adopting.md: only a pnp.toml added to the data)
scaled to `--cards` cards, 100 per pack file (pack/pNNN.json), the packs listed in packs.json.
Timed, whole processes, best of `--repeat`:

- `pnp check --format json`, its cache folder removed before each run (a full check: schemas,
  ids unique per kind, references between kinds);
- `check-jsonschema --schemafile schema/v1/card_schema.json pack/*.json`: the repository's own
  file-level schema on the same files, as such a repository's CI runs it (schemas only: no
  duplicate codes, no references).

Both must pass the clean repository (exit 0). It prints a markdown table and, last:
`adopt 10k: pnp X s, check-jsonschema Y s (Y/X = R)`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib  # noqa: E402 - a sibling module: the benchmarks run as scripts

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "adopt_repo"
PER_FILE = 100


def make_repository(target: Path, cards: int) -> list[Path]:
    """The fixture with `cards` cards in pack files of PER_FILE; the card files."""
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("output", "pack"))
    template = json.loads((FIXTURE / "pack" / "core.json").read_text(encoding="utf-8"))
    (target / "pack").mkdir()
    packs = json.loads((target / "packs.json").read_text(encoding="utf-8"))
    files = []
    for number in range(0, cards, PER_FILE):
        pack = f"p{number // PER_FILE:03d}"
        records = []
        for i in range(number, min(cards, number + PER_FILE)):
            card = dict(template[i % len(template)])
            card.update(code=f"{i:05d}", pack_code=pack, position=i - number + 1, title=f"{card['title']} {i}")
            records.append(card)
        path = target / "pack" / f"{pack}.json"
        path.write_text(json.dumps(records, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
        files.append(path)
        packs.append({**packs[0], "code": pack, "name": f"Pack {pack}", "position": len(packs) + 1})
    (target / "packs.json").write_text(json.dumps(packs, indent=4) + "\n", encoding="utf-8")
    return files


def timed(command: list[str], cwd: Path, before: object = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=1200)
    return time.perf_counter() - start, done


def best(command: list[str], cwd: Path, repeat: int, fresh: bool = False) -> float:
    times = []
    for _ in range(repeat):
        if fresh:
            shutil.rmtree(cwd / "output", ignore_errors=True)
        seconds, done = timed(command, cwd)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command[:4])} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        times.append(seconds)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate the repository here and keep it")
    args = parser.parse_args()
    checker = benchlib.tool("check-jsonschema", "adopt_bench.py")
    with tempfile.TemporaryDirectory() as tmp:
        target = (args.keep or Path(tmp)) / "repo"
        shutil.rmtree(target, ignore_errors=True)
        files = make_repository(target, args.cards)
        pnp = best([sys.executable, "-m", "pnp", "check", "--format", "json"], target, args.repeat, fresh=True)
        names = [str(f.relative_to(target)) for f in files]
        schema = "schema/v1/card_schema.json"
        other = best([checker, "--schemafile", schema, *names], target, args.repeat)
    print(f"| {args.cards} cards in {len(files)} files | seconds |")
    print("|---|---|")
    print(f"| pnp check (schemas, ids per kind, references) | {pnp:.2f} |")
    print(f"| check-jsonschema (schemas only) | {other:.2f} |")
    print(f"adopt {args.cards // 1000}k: pnp {pnp:.2f} s, check-jsonschema {other:.2f} s (Y/X = {other / pnp:.2f})")


if __name__ == "__main__":
    main()
