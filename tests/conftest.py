"""Suite-wide: tests/ on sys.path (casekit), the `content` marker, and how pytest-xdist shares
the modules out.

`make test` runs the suite with pytest-xdist (`-n auto --dist loadfile`). With `--dist loadfile`
this conftest's scheduler (ModuleScheduling) hands out one module at a time, so a module-scoped
setup (a build, a wheel, a pre-commit virtualenv) runs once and tests of one module never share a
folder with another worker's; but the modules in SPREAD, whose tests each make their own project,
go out one test at a time, to fill the gaps at the end. Units go out longest first (MODULE_SECONDS),
so no long module starts last while the other worker idles. (`--dist loadgroup` would do the
spreading by marks, but pytest-xdist 3.8 cannot group under pytest 9: it renames `item._nodeid`,
which pytest 9 no longer reads.)
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

# Tests of the bundled content project rather than of the toolkit: `-m "not content"` skips them.
CONTENT_MODULES = {TESTS / "test_repo.py", TESTS / "test_schemas.py"}

# Modules whose tests share no module-scoped set-up and do not depend on each other's order:
# pytest-xdist may run their tests on any worker, one by one.
SPREAD = (
    "tests/test_cases.py",
    "tests/test_cases_jobs.py",
    "tests/content/test_content_cases.py",
    "tests/test_export.py",
)

# What a module costs, in seconds of one measured run (`--durations=0` summed per module, on a
# busy machine, so only the ratios mean anything): units go out longest first. A module not
# listed counts as UNLISTED_SECONDS; the tests of a SPREAD module share its time.
MODULE_SECONDS = {
    "tests/content/test_content_cases.py": 55,
    "tests/test_export.py": 50,
    "tests/test_cases.py": 41,
    "tests/content/test_records_roundtrip.py": 41,
    "tests/test_hook.py": 31,  # mostly waiting: pre-commit installs the hook twice
    "tests/test_hostile.py": 29,
    "tests/content/test_printed_cards.py": 29,
    "tests/content/test_bundled_sheets.py": 29,
    "tests/test_sheets.py": 28,
    "tests/test_cases_jobs.py": 28,
    "tests/test_fuzz.py": 25,
    "tests/test_translate.py": 22,
    "tests/content/test_fuzz_content.py": 20,
    "tests/test_stranger.py": 18,
    "tests/test_build.py": 16,
    "tests/test_diagnostics.py": 14,
    "tests/test_check_fast.py": 12,
    "tests/test_translate_outputs.py": 10,
    "tests/test_tables.py": 8,
    "tests/test_print_production.py": 7,
    "tests/test_translate_words.py": 6,
    "tests/test_install.py": 6,
    "tests/test_serve.py": 4,
    "tests/test_scaffold.py": 4,
}
UNLISTED_SECONDS = 3.0


def pytest_sessionstart(session: pytest.Session) -> None:
    """Byte-compile pnp/ once (into its __pycache__, ignored by git): the suite starts hundreds of
    `python -m pnp` processes, and where PYTHONDONTWRITEBYTECODE is set each would otherwise
    compile pnp from source again. Python checks each .pyc against its source, as always."""
    import compileall

    compileall.compile_dir(TESTS.parent / "pnp", quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    content = TESTS / "content"
    for item in items:
        if item.path.is_relative_to(content) or item.path in CONTENT_MODULES:
            item.add_marker(pytest.mark.content)
    # longest unit first (a stable sort: a module's tests keep their order)
    counts: dict[str, int] = {}
    for item in items:
        counts[_module(item.nodeid)] = counts.get(_module(item.nodeid), 0) + 1
    items.sort(key=lambda item: -_unit_seconds(item.nodeid, counts))


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _unit_seconds(nodeid: str, counts: dict[str, int]) -> float:
    """The estimated time of the scheduling unit the test belongs to: its module, or itself in SPREAD."""
    module = _module(nodeid)
    seconds = MODULE_SECONDS.get(module, UNLISTED_SECONDS)
    return seconds / counts[module] if module in SPREAD else seconds


try:
    from xdist.scheduler import LoadFileScheduling
except ImportError:  # plain pytest: no scheduling to do
    pass
else:

    class ModuleScheduling(LoadFileScheduling):
        """--dist loadfile, but SPREAD modules go out test by test, in collection order (longest first)."""

        def __init__(self, config: pytest.Config, log: object = None) -> None:
            super().__init__(config, log)  # type: ignore[arg-type]
            config.option.loadscopereorder = False  # keep the order pytest_collection_modifyitems made

        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _module(nodeid) in SPREAD else super()._split_scope(nodeid)

    @pytest.hookimpl(optionalhook=True)  # `-p no:xdist` leaves the hook unknown
    def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadFileScheduling | None:
        return ModuleScheduling(config, log) if config.getvalue("dist") == "loadfile" else None
