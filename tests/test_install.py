"""pnp as a user gets it: built into an sdist and a wheel, installed (not editable) into a fresh
venv, run from a folder far from this checkout: `pnp new`, check, build, export, `python -m pnp`.

The venv borrows this test venv's third-party packages through a plain path in a .pth file
(so nothing is downloaded), but not its editable pnp: a path line in a .pth file does not run the
editable install's own .pth hook, and the test asserts pnp is imported from the venv's wheel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout import copy_checkout

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pnp"


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Venv:
    python: Path
    pnp: Path
    site_packages: Path


def package_files() -> list[str]:
    """Every file of pnp/ in the checkout, as a path inside the package ('pnp/fonts/...')."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus anything that would put this checkout on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, **extra}


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=clean_env(), timeout=600)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """sdist, then the wheel built from that sdist (as `python -m build` does), from a copy of
    the checkout so the build writes nothing into it."""
    source = copy_checkout(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source, cwd=source)
    (wheel,) = out.glob("pnp-*.whl")
    (sdist,) = out.glob("pnp-*.tar.gz")
    return Dist(wheel, sdist)


@pytest.fixture(scope="module")
def venv(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    home = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", "--without-pip", home, cwd=home)
    python = home / "bin" / "python"
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        dist.wheel,
        cwd=home,
    )
    site_packages = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=home).stdout.strip()
    )
    # added after the install, so pip saw no pnp already installed there
    (site_packages / "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return Venv(python, home / "bin" / "pnp", site_packages)


def test_wheel_holds_every_file_of_the_package(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as wheel:
        names = set(wheel.namelist())
    missing = [name for name in package_files() if name not in names]
    assert not missing, f"not in the wheel (see [tool.setuptools.package-data]): {missing}"
    assert "pnp/layout.schema.json" in names and any(n.startswith("pnp/scaffold/") for n in names)


def test_sdist_holds_every_file_of_the_package(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    missing = [name for name in package_files() if name not in names]
    assert not missing, f"not in the sdist: {missing}"
    assert not [name for name in names if name.startswith("tests/")], (
        "tests need the repository: MANIFEST.in prunes them"
    )


def test_installed_pnp_makes_checks_builds_and_exports_a_new_project(venv: Venv, tmp_path: Path) -> None:
    where = run(venv.python, "-c", "import pnp; print(pnp.__file__)", cwd=tmp_path).stdout.strip()
    assert Path(where).is_relative_to(venv.site_packages), where
    created = run(venv.pnp, "new", "Ember Wild", cwd=tmp_path)
    project = tmp_path / "ember-wild"
    assert "ember-wild" in created.stdout and (project / "pnp.toml").is_file()
    checked = run(venv.pnp, "check", cwd=project)
    assert "0 errors" in checked.stdout
    run(venv.pnp, "build", cwd=project)
    pdf = project / "output" / "ember-wild" / "emberwild.card.pdf"
    assert pdf.read_bytes().startswith(b"%PDF-") and pdf.stat().st_size > 1000
    aid = project / "output" / "ember-wild" / "aids" / "cards.pdf"  # the example sheet file's aid
    import pdfplumber

    with pdfplumber.open(aid) as opened:
        text = " ".join(page.extract_text() or "" for page in opened.pages)
    assert "Ember Wild: every card" in text and "Fire Imp" in text and "Water Sprite" in text
    run(venv.pnp, "export", "png", "--dpi", "30", cwd=project)
    fronts = sorted(p.name for p in (project / "output" / "ember-wild" / "png" / "emberwild.card").glob("*-front.png"))
    assert fronts == ["fire-imp-1-front.png", "fire-imp-2-front.png", "water-sprite-front.png"]


def test_python_dash_m_pnp_runs_from_the_wheel(venv: Venv, tmp_path: Path) -> None:
    done = run(venv.python, "-m", "pnp", "--version", cwd=tmp_path)
    assert done.stdout.startswith("pnp, version ")
    layout = Path(run(venv.python, "-m", "pnp", "schema-path", "layout", cwd=tmp_path).stdout.strip())
    assert layout.is_relative_to(venv.site_packages) and layout.is_file()


def test_the_wheel_carries_the_documentation_that_messages_name(dist: Dist, venv: Venv, tmp_path: Path) -> None:
    """A pip user has no docs/ folder: the pages are in the package, `pnp docs TOPIC` prints them,
    and every `pnp docs TOPIC` that pnp's messages, help and scaffold name is a page there."""
    pages = sorted(path.name for path in (ROOT / "docs").glob("*.md"))
    with zipfile.ZipFile(dist.wheel) as wheel:
        names = set(wheel.namelist())
    assert [page for page in pages if f"pnp/docs/{page}" not in names] == []
    listed = run(venv.pnp, "docs", cwd=tmp_path).stdout
    assert "adopting" in listed and "layouts" in listed
    adopting = run(venv.pnp, "docs", "adopting", cwd=tmp_path).stdout
    assert adopting == (ROOT / "docs" / "adopting.md").read_text(encoding="utf-8") + "\n"
    path = Path(run(venv.pnp, "docs", "--path", "layouts", cwd=tmp_path).stdout.strip())
    assert path.is_relative_to(venv.site_packages) and path.is_file()
    named = {
        topic
        for source in PACKAGE.rglob("*")
        if source.is_file() and source.suffix in (".py", ".toml", ".yaml", ".json")
        for topic in re.findall(r"pnp docs ([a-z]+)", source.read_text(encoding="utf-8", errors="replace"))
    }
    assert named and named <= {page.removesuffix(".md") for page in pages}, named
