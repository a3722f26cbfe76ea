"""`pnp check` with children (`--jobs N`): each record file is parsed by one process only.

A child reads, validates and checks its share of the JSON files and sends back what the
project-wide checks need (pnp.rules.validation.FileReport): the ids, kinds and reference columns,
where the records start, and the file's bytes through a shared buffer. The main process never
parses those files for a check that draws nothing, and reports exactly what `--jobs 1` reports,
at the same lines, in the child's files too (duplicate ids, dangling references, schema errors).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from runpnp import run

import pnp.project.records as records_module
from pnp.core.workers import can_fork

REAL_PARSE = records_module.parse_bytes
pytestmark = pytest.mark.skipif(not can_fork(), reason="no os.fork on this platform")

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.org/demo.unit.schema.json",
    "type": "object",
    "required": ["kind", "id", "name"],
    "additionalProperties": False,
    "properties": {
        "kind": {"const": "demo.unit"},
        "id": {"type": "string"},
        "name": {"type": "string"},
        "text": {"type": "string", "x-text": True},
        "ally": {"type": "string", "x-ref": "demo.unit"},
        "cost": {"type": "integer", "minimum": 0},
    },
}


def unit(n: int, **extra: object) -> dict[str, object]:
    return {"kind": "demo.unit", "id": f"u-{n}", "name": f"Unit {n}", "text": "gain {gold}", **extra}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("split")
    (root / "pnp.toml").write_text('[project]\nname = "Split"\n', encoding="utf-8")
    (root / "schemas").mkdir()
    (root / "schemas" / "demo.unit.schema.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (root / "layouts").mkdir()
    (root / "layouts" / "icons.json").write_text(
        json.dumps({"icons": {"gold": {"label": "G", "color": "#c9a227"}}}), encoding="utf-8"
    )
    (root / "cards").mkdir()
    files = [
        [unit(0), unit(1, ally="u-5")],
        [unit(2, ally="u-99"), unit(3, cost=-1)],  # a dangling reference, a schema error
        [unit(4), unit(1)],  # u-1 again: a duplicate id across files
        [unit(5, text="pay {gould}"), unit(6, ally="u-0")],  # an unknown icon
        [unit(7), {"kind": "demo.unit", "id": "u-8"}],  # a required property missing
    ]
    for n, records in enumerate(files):
        (root / "cards" / f"units-{n}.json").write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    (root / "cards" / "more.yaml").write_text(
        "- kind: demo.unit\n  id: u-9\n  name: Nine\n  ally: u-77\n", encoding="utf-8"
    )
    return root


def check(project: Path, jobs: int, monkeypatch: pytest.MonkeyPatch, log: Path) -> tuple[str, list[tuple[int, str]]]:
    """The JSON report of a check with `jobs` processes, and (process id, first record id) of each
    record file parsed, by this process and its forked children alike (they append to `log`)."""
    log.write_text("", encoding="utf-8")

    def logged(raw: bytes, check_duplicates: bool = True) -> object:
        if raw.startswith(b"["):  # a record file (schemas and icons.json are objects)
            first = raw.decode("utf-8").split('"code": "' if b'"code"' in raw else '"id": "', 1)[-1].split('"', 1)[0]
            with log.open("a", encoding="utf-8") as out:
                out.write(f"{os.getpid()} {first}\n")
        return REAL_PARSE(raw, check_duplicates)

    monkeypatch.setattr(records_module, "parse_bytes", logged)
    for cache in (project / "output" / ".pnp-cache" / "check").glob("*"):
        cache.unlink()
    done = run(project, "check", "--no-render", "--format", "json", "--jobs", str(jobs))
    assert done.returncode == 1, done.stderr
    lines = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    return done.stdout, [(int(pid), first) for pid, first in lines]


def test_children_parse_their_files_and_report_what_one_process_reports(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    alone, parsed_alone = check(project, 1, monkeypatch, tmp_path / "log")
    split, parsed_split = check(project, 2, monkeypatch, tmp_path / "log")
    assert split == alone
    assert sorted(first for _, first in parsed_alone) == ["u-0", "u-2", "u-4", "u-5", "u-7"]
    assert {pid for pid, _ in parsed_alone} == {os.getpid()}
    # each file parsed once, by one of two processes, this one included
    assert sorted(first for _, first in parsed_split) == ["u-0", "u-2", "u-4", "u-5", "u-7"]
    assert len({pid for pid, _ in parsed_split}) == 2 and os.getpid() in {pid for pid, _ in parsed_split}
    problems = {(p["file"], p["line"], p["code"]) for p in json.loads(split)["problems"]}
    assert problems == {
        ("cards/units-1.json", 7, "missing-reference"),
        ("cards/units-1.json", 14, "out-of-range"),
        ("cards/units-3.json", 6, "unknown-icon"),
        ("cards/units-0.json", 10, "duplicate-id"),
        ("cards/units-2.json", 10, "duplicate-id"),
        ("cards/units-4.json", 8, "required-property"),
        ("cards/more.yaml", 4, "missing-reference"),  # YAML: always read by this process
        ("cards/more.yaml", 1, "no-layouts"),
    }
    assert json.loads(split)["records"] == 11  # counted without parsing the children's files


def test_three_processes_report_the_same(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    alone, _ = check(project, 1, monkeypatch, tmp_path / "log")
    split, parsed = check(project, 3, monkeypatch, tmp_path / "log")
    assert split == alone
    assert sorted(first for _, first in parsed) == ["u-0", "u-2", "u-4", "u-5", "u-7"]
    assert len({pid for pid, _ in parsed}) == 3


def test_a_repository_with_its_own_ids_checks_the_same_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kinds declared in pnp.toml [kinds] (ids in `code`, no `kind` field, references named in
    pnp.toml): a child's columns come from the records as pnp sees them, so a dangling `code`
    reference and a repeated `code` are found in its files as in this process's."""
    repo = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent / "adopt_repo", repo)
    pack = repo / "pack" / "core.json"
    cards = json.loads(pack.read_text(encoding="utf-8"))
    cards[1]["faction_code"] = "no-such-faction"
    cards[2]["code"] = cards[0]["code"]
    pack.write_text(json.dumps(cards, indent=2) + "\n", encoding="utf-8")
    alone, parsed_alone = check(repo, 1, monkeypatch, tmp_path / "log")
    split, parsed = check(repo, 3, monkeypatch, tmp_path / "log")
    assert split == alone
    assert sorted(first for _, first in parsed) == sorted(first for _, first in parsed_alone)
    assert len({pid for pid, _ in parsed}) == 3
    codes = sorted(p["code"] for p in json.loads(split)["problems"] if p["file"] == "pack/core.json")
    assert codes == ["duplicate-id", "duplicate-id", "missing-reference"]


