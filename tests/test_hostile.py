"""Hostile and broken input (issue 14): the CLI on a copy of tests/build_project.

Containment (links out of the project, FIFOs, links inside output/), atomic output (kill and
restore, stale temporaries, the lock, a failed build writes nothing) and exit statuses.

The CLI runs in this process (tests/runpnp.py) but where the process itself is tested: a FIFO
that would block it (the timeout ends a hung process), killed and interrupted runs, the lock
another process holds, an environment variable read at start-up, and file names that are not
UTF-8 as the real standard output encodes them; those run the real `python -m pnp` (`process`).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from watchkit import interruptible

from tests.runpnp import Ran, process
from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def start(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pnp", *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or ENV,
        preexec_fn=interruptible,  # Ctrl-C reaches it even when the suite runs in the background
    )


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The bytes of every output of a clean build (builds are deterministic)."""
    target = tmp_path_factory.mktemp("first") / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    done = pnp(target, "build")
    assert done.returncode == 0, done.stderr
    return outputs(target)


@pytest.fixture()
def built(project: Path, first_build: dict[str, bytes]) -> Path:
    done = pnp(project, "build")
    assert done.returncode == 0, done.stderr
    assert outputs(project) == first_build
    return project


def outputs(project: Path) -> dict[str, bytes]:
    return {p.relative_to(project).as_posix(): p.read_bytes() for p in sorted((project / "output").rglob("*.pdf"))}


def stamps(project: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(project).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino)
        for p in sorted((project / "output").rglob("*"))
        if p.is_file()
    }


def change_spells(project: Path) -> None:
    spells = project / "cards" / "spells.json"
    spells.write_text(spells.read_text().replace("Spell 1", "Spell One"))


def change_cards(project: Path) -> None:
    cards = project / "cards" / "cards.json"
    cards.write_text(cards.read_text().replace('"element": "fire"', '"element": "water"', 1))


