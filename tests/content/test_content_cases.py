"""The bundled content's schemas, one case folder per kind (tests/content/cases/), through the CLI.

Each case folder's record files, checked in a copy of this repository's project with the case's
arguments, must give exactly the problems (and exit status) of its expected.json.

Checking the repository's project costs about 5 s of CPU whatever its records: its ~670 layout
and sheet templates are compiled and checked every time. So the cases that share their arguments
are checked together, each case's files in a folder of its own (cards/<case>/), in as few projects
as keep every record id unique (one id in two cases would be a duplicate-id problem of its own).
Each case then compares the problems located in its folder, with the folder taken out of file
names and messages, with its expected.json; a problem anywhere else fails every case of the
project. A case with another base (tests/fixture) runs alone, as tests/test_cases.py runs its cases.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from casekit import CONTENT_CASES, ROOT, assert_case, case_names, load_expected
from runpnp import run

NAMES = case_names(CONTENT_CASES)
TOGETHER = [name for name in NAMES if load_expected(CONTENT_CASES / name).get("base", "repo") == "repo"]
ALONE = [name for name in NAMES if name not in TOGETHER]


def record_ids(name: str) -> set[str]:
    ids = set()
    for path in (CONTENT_CASES / name / "cards").rglob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:  # a case may hold a file that is not JSON: it has no ids to share
            continue
        for record in data if isinstance(data, list) else [data]:
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                ids.add(record["id"])
    return ids


def projects() -> list[tuple[tuple[str, ...], list[str]]]:
    """(arguments, cases) of each project to check: cases with the same arguments and no shared id."""
    groups: list[tuple[tuple[str, ...], list[str], set[str]]] = []
    for name in TOGETHER:
        args, ids = tuple(load_expected(CONTENT_CASES / name).get("args", [])), record_ids(name)
        for group_args, members, taken in groups:
            if group_args == args and not ids & taken:
                members.append(name)
                taken.update(ids)
                break
        else:
            groups.append((args, [name], set(ids)))
    return [(args, members) for args, members, _ in groups]


class Checked:
    """Each project checked once, when a case of it is first asked for (per pytest-xdist worker)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.results: dict[str, tuple[int, list[dict[str, Any]], list[str]]] = {}

    def of(self, name: str) -> tuple[int, list[dict[str, Any]], list[str]]:
        if name not in self.results:
            args, members = next((a, m) for a, m in projects() if name in m)
            self._check(args, members)
        return self.results[name]

    def _check(self, args: tuple[str, ...], members: list[str]) -> None:
        target = self.base / f"project-{len(self.results)}"
        target.mkdir()
        shutil.copy(ROOT / "pnp.toml", target / "pnp.toml")
        for folder in ("schemas", "layouts", "sheets"):
            shutil.copytree(ROOT / folder, target / folder)
        for name in members:
            shutil.copytree(CONTENT_CASES / name / "cards", target / "cards" / name)
        done = run(target, "check", "--format", "json", *args)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr
        problems = json.loads(done.stdout)["problems"]
        elsewhere = [p for p in problems if not any(p["file"].startswith(f"cards/{name}/") for name in members)]
        for name in members:
            prefix = f"cards/{name}/"
            own = [
                {**p, "file": "cards/" + p["file"][len(prefix) :], "message": p["message"].replace(prefix, "cards/")}
                for p in problems
                if p["file"].startswith(prefix)
            ]
            self.results[name] = (done.returncode, own, [f"{p['file']}: {p['message']}" for p in elsewhere])


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    return Checked(tmp_path_factory.mktemp("content-cases"))


@pytest.mark.parametrize("name", TOGETHER)
def test_content_case(name: str, checked: Checked) -> None:
    spec = load_expected(CONTENT_CASES / name)
    code, problems, elsewhere = checked.of(name)
    assert not elsewhere, elsewhere  # the project's own files, or another case's id, said something
    assert problems == spec["problems"]
    # the exit status of this case checked alone: 1 with an error (or a warning under --strict), else 0
    strict = "--strict" in spec.get("args", [])
    assert spec["exit"] == int(any(p["severity"] == "error" or strict for p in problems))
    assert code >= spec["exit"]  # the project's status: the worst of its cases


@pytest.mark.parametrize("name", ALONE)
def test_content_case_of_its_own(name: str) -> None:
    assert_case(CONTENT_CASES / name)


def test_the_cases_are_grouped_by_their_arguments_without_sharing_an_id() -> None:
    groups = projects()
    assert sorted(name for _, members in groups for name in members) == sorted(TOGETHER)
    for args, members in groups:
        assert all(tuple(load_expected(CONTENT_CASES / name).get("args", [])) == args for name in members)
        ids = [record_ids(name) for name in members]
        assert sum(map(len, ids)) == len(set().union(*ids)), args  # no id in two cases of one project
    assert len(TOGETHER) >= 40 and len(groups) <= 4  # most cases share a project, or this saves nothing
