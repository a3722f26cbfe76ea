"""The one-way data flow, as imports: validation never loads reportlab; impose knows nothing of
looks; render nothing of pages."""

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
VALIDATION = [
    "problems",
    "config",
    "jsonfile",
    "records",
    "schemas",
    "xrefs",
    "check",
    "report",
    "stats",
    "layout",
    "fields",
    "tabular",
    "yamlfile",
    "projectfiles",
    "diagnose",
]
DRAWING = {
    "reportlab", "pnp.render", "pnp.pdf", "pnp.build", "pnp.fonts", "pnp.sheets", "pnp.sheets.build", "pnp.sheets.blocks",
    "pnp.sheets.page", "pnp.export",
}  # fmt: skip


def top_level_imports(module: str) -> set[str]:
    """Modules imported at module level (imports inside functions are lazy and allowed)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("module", VALIDATION)
def test_validation_modules_import_nothing_that_draws(module: str) -> None:
    imported = top_level_imports(module)
    assert not {m for m in imported if m.split(".")[0] == "reportlab" or m in DRAWING}, imported


def test_impose_is_pure_geometry() -> None:
    assert not {m for m in top_level_imports("impose") if m.startswith(("pnp", "reportlab"))}


def test_render_knows_nothing_of_pages() -> None:
    assert not top_level_imports("render") & {"pnp.pdf", "pnp.build", "pnp.sheets", "pnp.export"}


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
    assert "pnp.check" in imported and "jsonschema_rs" in imported, done.stderr[-2000:]
    assert not {m for m in imported if m.split(".")[0] == "reportlab"}, sorted(imported)
