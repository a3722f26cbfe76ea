"""Suite-wide: tests/ on sys.path (casekit, runpnp, ...), the `content` marker, and pnp/ compiled
once for the processes the suite starts.

`make test` runs the suite with pytest-xdist, `-n auto --dist worksteal`: each worker starts with
half of the tests in collection order and, when it runs out, takes half of what the other has
left, so no timing table has to be kept up to date. A module-scoped fixture runs once per worker
that runs tests of its module; the set-ups that several modules share or that cost most are
made once per run instead (tests/oncekit.py: the bundled games built and exported), and the
pre-commit hook's virtualenv is installed once into a store the workers share.
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

# Tests of the bundled content project rather than of the toolkit: `-m "not content"` skips them.
CONTENT_MODULES = {TESTS / "test_schemas.py"}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Byte-compile pnp/ once (into its __pycache__, ignored by git): the suite still starts
    `python -m pnp` processes where the process itself is tested, and where
    PYTHONDONTWRITEBYTECODE is set each would otherwise compile pnp from source again. Python
    checks each .pyc against its source, as always."""
    import compileall

    compileall.compile_dir(TESTS.parent / "pnp", quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    content = TESTS / "content"
    for item in items:
        if item.path.is_relative_to(content) or item.path in CONTENT_MODULES:
            item.add_marker(pytest.mark.content)