def assert_clean(done: Ran | subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr + done.stdout and "internal error" not in done.stderr


# --- containment: reading -----------------------------------------------------------------------


def test_link_to_the_root_folder_is_reported_not_walked(project: Path) -> None:
    (project / "cards" / "root").symlink_to("/")
    done = pnp(project, "check")
    assert_clean(done)
    assert done.returncode == 1
    assert done.stdout.startswith("cards/root:1:1: error[unreadable-file]: a symbolic link to /, outside the project")


def test_link_to_a_file_outside_is_reported_not_read(project: Path) -> None:
    (project / "cards" / "x.json").symlink_to("/etc/passwd")
    done = pnp(project, "check", "--format", "json")
    assert_clean(done)
    assert done.returncode == 1
    problems = [p for p in json.loads(done.stdout)["problems"] if p["code"] != "outside-safe-zone"]  # the layouts'
    assert [(p["file"], p["line"], p["code"]) for p in problems] == [("cards/x.json", 1, "unreadable-file")]
    assert "outside the project" in problems[0]["message"] and "root:" not in done.stdout


def test_link_inside_the_project_is_followed(project: Path) -> None:
    (project / "more").mkdir()
    shutil.move(project / "cards" / "spells.json", project / "more" / "spells.json")
    (project / "cards" / "spells.json").symlink_to(project / "more" / "spells.json")
    done = pnp(project, "check")
    assert done.returncode == 0 and "2 files, 16 records: 0 errors" in done.stdout, done.stdout


@pytest.mark.parametrize("where", ["cards/pipe.json", "output/.pnp-manifest.json"])
def test_a_fifo_is_never_opened_for_reading(built: Path, where: str) -> None:
    """A FIFO with no writer blocks a plain open(); pnp must neither hang nor read it."""
    path = built / where
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    done = process(built, "build", timeout=120)  # the timeout fails the test on a hang
    assert_clean(done)
    if where.startswith("cards"):
        assert done.returncode == 1
        assert done.stdout.startswith(
            "cards/pipe.json:1:1: error[unreadable-file]: a named pipe (FIFO), not a regular file"
        )
    else:  # an unreadable manifest is no manifest: everything is rebuilt, the FIFO replaced
        assert done.returncode == 0 and "0 up to date" in done.stderr
        assert path.is_file()


def test_missing_records_folder_is_a_configuration_error(project: Path) -> None:
    shutil.rmtree(project / "cards")
    done = pnp(project, "check")
    assert_clean(done)
    assert done.returncode == 2
    assert "cards: the records folder does not exist" in done.stderr


# --- containment: writing and deleting in output/ --------------------------------------------


def canary_folder(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.png").write_bytes(b"precious")
    (outside / "test.card.pdf").write_bytes(b"precious")
    return outside


@pytest.mark.parametrize("args", [("export", "png"), ("export", "gallery")])
def test_export_never_deletes_through_a_link_in_output(project: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    done = pnp(project, *args)
    assert done.returncode == 0, done.stderr
    folder = project / "output" / ("test/png/test.card" if args[1] == "png" else "gallery/img/test/test.card")
    shutil.rmtree(folder)
    outside = canary_folder(tmp_path)
    folder.symlink_to(outside)
    done = pnp(project, *args, "--force")
    assert_clean(done)
    assert done.returncode == 2
    assert "symbolic link" in done.stderr and "never writes or deletes through links" in done.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["canary.png", "test.card.pdf"]
    assert (outside / "canary.png").read_bytes() == b"precious"


def test_build_never_writes_through_a_link_in_output(built: Path, tmp_path: Path) -> None:
    before = stamps(built)
    shutil.rmtree(built / "output" / "test")
    outside = canary_folder(tmp_path)
    (built / "output" / "test").symlink_to(outside)
    done = pnp(built, "build", "--force")
    assert_clean(done)
    assert done.returncode == 2 and "symbolic link" in done.stderr
    assert (outside / "test.card.pdf").read_bytes() == b"precious"
    assert sorted(p.name for p in outside.iterdir()) == ["canary.png", "test.card.pdf"]
    assert stamps(built) == {k: v for k, v in before.items() if not k.startswith("output/test/")}


def test_an_output_file_that_is_a_link_is_replaced_not_written_through(built: Path, tmp_path: Path) -> None:
    outside = canary_folder(tmp_path)
    pdf = built / "output" / "test" / "test.card.pdf"
    pdf.unlink()
    pdf.symlink_to(outside / "test.card.pdf")
    done = pnp(built, "build")
    assert done.returncode == 0, done.stderr
    assert not pdf.is_symlink() and pdf.read_bytes().startswith(b"%PDF")
    assert (outside / "test.card.pdf").read_bytes() == b"precious"


# --- atomic output: never a wrong "up to date" -----------------------------------------------


def test_build_killed_while_replacing_is_rebuilt_after_inputs_are_restored(
    built: Path, first_build: dict[str, bytes]
) -> None:
    """Killed (SIGKILL) after putting one changed output in place: once the inputs are restored,
    the next build must rebuild that file, never call the killed build's content up to date."""
    saved = {name: (built / "cards" / name).read_bytes() for name in ("cards.json", "spells.json")}
    change_cards(built)
    change_spells(built)
    done = process(built, "build", env={"PNP_TEST_KILL_AFTER_REPLACING": "1"})
    assert done.returncode == -signal.SIGKILL
    assert outputs(built) != first_build  # the kill really left a changed file in place
    for name, data in saved.items():
        (built / "cards" / name).write_bytes(data)
    done = pnp(built, "build")
    assert done.returncode == 0, done.stderr
    assert outputs(built) == first_build
    assert not [p for p in (built / "output").rglob("*.tmp")]


def test_build_killed_while_rendering_changes_nothing(built: Path, first_build: dict[str, bytes]) -> None:
    """SIGKILL as soon as the first staged file appears: outputs and manifest are untouched."""
    manifest = (built / "output" / ".pnp-manifest.json").read_bytes()
    change_spells(built)
    change_cards(built)
    edit_layout(built, "test-spell", {"copies": 300})  # seconds of drawing after the first staged file
    running = start(built, "build", "--force")
    deadline = time.monotonic() + 120
    while running.poll() is None and not list((built / "output").glob(".*.tmp")):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    running.kill()
    running.communicate()
    assert running.returncode == -signal.SIGKILL, "the build ended before it could be killed"
    assert outputs(built) == first_build
    assert (built / "output" / ".pnp-manifest.json").read_bytes() == manifest
    done = pnp(built, "build")  # stale temporaries of the killed run are cleaned
    assert done.returncode == 0
    assert not list((built / "output").rglob("*.tmp"))


def test_stale_temporaries_are_removed(built: Path) -> None:
    stale = [built / "output" / ".test.card.pdf.ab12_xyz.tmp", built / "output" / "test" / ".test.pdf.k3j4h5g6.tmp"]
    for path in stale:
        path.write_bytes(b"half a pdf")
    keep = built / "output" / "test" / "notes.tmp"
    keep.write_bytes(b"not ours")
    done = pnp(built, "build")
    assert done.returncode == 0 and "0 written" in done.stderr
    assert not any(p.exists() for p in stale) and keep.exists()


def test_failed_build_writes_nothing(built: Path) -> None:
    """One kind changes and renders, another fails to render: no file is touched at all."""
    before, contents = stamps(built), outputs(built)
    change_spells(built)
    cards = built / "cards" / "cards.json"
    data = json.loads(cards.read_text())
    data[2]["text"] = "A very long rules text. " * 60
    cards.write_text(json.dumps(data, indent=2))
    done = pnp(built, "build")
    assert_clean(done)
    assert done.returncode == 1 and "text-overflow" in done.stdout
    assert "0 written" in done.stderr
    assert stamps(built) == before and outputs(built) == contents


def test_a_second_run_waits_for_the_lock_and_ctrl_c_exits_130(built: Path) -> None:
    """The output folder's lock (on the folder holding it) makes a second run wait and say so;
    Ctrl-C while it waits ends it with status 130 and writes nothing."""
    before = stamps(built)
    change_spells(built)
    descriptor = os.open(built, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        running = start(built, "build")
        assert running.stderr is not None
        line = running.stderr.readline()  # blocks until the run reports that it waits
        assert "waiting for another pnp run writing to" in line
        running.send_signal(signal.SIGINT)
        _, err = running.communicate(timeout=60)
        assert running.returncode == 130, err
        assert "Traceback" not in err
        assert stamps(built) == before
        waiting = start(built, "build")
        assert waiting.stderr is not None
        assert "waiting for another pnp run" in waiting.stderr.readline()
    finally:
        os.close(descriptor)  # releases the lock: the waiting run goes on
    _, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "wrote output/test/test.spell.pdf" in err


def test_output_folder_that_cannot_be_written_is_an_environment_error(built: Path) -> None:
    """Root ignores permissions, so the folder is made unwritable another way: a file stands
    where output/test/ should be. One line, exit 2, no traceback; the next build redoes it."""
    change_spells(built)
    shutil.rmtree(built / "output" / "test")
    (built / "output" / "test").write_bytes(b"in the way")
    done = pnp(built, "build")
    assert_clean(done)
    assert done.returncode == 2
    assert "pnp: error: cannot write" in done.stderr and "none counts as up to date" in done.stderr
    assert not list((built / "output").glob(".*.tmp"))
    (built / "output" / "test").unlink()
    done = pnp(built, "build")
    assert done.returncode == 0 and "0 up to date" in done.stderr


def test_file_names_that_are_not_utf8_in_json_and_sarif(project: Path) -> None:
    os.close(os.open(os.path.join(os.fsencode(project / "cards"), b"bad\xff.json"), os.O_CREAT | os.O_WRONLY))
    done = process(project, "check", "--format", "json")
    assert_clean(done)
    assert done.returncode == 1
    problems = json.loads(done.stdout)["problems"]
    assert [p["file"] for p in problems if p["code"] != "outside-safe-zone"] == ["cards/bad\\xff.json"]
    done = process(project, "check", "--format", "sarif", "--ignore", "outside-safe-zone")  # the layouts' warnings
    assert done.returncode == 1
    location = json.loads(done.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "cards/bad%FF.json"


# --- bounded work at build time: each attack is a located problem naming its limit ------------


def edit_layout(project: Path, name: str, change: dict[str, object], element: dict[str, object] | None = None) -> None:
    path = project / "layouts" / f"{name}.json"
    data = json.loads(path.read_text())
    data.update(change)
    if element is not None:
        base = {"name": "attack", "type": "text", "x": 5, "y": 30, "w": 50, "h": 20}
        data.setdefault("front", {}).setdefault("elements", []).append({**base, **element})
    path.write_text(json.dumps(data))


def huge_png(path: Path) -> None:
    """A 100,000 x 100,000 pixel PNG of a few kilobytes: a decompression bomb."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 100_001 * 20, 9)) + chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + body)


ATTACKS = {
    "layout copies": (
        lambda p: edit_layout(p, "test-spell", {"copies": "{{ 10 ** 8 }}"}),
        "limit-exceeded",
        "(copies)",
    ),
    "expand range": (
        lambda p: edit_layout(p, "test-spell", {"expand": {"n": {"from": 1, "to": 10**8}}}),
        "limit-exceeded",
        "(expand-range)",
    ),
    "template loop": (
        lambda p: edit_layout(
            p,
            "test-spell",
            {},
            {"text": "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"},
        ),
        "template-error",
        "(template-seconds)",
    ),
    "template huge string": (
        lambda p: edit_layout(p, "test-spell", {}, {"text": "{{ 'x' * 10 ** 9 }}"}),
        "template-error",
        "(template-output)",
    ),
    "template power": (
        lambda p: edit_layout(p, "test-spell", {}, {"text": "{{ 7 ** 100000000 }}"}),
        "template-error",
        "(template-output)",
    ),
    "template output": (
        lambda p: edit_layout(p, "test-spell", {}, {"text": "{% for i in range(99999) %}{{ 'xy' * 50 }}{% endfor %}"}),
        "template-error",
        "(template-output)",
    ),
    "shrink to fit": (
        lambda p: edit_layout(p, "test-spell", {}, {"text": "many words " * 50, "size": 1e9, "min_size": 1e-9}),
        "limit-exceeded",
        "(text-max-pt)",
    ),
    "tiny card": (
        lambda p: edit_layout(p, "test-spell", {"size": {"width": 0.01, "height": 0.01}}),
        "layout-error",
        "cards on one 210 x 297 mm page",
    ),
    "font is a fifo": (
        lambda p: (
            os.mkfifo(p / "art" / "font.ttf"),
            edit_layout(p, "test-spell", {}, {"text": "x", "font": "art/font.ttf"}),
        ),
        "bad-asset",
        "is not a regular file",
    ),
    "corrupt font": (
        lambda p: (
            (p / "art" / "font.ttf").write_bytes(b"\x00\x01\x00\x00" + b"garbage" * 50),
            edit_layout(p, "test-spell", {}, {"text": "x", "font": "art/font.ttf"}),
        ),
        "bad-asset",
        "not a usable TrueType font",
    ),
    "background template": (
        lambda p: edit_layout(p, "test-spell", {"front": {"background": "{{ 'x' * 10 ** 9 }}"}}),
        "template-error",
        "(template-output)",
    ),
    "huge bleed": (
        lambda p: edit_layout(p, "test-spell", {"bleed": 3.17e307}),  # found by the long fuzz profile
        "layout-error",
        "beyond any sheet of paper",
    ),
    "decompression bomb": (lambda p: huge_png(p / "art" / "sun.png"), "bad-asset", "(image-pixels)"),
    "corrupt image": (
        lambda p: (p / "art" / "sun.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 100),
        "bad-asset",
        "cannot be decoded",
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_bounded_build(project: Path, attack: str) -> None:
    setup, code, limit = ATTACKS[attack]
    setup(project)
    (project / "pnp.toml").write_text((project / "pnp.toml").read_text() + "\n[limits]\ntemplate-seconds = 0.5\n")
    started = time.monotonic()
    done = pnp(project, "build", timeout=120)  # a run that never ends is interrupted: status 130
    assert_clean(done)
    assert done.returncode == 1, done.stderr
    first = next(line for line in done.stdout.splitlines() if "error[" in line)  # past the safe-zone warnings
    assert f"error[{code}]" in first and limit in first, done.stdout
    assert first.startswith(("cards/", "layouts/"))  # located in a file
    assert time.monotonic() - started < 60
    assert not (project / "output").exists()


def test_huge_paper_is_refused(project: Path) -> None:
    done = pnp(project, "build", "--paper", "100000x100000mm")
    assert_clean(done)
    assert done.returncode == 2
    assert "(paper-mm)" in done.stderr


def test_unreadable_folder_is_reported_not_skipped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A records folder pnp cannot list is a problem at the folder, never silently skipped.
    chmod 000 does not stop root, so as root the refusal is simulated in this process (the
    same walk and reader the CLI uses); as another user, the real CLI meets a real one."""
    locked = project / "cards" / "locked"
    locked.mkdir()
    (locked / "hidden.json").write_text("[]")
    if os.getuid() != 0:
        locked.chmod(0)
        try:
            done = pnp(project, "check")
        finally:
            locked.chmod(0o755)
        assert done.returncode == 1
        assert done.stdout.startswith("cards/locked:1:1: error[unreadable-file]: cannot read file: Permission denied")
        return
    from pnp.project import records

    real_scandir = os.scandir

    def refusing(path: str) -> object:
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(records.os, "scandir", refusing)
    found = list(records.iter_record_paths([project / "cards"], lambda p: str(p.relative_to(project)), project))
    assert (locked, "cards/locked") in found
    loaded = records.load_file(locked, "cards/locked", 1 << 20, project=project)
    assert [(f.code, f.message) for f in loaded.findings] == [
        ("unreadable-file", "a folder that cannot be listed, not a regular file; pnp reads only regular files")
    ]


def test_a_fifo_schema_is_a_configuration_error(project: Path) -> None:
    os.mkfifo(project / "schemas" / "test.pipe.schema.json")
    done = process(project, "check", timeout=120)  # the timeout fails the test on a hang
    assert_clean(done)
    assert done.returncode == 2
    assert "test.pipe.schema.json: a named pipe (FIFO), not a regular file" in done.stderr
