"""Suite-wide: tests/ on sys.path (casekit) and the `content` marker.

`make test` runs the suite with pytest-xdist (`-n auto --dist loadfile`): each test module runs on
one worker, so a module-scoped setup (a build, a wheel, a pre-commit virtualenv) runs once, and
tests of one module never share a folder with another worker's. (`--dist loadgroup` would spread
the cheap modules' tests, but pytest-xdist 3.8 cannot group under pytest 9: it renames
`item._nodeid`, which pytest 9 no longer reads.)
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

# Tests of the bundled content project rather than of the toolkit: `-m "not content"` skips them.
CONTENT_MODULES = {TESTS / "test_repo.py", TESTS / "test_schemas.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    content = TESTS / "content"
    for item in items:
        if item.path.is_relative_to(content) or item.path in CONTENT_MODULES:
            item.add_marker(pytest.mark.content)
