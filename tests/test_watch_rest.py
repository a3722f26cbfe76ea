"""A save made while `pnp watch` builds the rest (combined files, read-me pages, sheets) gets its
round at once: the rest build runs in a child process (pnp.live.rest), and the save kills it.

One real `pnp watch` process (tests/watchkit.py) on tests/watch_project with a sheet file added,
built once by `pnp build` first. A save makes a round; 2 s later the watch forks the rest build.
The test finds that child (/proc), stops it (SIGSTOP) and steps it a millisecond at a time until
it holds staged outputs in output/: from then on it cannot finish, so a round seen after the next
save started before the rest build would have. After that round: no temporary file left, the
outputs the killed build was rewriting are their old bytes, and the manifest says of them what
it said before. Once the saves pause the rest is built again, and the output folder is then
byte for byte what a fresh `pnp build` of the same files writes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from pypdf import PdfReader
from runpnp import pnp
from watchkit import WatchProcess, copy_fixture, wait_until

from pnp.core.output import MANIFEST, TEMPORARY
from pnp.live.watch import Watcher, WatchOptions
from pnp.project.stamp import STAMP

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the watch's child in /proc")

SUMMARY = r"^\d+ files, \d+ records: 0 errors, 0 warnings$"
SHEET = "document: collection\nkinds: [demo.card]\noutput: aid.pdf\ntitle: An aid\nblocks:\n  - {type: heading, text: Aid}\n"
REST_OUTPUTS = ("demo.pdf", "demo/read-me-first.pdf", "aid.pdf")  # what only the rest build writes


def children(pid: int) -> list[int]:
    try:
        return [int(n) for n in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def state(pid: int) -> str:
    """The process's state letter (T: stopped, Z: ended, not yet reaped); '' when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def stop(pid: int) -> None:
    os.kill(pid, signal.SIGSTOP)
    found = wait_until(lambda: state(pid) or "gone", timeout=10, what="the child stopped")
    deadline = time.monotonic() + 10
    while found not in ("T", "t"):
        if found in ("Z", "gone") or time.monotonic() > deadline:
            raise AssertionError(f"the rest build ended before it staged anything (state {found})")
        found = state(pid) or "gone"


def temporaries(output: Path) -> list[str]:
    return sorted(p.relative_to(output).as_posix() for p in output.rglob("*") if TEMPORARY.match(p.name))


def stopped_while_staging(watch_pid: int, output: Path) -> tuple[int, list[str]]:
    """The watch's rest-build child, stopped while it holds staged outputs; and those."""
    deadline = time.monotonic() + 30
    while not (found := children(watch_pid)):
        assert time.monotonic() < deadline, "no rest build started"
        time.sleep(0.001)
    child = found[0]
    stop(child)
    while not (staged := temporaries(output)):  # a millisecond of work at a time
        os.kill(child, signal.SIGCONT)
        time.sleep(0.001)
        stop(child)
    return child, staged


def output_files(output: Path) -> dict[str, bytes]:
    """Every built file (pnp's cache folder aside) and the manifest, by path in output/."""
    return {
        p.relative_to(output).as_posix(): p.read_bytes()
        for p in sorted(output.rglob("*"))
        if p.is_file() and ".pnp-cache" not in p.relative_to(output).parts
    }


def text_of(pdf: Path) -> str:
    return "".join(page.extract_text() for page in PdfReader(pdf).pages)


@dataclass(frozen=True)
class Seen:
    project: Path
    staged: list[str]  # what the stopped rest build held in output/
    child_state_at_round: str  # the rest build's child when the save's round had ended
    round_seconds: float  # from the save to its round's summary line
    temporaries_after_round: list[str]
    before: dict[str, bytes]  # output/ as the rest build found it
    after_round: dict[str, bytes]  # ... and once the save's round ended
    kind_pdf_text: str  # the saved record's kind PDF after the save's round
    watched: dict[str, bytes]  # output/ once the saves paused and the rest was built again
    fresh: dict[str, bytes]  # output/ of a fresh `pnp build` of the same files
    exit_code: int
    stderr: list[str]


