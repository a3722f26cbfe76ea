"""Helpers shared by the benchmarks (run as scripts: `python bench/check_bench.py`)."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def tool(name: str, script: str) -> str:
    """A command installed beside this Python (the venv), else on PATH; exit with a message if missing."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{script}: {name} not found next to {sys.executable} or on PATH")
    return found


def copy_icons(repo: Path, root: Path) -> None:
    """Copy the repository's icons.json and the art it names, so a generated project's icons resolve."""
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    shutil.copy(repo / "layouts" / "icons.json", root / "layouts" / "icons.json")
    art = repo / "layouts" / "art"
    if art.is_dir():
        shutil.copytree(art, root / "layouts" / "art", dirs_exist_ok=True)


def editable_install() -> bool:
    """Whether the pnp installed beside this Python is an editable install (`pip install -e .`)."""
    try:
        text = metadata.distribution("pnp").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    return bool(text) and bool(json.loads(text or "{}").get("dir_info", {}).get("editable"))


def as_installed(workdir: Path, script: str) -> tuple[str, str]:
    """(python, pnp) to time: the interpreter and `pnp` command a user's wheel install runs.

    An editable install adds an import hook that every process loads at start-up (its .pth file
    imports a finder module, and pathlib, fnmatch and importlib.util with it: 5 ms of a 100-card
    build), which a wheel install has not. So, for an editable install, a virtual environment in
    `workdir` without it: this repository's pnp and this environment's packages on its path (a .pth
    of plain folders, whose own .pth files are not run), and a `pnp` script as pip writes one."""
    if not editable_install():
        return sys.executable, tool("pnp", script)
    venv = workdir / "wheel-like-venv"
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    found = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True, capture_output=True, text=True
    )
    folders = [str(REPO), *site.getsitepackages()]
    (Path(found.stdout.strip()) / "pnp-under-test.pth").write_text("\n".join(folders) + "\n", encoding="utf-8")
    pnp = venv / "bin" / "pnp"
    pnp.write_text(
        f"#!{python}\nimport sys\nfrom pnp.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n",
        encoding="utf-8",
    )
    pnp.chmod(0o755)
    return str(python), str(pnp)
