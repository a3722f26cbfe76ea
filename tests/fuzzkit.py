"""Helpers of the property-based suite (tests/test_fuzz.py, tests/content/test_fuzz_content.py).

A project is copied once per module; each example writes one file into it and runs pnp's real
check (in this process, so that hundreds of examples fit the budget) and asserts the promise:
no exception escapes (the CLI would print "internal error"), every problem is located in a file
of the project, and the example stays inside its time and memory budget.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import json
import os
import resource
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from pnp.project.config import load_project
from pnp.verify.run import CheckOptions, check_project

ROOT = Path(__file__).resolve().parents[1]

# Budgets of one example: a check of a small project plus one generated file. The time is this
# process's CPU time, the work the check does: on a machine shared with other jobs the wall clock
# measures them too (and a failed budget sets hypothesis shrinking for minutes).
SECONDS_PER_EXAMPLE = 10.0
MEMORY_GROWTH_MB = 512

settings.register_profile(
    "default",
    max_examples=4,  # each example checks a project: `make test` stays within its 5 minutes
    deadline=None,  # the budget below is asserted by the test itself, with a message
    derandomize=True,  # `make test` runs the same examples every time
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    database=None,
)
settings.register_profile(
    "long",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def copy_project(source: Path, target: Path, schemas: Path | None = None) -> Path:
    """`source` (a project folder) at `target`, with another schema folder when given."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("output"))
    if not (target / "pnp.toml").exists():
        (target / "pnp.toml").write_text('[project]\nname = "fuzz"\n')
    (target / "cards").mkdir(exist_ok=True)
    if schemas is not None:
        shutil.rmtree(target / "schemas", ignore_errors=True)
        shutil.copytree(schemas, target / "schemas")
    return target


def check_within_budget(project_dir: Path) -> list[Any]:
    """pnp check on the project, asserting the promise; returns the problems."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    project = load_project(explicit=project_dir)
    _, result = check_project(project, CheckOptions(jobs=1))
    elapsed = time.process_time() - started
    gc.unfreeze()  # pnp check freezes what it loaded, for a process that ends with it; this one goes on
    gc.collect()
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert elapsed < SECONDS_PER_EXAMPLE, f"check took {elapsed:.1f} s of CPU time"
    assert grown_mb < MEMORY_GROWTH_MB, f"check grew the process by {grown_mb:.0f} MB"
    for problem in result.problems:
        assert problem.file and problem.line >= 1 and problem.column >= 1, problem
        assert "internal error" not in problem.message
    return list(result.problems)


@contextlib.contextmanager
def replaced(path: Path, data: Any) -> Iterator[None]:
    """`path` holding `data` (JSON, or bytes as they are) for the example, then as it was."""
    original = path.read_bytes() if path.exists() else None
    try:
        path.write_bytes(data if isinstance(data, bytes) else json.dumps(data, ensure_ascii=False).encode())
        yield
    finally:
        if original is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(original)


def layouts_for(kinds: set[str], folder: Path) -> list[str]:
    """The files of a layouts folder that draw records of `kinds`: the layouts naming one of them,
    the layouts they extend (transitively), and icons.json. (Every other file there is a layout;
    folders hold the icons' images.)"""
    layouts = {path.stem: path for path in folder.iterdir() if path.is_file() and path.name != "icons.json"}
    assert all(path.suffix == ".json" for path in layouts.values()), "layouts_for reads JSON layouts only"
    data = {name: json.loads(path.read_text(encoding="utf-8")) for name, path in layouts.items()}
    keep = {"icons.json"} & {path.name for path in folder.iterdir()}
    wanted = [name for name, layout in data.items() if set(layout.get("kinds") or ()) & kinds]
    while wanted:
        name = wanted.pop()
        if name in layouts and layouts[name].name not in keep:
            keep.add(layouts[name].name)
            if isinstance(data[name].get("extends"), str):
                wanted.append(data[name]["extends"])
    return sorted(keep)


@contextlib.contextmanager
def only_layouts(project: Path, source: Path, kinds: set[str]) -> Iterator[list[str]]:
    """The project's layouts/ holding only what draws `kinds` (layouts_for) for the example.

    Checking the bundled project compiles and checks the templates of all its layouts every
    time (about 4 s of CPU); an example's records are of one kind, and the other kinds' layouts
    neither draw them nor read them, so each example gets its own kind's layouts alone."""
    names = layouts_for(kinds, source)
    target = project / "layouts"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for name in names:
        shutil.copy(source / name, target / name)
    for folder in (path for path in source.iterdir() if path.is_dir()):  # the icons' images
        shutil.copytree(folder, target / folder.name)
    yield names


# --- schemas as hypothesis-jsonschema takes them -------------------------------------------------


def inline_refs(schema: Any, folder: Path, depth: int = 0) -> Any:
    """The schema with every `$ref` to another file of `folder` (or to its own $defs) replaced by
    the target, since hypothesis-jsonschema resolves no references across files."""
    documents: dict[str, Any] = {}

    def load(name: str) -> Any:
        if name not in documents:
            path = folder / name if (folder / name).exists() else ROOT / "schemas" / name  # as casekit adds it
            documents[name] = json.loads(path.read_text(encoding="utf-8"))
        return documents[name]

    def resolve(node: Any, current: Any, level: int) -> Any:
        if level > 12:  # a recursive definition: cut (any value is then allowed there)
            return {}
        if isinstance(node, list):
            return [resolve(item, current, level) for item in node]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            name, _, pointer = node["$ref"].partition("#")
            document = load(name) if name else current
            target: Any = document
            for part in [p for p in pointer.split("/") if p]:
                target = target[part]
            rest = {k: v for k, v in node.items() if k != "$ref"}
            merged = {"allOf": [copy.deepcopy(target), rest]} if rest else copy.deepcopy(target)
            return resolve(merged, document, level + 1)
        return {
            k: resolve(v, current, level)
            for k, v in node.items()
            if k not in ("$id", "$schema", "$defs") and not k.startswith("x-")
        }

    return resolve(schema, schema, depth)


def record_schemas(folder: Path) -> dict[str, Any]:
    """Kind schemas of a folder (not common.schema.json), references inlined."""
    found = {}
    for path in sorted(folder.glob("*.schema.json")):
        if path.name == "common.schema.json":
            continue
        found[path.name] = inline_refs(json.loads(path.read_text(encoding="utf-8")), folder)
    return found


# --- mutations of real records --------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["", "x" * 5000, "{gold}", "{{ name }}", "../../etc/passwd", "/dev/zero", "\u202e", "a\x00b"]),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths_of(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths_of(item, (*prefix, index)))
    return found


@st.composite
def mutated(draw: st.DrawFn, records: list[Any]) -> Any:
    """A real record file with one to three values replaced, removed or duplicated."""
    data = copy.deepcopy(records)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths_of(data)))
        if not path:
            data = draw(json_values)
            continue
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "remove", "duplicate"]))
        last = path[-1]
        if action == "replace":
            parent[last] = draw(json_values)
        elif action == "remove":
            del parent[last]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
        else:
            parent[f"{last}_copy"] = copy.deepcopy(parent[last])
    return data
