#!/usr/bin/env python3
"""Benchmark `pnp check` on the same cards as JSON files, as one XLSX workbook and as one CSV file.

    .venv/bin/python bench/table_bench.py [--records 10000] [--repeat 3] [--keep DIR]

The cards are check_bench's (one kind, ~1% schema errors, ~1% dangling references, a few
duplicate ids): written as JSON files of 100 records (check_bench.generate), then the same
records, in the same order, as one workbook and one CSV file written by `pnp export records`'s
writers (pnp/outputs/tablewriter.py). The three projects are checked in the same run, interleaved, best of
`--repeat`; each run's peak memory (max RSS) is measured in a wrapper process.

Problem counts differ where spreadsheets differ by design: a planted type error (`"cost": "3"`) is
a digit string, which the schema-guided reader turns into the integer 3 in a table, and a planted
unexpected property becomes one `unknown-column` at its header cell instead of one problem per
row. Every other planted problem (enum, required, range, references, duplicate ids) must be
found in all three formats, with the same counts, or the benchmark exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import check_bench  # noqa: E402 - a sibling module: the benchmarks run as scripts

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from pnp.outputs.tablewriter import write_csv, write_xlsx  # noqa: E402

SAME_IN_EVERY_FORMAT = ("enum-mismatch", "required-property", "out-of-range", "missing-reference", "duplicate-id")
PEAK = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "sys.stdout.buffer.write(done.stdout)\n"
    "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
)


def make_projects(workdir: Path, records: int) -> dict[str, tuple[Path, int]]:
    """(project root, bytes of its record files) for json, xlsx and csv."""
    made = check_bench.generate(workdir / "json", records)
    cards: list[dict[str, object]] = []
    for name in made.files:
        cards.extend(json.loads((made.root / name).read_text(encoding="utf-8")))
    projects = {"json": (made.root, made.bytes)}
    for fmt, data in (("xlsx", write_xlsx(cards, check_bench.KIND)), ("csv", write_csv(cards))):
        root = workdir / fmt
        shutil.copytree(made.root, root, ignore=shutil.ignore_patterns("cards", "check-jsonschema*"))
        (root / "cards").mkdir()
        (root / "cards" / f"cards.{fmt}").write_bytes(data)
        projects[fmt] = (root, len(data))
    return projects


def timed_check(root: Path) -> tuple[float, int, dict[str, object]]:
    """Seconds, peak RSS (kB) and the JSON report of one `pnp check` process."""
    command = [sys.executable, "-c", PEAK, sys.executable, "-m", "pnp", "check", "--format", "json"]
    (root / "output" / ".pnp-cache" / "check" / "results.json").unlink(missing_ok=True)  # a full check, not a replay
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env={"PYTHONPATH": str(REPO)})
    elapsed = time.perf_counter() - start
    report = json.loads(done.stdout)
    return elapsed, int(done.stderr.strip().splitlines()[-1]), report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated projects here")
    args = parser.parse_args(argv)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="table-bench-"))
    projects = make_projects(workdir, args.records)
    best = {fmt: float("inf") for fmt in projects}
    peak = {fmt: 0 for fmt in projects}
    codes: dict[str, Counter[str]] = {}
    for _ in range(args.repeat):
        for fmt, (root, _) in projects.items():
            elapsed, rss, report = timed_check(root)
            best[fmt] = min(best[fmt], elapsed)
            peak[fmt] = max(peak[fmt], rss)
            codes[fmt] = Counter(str(p["code"]) for p in report["problems"])  # type: ignore[union-attr]
    files = {fmt: len(list((root / "cards").iterdir())) for fmt, (root, _) in projects.items()}
    if args.keep is None:
        shutil.rmtree(workdir)
    print(
        f"{args.records:,} cards, pnp check --format json, best of {args.repeat}; {platform.python_version()}, "
        f"{platform.machine()}\n"
    )
    print("| format | files | bytes | pnp check | vs JSON | peak RSS | problems |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for fmt, (_, size) in projects.items():
        found = ", ".join(f"{code} {n}" for code, n in sorted(codes[fmt].items()))
        print(
            f"| {fmt} | {files[fmt]} | {size / 1048576:.1f} MB | {best[fmt]:.2f} s | {best[fmt] / best['json']:.2f}x "
            f"| {peak[fmt] / 1024:.0f} MB | {found} |"
        )
    wrong = [
        f"{fmt} {code}: {codes[fmt][code]} (json {codes['json'][code]})"
        for fmt in ("xlsx", "csv")
        for code in SAME_IN_EVERY_FORMAT
        if codes[fmt][code] != codes["json"][code]
    ]
    if wrong:
        print("table_bench: planted problems missed or doubled: " + "; ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
