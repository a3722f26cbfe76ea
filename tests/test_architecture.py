"""The one-way data flow, as imports: validation never loads reportlab; impose knows nothing of
looks; render nothing of pages."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pnp"
VALIDATION = ["problems", "config", "jsonfile", "records", "schemas", "xrefs", "check", "report", "stats", "layout"]
DRAWING = {"reportlab", "pnp.render", "pnp.pdf", "pnp.build", "pnp.fonts", "pnp.sheets", "pnp.export"}


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


def test_pnp_check_never_loads_reportlab() -> None:
    code = (
        "import sys, io, contextlib\n"
        "sys.argv = ['pnp', 'check']\n"
        "from pnp.cli import main\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'reportlab'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
