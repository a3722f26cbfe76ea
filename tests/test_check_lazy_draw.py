"""A full `pnp check` (its stored result no longer matches) whose render caches all hit draws
nothing, so it imports no reportlab (issue 16: "no reportlab import when nothing is drawn"),
and prints what a check from scratch prints; one cache miss draws again."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_check_fast import imported, pnp  # the real CLI, optionally under -X importtime

DRAWING = ("reportlab", "PIL", "pnp.drawing.render", "pnp.drawing.pdf", "pnp.sheets.blocks", "pnp.sheets.page")
CACHE = Path("output") / ".pnp-cache"


def drawing(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == d or m.startswith(d + ".") for d in DRAWING))


def render_caches(project: Path) -> dict[str, tuple[int, bytes]]:
    """Every render cache file (cards: KIND.json, sheets: sheets/*.json), with its change time."""
    folder = project / CACHE
    files = [*folder.glob("*.json"), *(folder / "sheets").glob("*.json")]
    return {p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes()) for p in files}


def from_scratch(project: Path, home: Path, where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The same check on a copy without any output folder: nothing cached, everything drawn."""
    copy = where / "scratch"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("output"))
    return pnp(copy, home, *args)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A `pnp new` project (a card layout and a sheet file) checked once: every cache written."""
    where = tmp_path_factory.mktemp("lazy")
    home = tmp_path_factory.mktemp("home")
    done = pnp(where, home, "new", "Ember Wild")
    assert done.returncode == 0, done.stderr
    project = where / "ember-wild"
    first = pnp(project, home, "check")
    assert first.returncode == 0 and "0 errors" in first.stdout, first.stdout + first.stderr
    assert any(name.startswith("sheets/") for name in render_caches(project))  # both kinds of cache exist
    assert "emberwild.card.json" in render_caches(project)
    return project, home


def test_a_change_no_drawing_reads_imports_no_reportlab(game: tuple[Path, Path], tmp_path: Path) -> None:
    """The component list's count: the check reads it (counts against the records), no card and
    no sheet draws it (it has no layout and no sheet lists it), so every render cache hits."""
    project, home = game
    components = project / "cards" / "components.json"
    before = components.read_text(encoding="utf-8")
    caches = render_caches(project)
    try:
        components.write_text(before.replace('"count": 3', '"count": 4'), encoding="utf-8")
        for fmt in ("text", "json"):
            (project / CACHE / "check" / "results.json").unlink(missing_ok=True)  # the text run's, else replayed
            done = pnp(project, home, "check", "--format", fmt, importtime=True)
            modules = imported(done.stderr)
            assert "pnp.rules.check" in modules, "a full check, not a stored result replayed"
            assert drawing(modules) == [], drawing(modules)
            assert done.returncode == 1 and "count" in done.stdout, done.stdout
            scratch = from_scratch(project, home, tmp_path, "check", "--format", fmt)
            assert (done.stdout, done.returncode) == (scratch.stdout, scratch.returncode)
        assert render_caches(project) == caches  # all hit: none rewritten
    finally:
        components.write_text(before, encoding="utf-8")


def test_one_cache_miss_draws_again(game: tuple[Path, Path], tmp_path: Path) -> None:
    """A card's text is drawn on its card and in the sheet's table: both caches miss, both draw."""
    project, home = game
    cards = project / "cards" / "cards.json"
    before = cards.read_text(encoding="utf-8")
    caches = render_caches(project)
    try:
        text = re.search(r'"text": "([^"]+)"', before)
        assert text is not None
        cards.write_text(before.replace(text.group(1), "a new rule, on the card and the sheet", 1), encoding="utf-8")
        done = pnp(project, home, "check", importtime=True)
        assert "reportlab" in imported(done.stderr) and "pnp.sheets.blocks" in imported(done.stderr)
        assert done.returncode == 0, done.stdout
        scratch = from_scratch(project, home, tmp_path, "check")
        assert (done.stdout, done.returncode) == (scratch.stdout, scratch.returncode)
        after = render_caches(project)
        assert after.keys() == caches.keys() and all(after[name] != caches[name] for name in caches)
    finally:
        cards.write_text(before, encoding="utf-8")


def test_paper_sizes_are_reportlabs() -> None:
    """pnp.core.units names the papers without importing reportlab: the same floats."""
    from reportlab.lib.pagesizes import A3, A4, LEGAL, LETTER
    from reportlab.lib.units import mm

    from pnp.core.units import MM, PAPERS

    assert mm == MM == pytest.approx(72 / 25.4)
    assert PAPERS == {"a4": A4, "letter": LETTER, "a3": A3, "legal": LEGAL}
    # and the sizes themselves, in points: 210 x 297 mm, 8.5 x 11 in, 297 x 420 mm, 8.5 x 14 in
    assert PAPERS["a4"] == pytest.approx((595.28, 841.89), abs=0.01)
    assert PAPERS["letter"] == pytest.approx((612, 792), abs=0.01)
    assert PAPERS["a3"] == pytest.approx((841.89, 1190.55), abs=0.01)
    assert PAPERS["legal"] == pytest.approx((612, 1008), abs=0.01)


def test_a_check_after_a_build_draws_nothing(tmp_path: Path) -> None:
    """`pnp build` keeps what drawing its cards and laying out its sheets found where `pnp check`
    looks for it: the check that follows a build imports no drawing and says what a check from
    scratch says."""
    home = tmp_path / "home"
    home.mkdir()
    assert pnp(tmp_path, home, "new", "Ember Wild").returncode == 0
    project = tmp_path / "ember-wild"
    built = pnp(project, home, "build")
    assert built.returncode == 0, built.stdout + built.stderr
    assert "emberwild.card.json" in render_caches(project)
    assert any(name.startswith("sheets/") for name in render_caches(project))
    done = pnp(project, home, "check", "--format", "json", importtime=True)
    modules = imported(done.stderr)
    assert "pnp.rules.check" in modules, "a full check, not a stored result replayed"
    assert drawing(modules) == [], drawing(modules)
    scratch = from_scratch(project, home, tmp_path, "check", "--format", "json")
    assert (done.stdout, done.returncode) == (scratch.stdout, scratch.returncode)