def rename(project: Path, name: str) -> None:
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text())
    records[1]["name"] = name
    cards.write_text(json.dumps(records, indent=2) + "\n")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Seen:
    project = copy_fixture(tmp_path_factory.mktemp("rest"))
    (project / "sheets").mkdir()
    (project / "sheets" / "aid.yaml").write_text(SHEET)
    output = project / "output"
    assert pnp(project, "build").returncode == 0
    watch = WatchProcess(project)
    try:
        watch.wait_for_line(SUMMARY)
        start = len(watch.stdout)
        rename(project, "Riptide")  # a round, and the rest build 2 s after it
        watch.wait_for_line(SUMMARY, start)
        before = output_files(output)
        child, staged = stopped_while_staging(watch.process.pid, output)
        start = len(watch.stdout)
        saved = time.monotonic()
        rename(project, "Undertow")
        watch.wait_for_line(SUMMARY, start)
        round_seconds = time.monotonic() - saved
        child_state = state(child) or "gone"
        after_round, left = output_files(output), temporaries(output)
        kind_text = text_of(output / "demo" / "demo.card.pdf")
        wait_until(
            lambda: not children(watch.process.pid) and "Undertow" in text_of(output / "demo.pdf"),
            what="the rest built again once the saves paused",
        )
        watched = output_files(output)
        code = watch.interrupt()
    finally:
        watch.close()
    shutil.move(output, project / "watched-output")
    assert pnp(project, "build").returncode == 0
    fresh = output_files(output)
    return Seen(
        project, staged, child_state, round_seconds, left, before, after_round, kind_text, watched, fresh, code,
        watch.stderr,
    )  # fmt: skip


def test_the_save_s_round_does_not_wait_for_the_rest_build(seen: Seen) -> None:
    assert any(name.endswith(".tmp") for name in seen.staged), seen.staged  # it was at work, stopped
    assert seen.child_state_at_round == "gone"  # killed and reaped: it could not have finished
    assert seen.kind_pdf_text.count("Undertow") == 1  # the round built the saved record's kind
    assert seen.round_seconds < 20


def test_the_abandoned_build_leaves_no_partial_file(seen: Seen) -> None:
    """Each output the killed build was writing is the old file, as its manifest entry says, or
    (killed while it put its files in place) a whole new file the manifest no longer vouches for."""
    assert seen.temporaries_after_round == []
    old, new = json.loads(seen.before[MANIFEST]), json.loads(seen.after_round[MANIFEST])
    for name in REST_OUTPUTS:
        if seen.after_round[name] == seen.before[name]:
            assert new.get(name) == old[name], name
        else:
            assert name not in new, name
            assert len(PdfReader(io.BytesIO(seen.after_round[name])).pages) > 0


def test_once_the_saves_pause_the_outputs_are_a_fresh_build_s(seen: Seen) -> None:
    """Every file, and the manifest; not the no-change stamp, which only the `pnp build` command
    writes (the one of the first build is still there: it names other inputs, so it vouches for nothing)."""
    watched, fresh = dict(seen.watched), dict(seen.fresh)
    old_stamp, new_stamp = json.loads(watched.pop(STAMP)), json.loads(fresh.pop(STAMP))
    assert [v["digest"] for v in old_stamp.values()] != [v["digest"] for v in new_stamp.values()]
    assert sorted(watched) == sorted(fresh)
    assert {MANIFEST, *REST_OUTPUTS, "demo/demo.card.pdf"} <= set(fresh)
    for name, data in fresh.items():
        assert watched[name] == data, name
    assert not temporaries(seen.project / "watched-output")
    assert seen.exit_code == 130 and not any("Traceback" in line or "error" in line for line in seen.stderr)


def test_what_the_rest_build_finds_in_its_child_is_printed_once_and_shown(tmp_path: Path) -> None:
    """The watcher in this process, its rest build in a child: what that finds comes back to be
    printed (once) and shown on the page."""
    project = copy_fixture(tmp_path)
    (project / "sheets").mkdir()
    (project / "sheets" / "aid.yaml").write_text(SHEET.replace("aid.pdf", "../escape.pdf"))
    out = io.StringIO()
    watcher = Watcher(project / "pnp.toml", WatchOptions(build=True), out)
    watcher.round()
    watcher.start_rest()
    child = watcher.rest_child
    assert child is not None and child.running  # in a child process
    wait_until(watcher.collect_rest, what="the rest build's outcome")
    assert watcher.rest_child is None and state(child.pid) == ""  # reaped
    escape = (
        "sheets/aid.yaml:3:9: error[sheet-error]: output '../escape.pdf' leads outside the output folder; "
        "written to aid-aid.pdf instead (at /output)"
    )
    assert out.getvalue().splitlines().count(escape) == 1
    assert [p.code for p in watcher.preview.snapshot.problems] == ["sheet-error"]
    assert not (tmp_path / "escape.pdf").exists() and not temporaries(project / "output")
