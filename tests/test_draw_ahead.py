"""A kind's faces drawn on several cores by `pnp build` (pnp.drawing.drawahead): the same bytes as one
process, with faces really drawn elsewhere, and a face store the next build reuses whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pnp.drawing.render import FACES_DRAWN
from tests.buildkit import cards_only
from tests.runpnp import run as pnp

CARDS = 230
TEXTS = ["Gain 1 {gold}.", "Überfall: deal 2 {damage} → a unit — *once*.", "Draw ½ a card, ♦ discard one."]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = cards_only(tmp_path_factory.mktemp("ahead") / "project")
    path = root / "cards" / "cards.json"
    first = json.loads(path.read_text(encoding="utf-8"))[0]
    records = [
        {**first, "id": f"card-{n:03}", "name": f"Card {n:03}", "cost": n % 7, "text": TEXTS[n % 3]}
        for n in range(CARDS)
    ]
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


def build(root: Path, *args: str) -> tuple[int, dict[str, bytes]]:
    """(faces drawn in this process, every PDF written) of `pnp build ARGS`."""
    before = sum(FACES_DRAWN.values())
    ran = pnp(root, "build", *args)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    pdfs = {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "output").rglob("*.pdf"))}
    assert pdfs
    return sum(FACES_DRAWN.values()) - before, pdfs


def test_faces_drawn_on_several_cores_make_the_same_bytes(project: Path) -> None:
    shutil.rmtree(project / "output", ignore_errors=True)
    alone, one = build(project, "--jobs", "1")
    assert alone == 2 * CARDS  # every front and back drawn here
    for jobs in ("2", "3"):
        shutil.rmtree(project / "output")
        here, several = build(project, "--jobs", jobs)
        assert several == one, f"--jobs {jobs}"
        assert 0 < here < alone / 2, f"--jobs {jobs}: {here} of {alone} faces drawn in this process"
    warm, again = build(project, "--force")  # the store the last build kept: every face, drawn here or not
    assert (warm, again) == (0, one)


def test_an_edit_after_a_build_on_several_cores_redraws_its_face_only(project: Path) -> None:
    shutil.rmtree(project / "output", ignore_errors=True)
    build(project, "--jobs", "2")
    path = project / "cards" / "cards.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[200]["name"] = "Card Two Hundred"  # a face a child drew
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    drawn, edited = build(project)
    assert drawn == 2  # its front and back, drawn here: every other face came from the store
    shutil.rmtree(project / "output")
    assert build(project, "--jobs", "1")[1] == edited


def test_sheets_laid_out_on_another_core_make_the_same_files(tmp_path: Path) -> None:
    """While the kinds are drawn, a forked child lays the sheet files out (pnp.outputs.build); the
    files, the read-me that lists them and the problems are those of one process."""
    from pnp.sheets.build import LAID_OUT

    root = tmp_path / "game"
    shutil.copytree(Path(__file__).resolve().parent / "sheet_project", root, ignore=shutil.ignore_patterns("output"))

    def whole(*args: str) -> tuple[int, dict[str, bytes], str]:
        shutil.rmtree(root / "output", ignore_errors=True)
        before = sum(LAID_OUT.values())
        ran = pnp(root, "build", *args)
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        files = {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "output").rglob("*.pdf"))}
        return sum(LAID_OUT.values()) - before, files, ran.stdout + ran.stderr

    here, alone, said = whole("--jobs", "1")
    assert here >= 4 and any("/setup/" in name for name in alone)  # laid out in this process
    elsewhere, split, told = whole("--jobs", "2")
    assert elsewhere == 0  # every sheet laid out by the child
    assert split == alone
    assert told == said


def test_a_check_lays_the_sheets_out_on_another_core_and_reports_the_same(tmp_path: Path) -> None:
    """`pnp check` lays the sheets out in a forked child while it draws the cards (pnp.verify.run);
    what it reports, a problem of a sheet and of a card included, is what one process reports."""
    from pnp.sheets.build import LAID_OUT

    root = tmp_path / "game"
    shutil.copytree(Path(__file__).resolve().parent / "sheet_project", root, ignore=shutil.ignore_patterns("output"))
    units = root / "cards" / "units.json"
    records = json.loads(units.read_text(encoding="utf-8"))
    records[0]["name"] = "A name far too long for its box on the card " * 4  # a card's problem
    units.write_text(json.dumps(records, indent=1), encoding="utf-8")
    setup = root / "sheets" / "setup.yaml"
    text = setup.read_text(encoding="utf-8").replace("{{ map }}", "{{ (1 / 0) ~ map }}", 1)  # fails as laid out
    setup.write_text(text.replace('when: "false"', 'when: "true"', 1), encoding="utf-8")

    def check(*args: str) -> tuple[int, str]:
        shutil.rmtree(root / "output", ignore_errors=True)
        before = sum(LAID_OUT.values())
        ran = pnp(root, "check", "--format", "json", *args)
        return sum(LAID_OUT.values()) - before, ran.stdout

    here, alone = check("--jobs", "1")
    elsewhere, split = check("--jobs", "2")
    assert here > 0 and elsewhere == 0
    assert split == alone
    codes = {problem["code"] for problem in json.loads(alone)["problems"]}
    assert {"text-overflow", "sheet-error"} <= codes, codes


def test_jobs_beyond_the_limit_are_a_usage_error(project: Path) -> None:
    """`--jobs 1000` is a typo, not a thousand forked processes: exit 2, the range said."""
    for command in ("build", "check"):
        ran = pnp(project, command, "--jobs", "1000")
        assert ran.returncode == 2, (command, ran.stdout, ran.stderr)
        assert "0<=x<=64" in ran.stderr, ran.stderr
