"""The bundled games (this repository's own project) as a player prints them, made once per test
run for the content tests (the `bundled` fixture of tests/content/conftest.py)."""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("pnp.toml", "cards", "schemas", "layouts", "sheets")


@dataclass(frozen=True)
class Bundled:
    """A copy of this repository's project after `pnp build`, `pnp export printshop` and `pnp check --render`."""

    project: Path
    said: dict[
        str, dict[str, str]
    ]  # "build", "export printshop", "check --render --format json" -> {"stdout": ..., "stderr": ...}

    @property
    def output(self) -> Path:
        return self.project / "output"


def copy_bundled(target: Path) -> Path:
    """This repository's project files (not its output) at `target`."""
    target.mkdir(parents=True)
    for name in PROJECT_FILES:
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / name)
    return target


@dataclass(frozen=True)
class PageText:
    """One PDF page as pdfplumber reads it."""

    text: str  # page.extract_text(): laid out by position
    flow: str  # page.extract_text(use_text_flow=True): in content-stream order
    chars: tuple[dict[str, Any], ...]  # each character's text, height, width and upright


def read_pages(path: Path) -> tuple[PageText, ...]:
    """Every page of a PDF, read once per process while the file stays as it is: the content tests
    read the same files many times, and pdfplumber takes about 25 s of CPU for the bundled sheets alone."""
    stat = path.stat()
    return _read_pages(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _read_pages(path: Path, mtime: int, size: int) -> tuple[PageText, ...]:
    pages = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            chars = tuple({key: c[key] for key in ("text", "height", "width", "upright")} for c in page.chars)
            flow = page.extract_text(use_text_flow=True) or ""
            pages.append(PageText(page.extract_text() or "", flow, chars))
    return tuple(pages)
