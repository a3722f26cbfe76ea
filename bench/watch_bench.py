#!/usr/bin/env python3
"""Benchmark `pnp watch --serve`: from saving one record to its new card image, and to its kind's PDF.

    .venv/bin/python bench/watch_bench.py [--cards 10000] [--kinds 10] [--edits 3] [--keep DIR]

It generates the cards of bench/build_bench.py (same records, layout and art), split into
`--kinds` decks of equal size (kinds bench.deck-0, bench.deck-1, ...: one schema each, one
layout for all), and in the same run:

1. times a full `pnp build --force` (a whole process, wall clock);
2. starts `pnp watch --serve --port 0` on the project and waits for its first round;
3. `--edits` times, for a record in a different deck each time: listens to the page's
   `/events` stream, saves the record file with the record's title changed, and measures
   - image: from the save to the new front image of that card served by `/img/...` (the event
     names the changed card; `/model.json` gives its new image URL; the bytes must differ from
     the image before the save);
   - PDF: from the save to the deck's PDF replaced on disk (output/bench/<kind>.pdf), the other
     decks' PDFs untouched;
4. once more, but while the rest build runs (the combined file, read-me pages and sheets, built
   2 s after a round): it waits until that build has staged a file in output/ (a temporary
   `.NAME.xxxxxxxx.tmp`, so the same test works on a watch that builds the rest in its own
   process), then saves and measures save -> new image as above, then save -> the combined file
   (output/bench.pdf) replaced, which the watch builds again once the saves pause;
5. saves a new sheet file (sheets/aid.yaml, a heading over one deck) and counts the cards the
   next round names as changed (target: none; a sheet file is no input of any card face);
6. stops the watch with SIGINT (exit status 130).

Targets: image under 0.5 s (during the rest build too), PDF under the full build's time / 5. Prints a markdown table and
last `watch 10k: image X s, kind PDF Y s, full build Z s (Z/Y = R)`. Exit status 1 when a
check fails (not when a target is missed: the table says so).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402 - a sibling module
import build_bench  # noqa: E402 - a sibling module: the same cards as the build benchmark

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from watchkit import WatchProcess  # noqa: E402 - the tests' `pnp watch` process, read line by line

REPO = Path(__file__).resolve().parents[1]
TARGET_IMAGE_S, TARGET_PDF_RATIO = 0.5, 5.0


def split_into_kinds(root: Path, kinds: int) -> list[str]:
    """Give each record file's records one of `kinds` kinds (consecutive files share a kind)."""
    names = [f"bench.deck-{k}" for k in range(kinds)]
    files = sorted((root / "cards").glob("cards-*.json"))
    per_kind = max(1, -(-len(files) // kinds))
    for i, path in enumerate(files):
        records = json.loads(path.read_text(encoding="utf-8"))
        for record in records:
            record["kind"] = names[min(i // per_kind, kinds - 1)]
        path.write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    schemas = root / "schemas"
    (schemas / f"{build_bench.KIND}.schema.json").unlink()
    for name in names:
        schema = build_bench.card_schema()
        schema["$id"] = f"https://pnp.invalid/schemas/{name}.schema.json"
        schema["properties"]["kind"] = {"const": name}  # type: ignore[index]
        (schemas / f"{name}.schema.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    layout = build_bench.card_layout()
    layout["kinds"] = names
    (root / "layouts" / f"{build_bench.KIND}.json").write_text(json.dumps(layout, indent=2) + "\n", encoding="utf-8")
    return names


def get(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"watch_bench: GET {path}: {response.status}")
        return body
    finally:
        conn.close()


def front_url(port: int, key: str) -> str:
    model = json.loads(get(port, "/model.json"))
    card = next(c for c in model["cards"] if c["key"] == key)
    return str(card["images"][0]["url"])


def wait_for_round(port: int, key: str, ready: threading.Event, seen: dict[str, Any]) -> None:
    """Read /events until a round names `key` as changed; note when, and its new image (as the page does)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/events")
    response = conn.getresponse()
    ready.set()
    generation = None
    while True:
        line = response.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            event = json.loads(line[6:])
            if generation is None:
                generation = event["generation"]  # the current round, sent at once
                continue
            if key in event["changed"]:
                seen["event"] = time.perf_counter()
                seen["url"] = next(c["images"][0]["url"] for c in event["cards"] if c["key"] == key)
                conn.close()
                return


def rest_under_way(root: Path, timeout: float = 600) -> float:
    """Wait until the watch's rest build has staged a file in output/; seconds waited."""
    from pnp.core.output import TEMPORARY

    output = root / "output"
    start = time.perf_counter()
    while not any(TEMPORARY.match(name) for _, _, names in os.walk(output) for name in names):
        if time.perf_counter() - start > timeout:
            sys.exit("watch_bench: no rest build started")
        time.sleep(0.005)
    return time.perf_counter() - start


def one_edit(
    root: Path, port: int, record_file: Path, index: int, kind: str, kinds: list[str], during_rest: bool = False
) -> tuple[float, float, float]:
    """Save a new title for one record (`during_rest`: once the rest build has staged a file);
    seconds until its new image is served, and its kind's PDF is on disk; when it was saved."""
    records = json.loads(record_file.read_text(encoding="utf-8"))
    record = records[index]
    key = f"{kind}:{record['id']}"
    old_url = front_url(port, key)
    old_image = get(port, old_url)
    pdfs = {k: root / "output" / "bench" / f"{k}.pdf" for k in kinds}
    stamps = {k: p.stat().st_mtime_ns for k, p in pdfs.items()}
    titles = [f"{a} {n}" for a in build_bench.ADJECTIVES for n in build_bench.NOUNS]
    record["title"] = next(t for t in titles if t != record["title"])  # as short as every title: it fits
    data = json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    ready = threading.Event()
    seen: dict[str, Any] = {}
    listener = threading.Thread(target=wait_for_round, args=(port, key, ready, seen), daemon=True)
    listener.start()
    ready.wait(30)
    time.sleep(0.2)  # the stream's first event (the current round) is read
    if during_rest:
        rest_under_way(root)
    start = time.perf_counter()
    record_file.write_text(data, encoding="utf-8")
    listener.join(60)
    if "event" not in seen:
        sys.exit("watch_bench: no round named the edited card")
    new_url = seen["url"]
    new_image = get(port, new_url)
    image_s = time.perf_counter() - start
    if front_url(port, key) != new_url:
        sys.exit(f"watch_bench: the event and the model disagree on the image of {key}")
    if new_url == old_url or new_image == old_image:
        sys.exit(f"watch_bench: the image of {key} did not change")
    pdf = pdfs[kind]
    deadline = time.monotonic() + 600
    while pdf.stat().st_mtime_ns == stamps[kind]:
        if time.monotonic() > deadline:
            sys.exit(f"watch_bench: {pdf} was not rebuilt")
        time.sleep(0.01)
    pdf_s = time.perf_counter() - start
    time.sleep(1.0)  # let the round end before looking at the other decks
    rewritten = [k for k in kinds if k != kind and pdfs[k].stat().st_mtime_ns != stamps[k]]
    if rewritten:
        sys.exit(f"watch_bench: decks that did not change were rewritten: {rewritten}")
    return image_s, pdf_s, start


def sheet_edit(root: Path, port: int, kind: str) -> int:
    """Save a new sheet file; how many cards the next round names as changed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request("GET", "/events")
    response = conn.getresponse()
    first = True
    (root / "sheets").mkdir(exist_ok=True)
    try:
        while True:
            line = response.readline()
            if not line:
                sys.exit("watch_bench: the event stream ended before the sheet's round")
            if not line.startswith(b"data: "):
                continue
            event = json.loads(line[6:])
            if first:  # the current round, sent at once: now save
                first = False
                sheet = f"document: collection\nkinds: [{kind}]\noutput: aid.pdf\ntitle: An aid\n"
                (root / "sheets" / "aid.yaml").write_text(sheet + "blocks:\n  - {type: heading, text: Aid}\n")
                continue
            return len(event["changed"])
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=10000)
    parser.add_argument("--kinds", type=int, default=10)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="generate the project here and keep it")
    args = parser.parse_args(argv)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="pnp-watch-bench-") as tmp:
        root = args.keep or Path(tmp) / "project"
        build_bench.generate(root, args.cards)
        kinds = split_into_kinds(root, args.kinds)
        started = time.perf_counter()
        built = subprocess.run(
            [benchlib.tool("pnp", "watch_bench"), "build", "--force"], cwd=root, capture_output=True, text=True
        )
        full_s = time.perf_counter() - started
        if built.returncode != 0:
            sys.exit(f"watch_bench: pnp build failed: {built.stdout[-2000:]} {built.stderr[-2000:]}")
        watch = WatchProcess(root, "--serve", "--port", "0")
        try:
            port = int(watch.wait_for_line(r"http://127\.0\.0\.1:(\d+)/", timeout=120, stream="stderr").group(1))
            watch.wait_for_line(r"records: 0 errors", timeout=600)
            time.sleep(1.0)
            times = []
            files = sorted((root / "cards").glob("cards-*.json"))
            per_kind = len(files) // len(kinds)
            for n in range(args.edits):
                deck = (3 + 4 * n) % len(kinds)
                record_file = files[deck * per_kind + per_kind // 2]
                times.append(one_edit(root, port, record_file, 17, kinds[deck], kinds))
                print(f"edit {n + 1}: image {times[-1][0]:.3f} s, kind PDF {times[-1][1]:.2f} s", file=sys.stderr)
            combined = root / "output" / "bench.pdf"
            stamp = combined.stat().st_mtime_ns
            deck = (3 + 4 * args.edits) % len(kinds)
            record_file = files[deck * per_kind + per_kind // 2 + 1]
            during = one_edit(root, port, record_file, 17, kinds[deck], kinds, during_rest=True)
            deadline = time.monotonic() + 600
            while combined.stat().st_mtime_ns == stamp:
                if time.monotonic() > deadline:
                    sys.exit("watch_bench: the combined file was not built again after the saves paused")
                time.sleep(0.05)
            combined_s = time.perf_counter() - during[2]
            print(
                f"saved during the rest build: image {during[0]:.3f} s, kind PDF {during[1]:.2f} s, "
                f"combined file {combined_s:.2f} s",
                file=sys.stderr,
            )
            sheet_changed = sheet_edit(root, port, kinds[0])
            print(f"sheet file saved: {sheet_changed} cards changed", file=sys.stderr)
            code = watch.interrupt(60)
            if code != 130:
                sys.exit(f"watch_bench: pnp watch ended with {code}, not 130")
        finally:
            watch.close()
    image_s = statistics.median(t[0] for t in times)
    pdf_s = statistics.median(t[1] for t in times)
    ratio = full_s / pdf_s
    label = f"{args.cards // 1000}k" if args.cards >= 1000 else str(args.cards)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load}")
    print()
    print(
        "| cards | kinds | full `pnp build --force` | save -> new image served | save -> kind PDF on disk | full / kind PDF |"
    )
    print("|---|---|---|---|---|---|")
    image_ok = "meets" if image_s < TARGET_IMAGE_S else "MISSES"
    pdf_ok = "meets" if ratio > TARGET_PDF_RATIO else "MISSES"
    print(
        f"| {args.cards:,} | {len(kinds)} | {full_s:.2f} s | {image_s:.3f} s ({image_ok} < {TARGET_IMAGE_S} s) "
        f"| {pdf_s:.2f} s | {ratio:.1f} ({pdf_ok} > {TARGET_PDF_RATIO:g}) |"
    )
    print()
    print("edits (image s, PDF s): " + ", ".join(f"({a:.3f}, {b:.2f})" for a, b, _ in times))
    during_ok = "meets" if during[0] < TARGET_IMAGE_S else "MISSES"
    print(
        f"saved during the rest build: image {during[0]:.3f} s ({during_ok} < {TARGET_IMAGE_S} s), "
        f"kind PDF {during[1]:.2f} s, combined file rebuilt {combined_s:.2f} s after the save"
    )
    print(f"a new sheet file: {sheet_changed} cards changed in its round (target 0)")
    print(
        f"watch {label}: image {image_s:.3f} s, kind PDF {pdf_s:.2f} s, full build {full_s:.2f} s (Z/Y = {ratio:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
