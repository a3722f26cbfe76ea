import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests of the bundled content (tests/content/) carry the `content` marker: `-m "not content"` skips them."""
    content = TESTS / "content"
    for item in items:
        if item.path.is_relative_to(content):
            item.add_marker(pytest.mark.content)
