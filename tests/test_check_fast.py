"""`pnp check` with nothing changed replays the last result (pnp/verify/cache.py): the same bytes
on stdout and the same exit status as a full check, nothing heavy imported, and never a result
that this machine's pnp did not compute for these inputs (a forged results file is ignored)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runpnp import imported

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
HEAVY = (
    "reportlab",
    "jinja2",
    "jsonschema_rs",
    "yaml",
    "pnp.rules.check",
    "pnp.project.records",
    "pnp.project.schemas",
    "pnp.project.layout",
)
FORMATS = ("text", "json", "github", "sarif")
RESULTS = Path("output") / ".pnp-cache" / "check" / "results.json"


def pnp(project: Path, keys: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(keys), "HOME": str(keys)}
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )


def replayed(done: subprocess.CompletedProcess[str]) -> bool:
    """Whether an importtime run printed without loading what a full check loads."""
    modules = imported(done.stderr)
    assert "pnp.cli.commands" in modules, done.stderr[-2000:]  # the run was timed at all
    return not [m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY]


def full_and_replayed(project: Path, keys: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], ...]:
    """A full check (no stored result), then the same check again (replayed)."""
    (project / RESULTS).unlink(missing_ok=True)
    full = pnp(project, keys, "check", *args, importtime=True)
    again = pnp(project, keys, "check", *args, importtime=True)
    assert not replayed(full)
    assert replayed(again), sorted(imported(again.stderr))
    return full, again


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("checkfast") / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("keys")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_clean_project_replays_byte_for_byte(project: Path, keys: Path, fmt: str) -> None:
    full, again = full_and_replayed(project, keys, "--format", fmt)
    assert full.returncode == again.returncode == 0, full.stdout
    assert again.stdout == full.stdout


def test_after_a_change_the_new_problems_are_found_then_replayed(project: Path, keys: Path) -> None:
    cards = project / "cards" / "cards.json"
    before = cards.read_text(encoding="utf-8")
    try:
        records = json.loads(before)
        records[0]["cost"] = "three"  # a schema error
        records[1]["text"] = "far too long for the rules box " * 40  # found by drawing
        cards.write_text(json.dumps(records, indent=2), encoding="utf-8")
        first = pnp(project, keys, "check")  # the stored clean result is not replayed
        assert first.returncode == 1 and "error[type-mismatch]" in first.stdout, first.stdout
        assert "error[text-overflow]" in first.stdout
        for fmt in FORMATS:
            full, again = full_and_replayed(project, keys, "--format", fmt)
            assert full.returncode == again.returncode == 1
            assert again.stdout == full.stdout
        ignored, ignored_again = full_and_replayed(project, keys, "--ignore", "type-mismatch,text-overflow")
        assert ignored.returncode == ignored_again.returncode == 0 and ignored_again.stdout == ignored.stdout
        unrendered, unrendered_again = full_and_replayed(project, keys, "--no-render")
        assert "text-overflow" not in unrendered.stdout and unrendered_again.stdout == unrendered.stdout
        assert pnp(project, keys, "check").stdout == first.stdout  # each option set has its own result
    finally:
        cards.write_text(before, encoding="utf-8")
    restored = pnp(project, keys, "check")
    assert restored.returncode == 0 and "0 errors" in restored.stdout


def test_a_warning_with_strict_replays_its_exit_status(project: Path, keys: Path) -> None:
    layout = project / "layouts" / "test-spell.json"
    aside = layout.with_suffix(".off")
    layout.rename(aside)  # spells without a layout: a missing-layout warning
    try:
        plain, plain_again = full_and_replayed(project, keys)
        assert plain.returncode == plain_again.returncode == 0 and "warning[missing-layout]" in plain.stdout
        strict, strict_again = full_and_replayed(project, keys, "--strict")
        assert strict.returncode == strict_again.returncode == 1 and strict_again.stdout == strict.stdout
    finally:
        aside.rename(layout)


def test_a_forged_result_is_ignored(project: Path, keys: Path, tmp_path: Path) -> None:
    """Anyone can compute the digest of public files: a results file and key signed on the
    forger's machine and committed in a pull request must not make pnp say a broken project is
    clean; what a checkout gives is a copy (a new inode and change time for the key file)."""
    cards = project / "cards" / "cards.json"
    before = cards.read_text(encoding="utf-8")
    forger = tmp_path / "forger"
    shutil.copytree(project, forger, ignore=shutil.ignore_patterns("output"))
    forge = (
        "from pnp.verify.cache import open_ticket, remember; from pnp.rules.result import CheckResult; "
        "from pnp.project.config import load_project; import json; p = load_project(); "
        "t = open_ticket(p, json.dumps([[], [], False, True])); assert t; remember(t, CheckResult((), 2, 3))"
    )
    try:
        for tree in (project, forger):
            (tree / "cards" / "cards.json").write_text(before.replace('"cost": 3', '"cost": "three"', 1), "utf-8")
        assert cards.read_text(encoding="utf-8") != before
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", forge], cwd=forger, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        lie = pnp(forger, keys, "check")  # on the forger's own disk the forged entry is well-formed
        assert lie.returncode == 0 and "2 files, 3 records: 0 errors" in lie.stdout, lie.stdout
        shutil.rmtree(project / "output" / ".pnp-cache" / "check", ignore_errors=True)
        shutil.copytree(forger / "output" / ".pnp-cache" / "check", project / "output" / ".pnp-cache" / "check")
        truth = pnp(project, keys, "check")  # the committed key and results, checked out: not replayed
        assert truth.returncode == 1 and "error[type-mismatch]" in truth.stdout, truth.stdout
        again = pnp(project, keys, "check")  # the true result is stored under a key made here
        assert again.stdout == truth.stdout
        stored = json.loads((project / RESULTS).read_text(encoding="utf-8"))
        entry = next(iter(stored.values()))
        entry["payload"] = entry["payload"].replace(
            '"problems":[', '"problems":[["x",1,1,"","type-mismatch","error","m",""],', 1
        )
        (project / RESULTS).write_text(json.dumps(stored), encoding="utf-8")  # an edited payload, the signature kept
        assert pnp(project, keys, "check").stdout == truth.stdout
    finally:
        cards.write_text(before, encoding="utf-8")
    assert not any(keys.iterdir())  # nothing written outside the project


def test_no_key_folder_means_a_full_check_every_time(tmp_path: Path, keys: Path) -> None:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    (target / "output" / ".pnp-cache").mkdir(parents=True)
    (target / "output" / ".pnp-cache" / "check").write_text("not a folder")
    first = pnp(target, keys, "check", importtime=True)
    second = pnp(target, keys, "check", importtime=True)
    assert first.returncode == second.returncode == 0 and first.stdout == second.stdout
    assert not replayed(second)


def test_checking_some_paths_is_never_replayed(project: Path, keys: Path) -> None:
    pnp(project, keys, "check")
    done = pnp(project, keys, "check", "cards", importtime=True)
    assert done.returncode == 0 and not replayed(done)


def test_a_file_name_that_is_not_utf8_replays_too(tmp_path: Path, keys: Path) -> None:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    os.close(os.open(os.path.join(os.fsencode(target / "cards"), b"bad\xff.json"), os.O_CREAT | os.O_WRONLY))
    for fmt in ("json", "sarif"):
        full, again = full_and_replayed(target, keys, "--format", fmt, "--no-render")
        assert full.returncode == again.returncode == 1 and "internal error" not in full.stderr + again.stderr
        assert again.stdout == full.stdout and "bad" in full.stdout


def test_a_file_changed_during_the_check_is_not_remembered(tmp_path: Path, keys: Path) -> None:
    """What the check read may not be what was digested: nothing is stored, the next check is full."""
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    script = (
        "import json, sys; from pathlib import Path; from pnp.verify.cache import open_ticket, remember; "
        "from pnp.rules.result import CheckResult; from pnp.project.config import load_project; p = load_project(); "
        "t = open_ticket(p, json.dumps([[], [], False, True])); assert t; "
        "cards = Path('cards/cards.json'); cards.write_text(cards.read_text() + ' ') if sys.argv[1] == 'edit' else None; "
        "remember(t, CheckResult((), 0, 0))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for step, stored in (("edit", False), ("keep", True)):
        done = subprocess.run([sys.executable, "-c", script, step], cwd=target, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert (target / RESULTS).is_file() == stored, step


def test_a_configuration_error_is_never_replayed_away(project: Path, keys: Path) -> None:
    clean = pnp(project, keys, "check")
    toml = project / "pnp.toml"
    before = toml.read_text(encoding="utf-8")
    try:
        toml.write_text(before.replace('paper = "a4"', 'paper = "a99"'), encoding="utf-8")
        broken = pnp(project, keys, "check", "--format", "json")
        assert broken.returncode == 2 and "a99" in broken.stdout + broken.stderr
    finally:
        toml.write_text(before, encoding="utf-8")
    assert pnp(project, keys, "check").stdout == clean.stdout


def test_a_result_digested_from_a_validating_childs_hashes_replays(project: Path, keys: Path) -> None:
    """With a validating child (`--jobs 2` forks one whatever the size), the stored result's digest
    is made from the SHA-256 a forked hasher took of the bytes the check read (the child's files
    and this process's); the next check digests the files by reading them, and must find the same
    digest (so it replays, byte for byte)."""
    (project / RESULTS).unlink(missing_ok=True)
    full = pnp(project, keys, "check", "--jobs", "2", "--format", "json", importtime=True)
    again = pnp(project, keys, "check", "--format", "json", importtime=True)
    assert not replayed(full) and replayed(again), sorted(imported(again.stderr))
    assert full.returncode == again.returncode == 0 and again.stdout == full.stdout


def test_a_project_without_sheets_never_loads_the_sheet_checks(tmp_path: Path, keys: Path) -> None:
    """No sheet file and no kind printed on sheets: nothing to lay out, so neither the sheet
    checks nor jinja2 (a project without layouts needs it for nothing else) are imported."""
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output", "test-*.json"))
    done = pnp(target, keys, "check", importtime=True)
    modules = imported(done.stderr)
    assert "pnp.rules.check" in modules and "warning[no-layouts]" in done.stdout, done.stdout
    assert not {m for m in modules if m.split(".")[0] == "jinja2" or m.startswith("pnp.sheets")}, sorted(modules)
    assert "pnp.project.sheetfiles" not in modules
    (target / "sheets").mkdir()
    (target / "sheets" / "list.json").write_text('{"kind": "nothing"}', encoding="utf-8")  # a sheet file: checked
    checked = pnp(target, keys, "check")
    assert checked.returncode == 1 and "sheets/list.json" in checked.stdout, checked.stdout
