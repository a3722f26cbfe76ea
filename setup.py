"""The wheel carries the user documentation: docs/*.md are copied into pnp/docs/ at build time,
so that `pnp docs TOPIC` (and the messages that name a topic) work after `pip install pnp`.
Everything else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithDocs(build_py):
    """build_py, then docs/*.md into the built package's docs/ folder."""

    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "docs"
        target = Path(self.build_lib) / "pnp" / "docs"
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted(source.glob("*.md")):
            shutil.copyfile(page, target / page.name)


setup(cmdclass={"build_py": BuildWithDocs})
