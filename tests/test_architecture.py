"""The one-way data flow, as imports: every import of every module under pnp/ is followed, those
inside functions and under `if TYPE_CHECKING:` as well, and

- no import cycle exists, between modules or packages;
- a stage imports only the stages below it (STAGES_BELOW, the table docs/architecture.md draws);
- no module takes another module's private name (`from pnp.x import _y`, or `x._y`).

`check_layering(root)` returns what is wrong as lines, so that a test can plant a mistake in a
scratch copy of pnp/ and see it caught (test_a_planted_lazy_cycle_is_caught).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pnp"

# Each stage (a package of pnp/, or a top module) and the stages it may import. Rules and drawing
# are side by side: neither imports the other (pnp.verify composes them).
STAGES_BELOW: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "project": frozenset({"core"}),
    "rules": frozenset({"core", "project"}),
    "drawing": frozenset({"core", "project"}),
    "sheets": frozenset({"core", "project", "drawing"}),
    "translation": frozenset({"core", "project", "drawing", "sheets"}),
    "verify": frozenset({"core", "project", "rules", "drawing", "sheets", "translation"}),
    "outputs": frozenset({"core", "project", "drawing", "sheets", "translation", "verify"}),
    "live": frozenset({"core", "project", "drawing", "verify", "outputs"}),
    "cli": frozenset({"core", "project", "rules", "drawing", "sheets", "translation", "verify", "outputs", "live"}),
    "api": frozenset({"core", "project", "rules", "drawing", "verify", "outputs"}),
    "__main__": frozenset({"cli"}),
}
# Stages that may draw (import reportlab); the rest never do.
DRAWING_STAGES = {"drawing", "sheets", "translation", "verify", "outputs", "live", "cli", "api"}
MAX_LINES = 600


def modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module under `root` (a copy of pnp/ named pnp)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for every import anywhere in the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, [], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            names = [alias.name for alias in node.names]
            submodules = [n for n in names if f"{target}.{n}" in known]
            found.extend((f"{target}.{n}", [], node.lineno) for n in submodules)
            rest = [n for n in names if n not in submodules]
            if rest or not submodules:  # `from pkg import module` imports the module, not pkg's names
                found.append((target, rest, node.lineno))
    return found


def stage_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def check_layering(root: Path) -> list[str]:
    """Every cycle, every import of a higher (or side) stage, every private name taken."""
    known = modules(root)
    wrong: list[str] = []
    edges: dict[str, set[str]] = {m: set() for m in known}
    for name, path in known.items():
        where = path.relative_to(root.parent)
        for target, names, line in imports_of(name, path, known):
            if target.split(".")[0] == "reportlab" and stage_of(name) not in DRAWING_STAGES:
                wrong.append(f"{where}:{line}: stage {stage_of(name)!r} imports reportlab (it never draws)")
            if target not in known or target == name:
                continue
            edges[name].add(target)
            mine, theirs = stage_of(name), stage_of(target)
            if theirs and mine and mine != theirs and theirs not in STAGES_BELOW.get(mine, frozenset()):
                wrong.append(f"{where}:{line}: stage {mine!r} imports {target} (stage {theirs!r} is not below it)")
            for taken in names:
                if taken.startswith("_") and not taken.startswith("__"):
                    wrong.append(f"{where}:{line}: takes the private name {taken} from {target}")
        wrong.extend(f"{where}:{line}" + msg for line, msg in _private_attributes(path, known))
    wrong.extend(f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(edges))
    return wrong


def _private_attributes(path: Path, known: dict[str, Path]) -> list[tuple[int, str]]:
    """`module._name` where `module` was imported as a pnp module (`from pnp.x import y`; `y._z`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            aliases.update(a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in known)
        elif isinstance(node, ast.Import):
            aliases.update(a.asname for a in node.names if a.asname and a.name in known)
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append((node.lineno, f": takes the private name {node.attr} from module {node.value.id}"))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each as a closed path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append([*sorted(component), sorted(component)[0]])

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_layering_holds_on_pnp() -> None:
    assert check_layering(PACKAGE) == []


def test_every_module_is_in_a_stage() -> None:
    stages = {stage_of(m) for m in modules(PACKAGE)} - {""}
    assert stages <= set(STAGES_BELOW), stages - set(STAGES_BELOW)


def test_no_module_is_over_the_size_limit() -> None:
    long = {
        m: n for m, p in modules(PACKAGE).items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_a_planted_lazy_cycle_is_caught(tmp_path: Path) -> None:
    """A scratch copy of pnp/ where a loading module imports the check inside a function: the
    cycle (project.records -> rules.check -> project.records) and the upward import are found."""
    copy = tmp_path / "pnp"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "fonts"))
    records = copy / "project" / "records.py"
    records.write_text(
        records.read_text(encoding="utf-8")
        + "\n\ndef _planted() -> None:\n    from pnp.rules.check import cross_check\n",
        encoding="utf-8",
    )
    wrong = check_layering(copy)
    assert any(line.startswith("import cycle:") and "pnp.project.records" in line for line in wrong), wrong
    assert any("stage 'project' imports pnp.rules.check" in line for line in wrong), wrong


def test_a_planted_private_name_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "pnp"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "fonts"))
    build = copy / "outputs" / "build.py"
    build.write_text(build.read_text(encoding="utf-8") + "\nfrom pnp.drawing.findings import _digest_secret\n")
    assert any("private name _digest_secret" in line for line in check_layering(copy))


def test_impose_is_pure_geometry() -> None:
    known = modules(PACKAGE)
    imported = {t for t, _, _ in imports_of("pnp.drawing.impose", known["pnp.drawing.impose"], known)}
    assert not {m for m in imported if m.startswith("reportlab") or (m.startswith("pnp") and m != "pnp.core.units")}


FACE_DRAWING = ["render", "elements", "words", "textbox", "handlers", "images", "layers", "renderer_view"]


@pytest.mark.parametrize(
    "module", [*(f"pnp.drawing.{name}" for name in FACE_DRAWING), "pnp.drawing.impose", "pnp.drawing.shelf"]
)
def test_drawing_a_face_knows_nothing_of_pages_or_outputs(module: str) -> None:
    known = modules(PACKAGE)
    imported = {t for t, _, _ in imports_of(module, known[module], known)}
    assert not {m for m in imported if m.startswith(("pnp.drawing.pdf", "pnp.outputs", "pnp.sheets"))}, imported


def test_pnp_check_without_drawing_never_loads_reportlab(tmp_path: Path) -> None:
    """`python -X importtime` lists every module the real `pnp check --no-render` process imports
    (a first check of a copy: a repeated one replays its result and imports even less)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shutil.copytree(ROOT / "tests" / "build_project", tmp_path / "project", ignore=shutil.ignore_patterns("output"))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pnp", "check", "--no-render"],
        cwd=tmp_path / "project",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "pnp.rules.check" in imported and "jsonschema_rs" in imported, done.stderr[-2000:]
    assert not {m for m in imported if m.split(".")[0] == "reportlab"}, sorted(imported)
