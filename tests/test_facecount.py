"""Component lists count the faces a layout with `expand` makes of a record: the rules' count
(pnp.project.facecount) agrees with the faces pnp.drawing.pdf.expand_faces draws; without
`expand`, a layout's own `copies` (a printing choice) is not counted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pnp.drawing.pdf import expand_faces
from pnp.drawing.render import Renderer
from pnp.project.config import load_project
from pnp.project.facecount import FaceCounter
from pnp.project.loaded import load_project_records
from tests.runpnp import pnp

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "count-expand"

EXPANDS = [
    {},
    {"side": ["a", "b", "c"]},
    {"side": ["a", "b"], "level": {"from": 1, "to": "{{ cost }}"}},
    {"level": {"from": "{{ cost - 1 }}", "to": 3}},
    {"level": {"from": 3, "to": 1}},  # an empty range: nothing drawn, nothing counted
]


def project(tmp_path: Path, expand: dict[str, object], copies: object) -> Path:
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "fixture", target)
    shutil.copytree(CASE / "cards", target / "cards")
    layout = json.loads((CASE / "layouts" / "test-card.json").read_text(encoding="utf-8"))
    layout["expand"] = expand
    if copies is not None:
        layout["copies"] = copies
    (target / "layouts" / "test-card.json").write_text(json.dumps(layout), encoding="utf-8")
    return target


COPIES = [None, 3, "{{ copies * 2 if copies is defined else 1 }}", "{{ (copies or 1) // 2 }}"]


@pytest.mark.parametrize("copies", COPIES)
@pytest.mark.parametrize("expand", EXPANDS[1:])
def test_counted_as_drawn(tmp_path: Path, expand: dict[str, object], copies: object) -> None:
    loaded = load_project_records(load_project(project(tmp_path, expand, copies)))
    layout = loaded.layouts.by_kind["test.card"]
    counter = FaceCounter(loaded.layouts, loaded.lookup)
    renderer = Renderer(layout, loaded.project.root, loaded.icons)
    counts = []
    for _, _, record in loaded.records("test.card"):
        faces, issues = expand_faces(renderer, [(None, record)])
        assert not issues
        assert counter("test.card", record) == len(faces), (expand, copies, record["id"])
        counts.append(len(faces))
    assert counts


@pytest.mark.parametrize("copies", [0, "{{ 0 if id == 'hero' else 5 }}"])
def test_without_expand_a_layouts_copies_is_not_counted(tmp_path: Path, copies: object) -> None:
    """A layout printing none of a component (copies 0) does not change the box's count."""
    loaded = load_project_records(load_project(project(tmp_path, {}, copies)))
    counter = FaceCounter(loaded.layouts, loaded.lookup)
    assert [counter("test.card", r) for _, _, r in loaded.records("test.card")] == [1, 2]


def test_a_failing_template_counts_the_records_copies(tmp_path: Path) -> None:
    loaded = load_project_records(
        load_project(project(tmp_path, {"n": {"from": 1, "to": "{{ nothing.there }}"}}, None))
    )
    counter = FaceCounter(loaded.layouts, loaded.lookup)
    assert [counter("test.card", r) for _, _, r in loaded.records("test.card")] == [1, 2]


def test_stats_count_the_faces(tmp_path: Path) -> None:
    target = project(tmp_path, {"side": ["a", "b", "c"], "level": {"from": 1, "to": "{{ cost }}"}}, None)
    done = pnp(target, "stats", "--format", "json")
    assert done.returncode == 0, done.stderr
    row = next(r for r in json.loads(done.stdout) if r["kind"] == "test.card")
    assert (row["records"], row["copies"], row["expected"]) == (2, 12, 8)