def test_files_that_grew_since_they_were_listed_come_through_the_pipe(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A child puts the bytes it read in a buffer shared with this process, a slot per file as large
    as the file was when listed; a file that grew since (here: every slot one byte) is sent in its
    report instead, and nothing changes in what is reported."""
    import pnp.rules.validation as validation

    alone, _ = check(project, 1, monkeypatch, tmp_path / "log")
    monkeypatch.setattr(validation, "_size", lambda path: 1)
    split, parsed = check(project, 2, monkeypatch, tmp_path / "log")
    assert split == alone
    assert len({pid for pid, _ in parsed}) == 2


def test_ids_repeated_across_processes_are_reported_as_one_process_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This process indexes its files as it reads them and a child's once they are in, then puts
    the index in the files' order (pnp.project.index.Index.reorder): an id repeated in files read
    by different processes, in either order, three times, twice in one file, and referenced, has
    the same first record ("first at" in every message) as when one process reads every file."""
    root = tmp_path / "repeated"
    root.mkdir()
    (root / "pnp.toml").write_text('[project]\nname = "Repeated"\n', encoding="utf-8")
    (root / "schemas").mkdir()
    (root / "schemas" / "demo.unit.schema.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (root / "cards").mkdir()
    shared = {0: ["u-a"], 1: ["u-b"], 2: ["u-a", "u-c"], 3: ["u-b", "u-b"], 4: ["u-c"], 5: ["u-a"], 7: ["u-b"]}
    for n in range(8):
        records = [unit(10 * n), unit(10 * n + 1, ally="u-b")]
        records += [{"kind": "demo.unit", "id": rid, "name": f"Again {n}"} for rid in shared.get(n, [])]
        (root / "cards" / f"units-{n}.json").write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    alone, _ = check(root, 1, monkeypatch, tmp_path / "log")
    for jobs in (2, 3):
        split, parsed = check(root, jobs, monkeypatch, tmp_path / "log")
        assert split == alone
        assert len({pid for pid, _ in parsed}) == jobs
    repeated = [p["message"] for p in json.loads(alone)["problems"] if p["code"] == "duplicate-id"]
    assert len(repeated) == 9 and all("u-a" in m or "u-b" in m or "u-c" in m for m in repeated), repeated
