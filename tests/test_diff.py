"""`pnp diff` on a tiny game kept in a temporary git repository (docs/diff.md).

History of the fixture repository:
  `broken`  a record file that does not parse, tagged `broken`
  `loose`   Delta's cost is text (a schema error, pnp check's to report), tagged `loose`
  `v1.0`    four cards (Alpha in 2 copies, Bravo, Charlie, Delta) and three tokens, tagged `v1.0`
  `v1.1`    (HEAD, not tagged) Alpha's cost 1 -> 2, Bravo's text reworded, Charlie removed, Echo added,
            the token layout's background colour changed; the working tree is v1.1.

So against v1.0 exactly Alpha, Bravo, Echo and the three tokens are to reprint, Charlie is gone,
and Delta, whose record and layout did not change, must appear in no output. Every command runs
once per module (the report files are written by one run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from tests.runpnp import Ran, run

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pnp.invalid/schemas/demo.card.schema.json",
    "type": "object",
    "properties": {
        "kind": {"const": "demo.card"},
        "id": {"type": "string"},
        "name": {"type": "string"},
        "cost": {"type": "integer"},
        "text": {"type": "string"},
        "copies": {"type": "integer"},
    },
    "required": ["kind", "id", "name", "cost", "text"],
    "additionalProperties": False,
}
TOKEN_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pnp.invalid/schemas/demo.token.schema.json",
    "type": "object",
    "properties": {"kind": {"const": "demo.token"}, "id": {"type": "string"}, "name": {"type": "string"}},
    "required": ["kind", "id", "name"],
    "additionalProperties": False,
}
CARD_LAYOUT = {
    "kinds": ["demo.card"],
    "unit": "mm",
    "size": "poker",
    "bleed": 3,
    "front": {
        "background": "#f7f1e3",
        "elements": [
            {"name": "title", "type": "text", "x": 5, "y": 4, "w": 38, "h": 8, "text": "{{ name }}", "size": 12},
            {"name": "cost", "type": "stat", "x": 49, "y": 2, "w": 10, "h": 10, "value": "{{ cost }}", "size": 14},
            {"name": "rules", "type": "text", "x": 5, "y": 40, "w": 53, "h": 30, "text": "{{ text }}", "size": 10},
        ],
    },
    "back": {
        "background": "#2c3e50",
        "elements": [
            {
                "name": "mark",
                "type": "text",
                "x": 5,
                "y": 40,
                "w": 53,
                "h": 8,
                "text": "DEMO",
                "size": 12,
                "color": "#ffffff",
            }
        ],
    },
}


def token_layout(background: str) -> dict[str, Any]:
    return {
        "kinds": ["demo.token"],
        "unit": "mm",
        "size": {"width": 25, "height": 25},
        "shape": "round",
        "bleed": 2,
        "front": {
            "background": background,
            "elements": [
                {"name": "n", "type": "text", "x": 3, "y": 9, "w": 19, "h": 7, "text": "{{ name }}", "size": 7}
            ],
        },
        "back": None,
    }


def card(cid: str, name: str, cost: int, text: str, copies: int = 1) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "demo.card", "id": cid, "name": name, "cost": cost, "text": text}
    if copies != 1:
        record["copies"] = copies
    return record


V1_CARDS = [
    card("alpha", "Alpha", 1, "Gain one coin.", copies=2),
    card("bravo", "Bravo", 2, "Draw a card."),
    card("charlie", "Charlie", 3, "Discard a card."),
    card("delta", "Delta", 4, "Keep calm."),
]
V11_CARDS = [
    card("alpha", "Alpha", 2, "Gain one coin.", copies=2),
    card("bravo", "Bravo", 2, "Draw two cards."),
    card("delta", "Delta", 4, "Keep calm."),
    card("echo", "Echo", 5, "Start over."),
]
TOKENS = [{"kind": "demo.token", "id": f"t{n}", "name": f"Token{n}"} for n in (1, 2, 3)]


def write(root: Path, name: str, value: Any) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def commit(root: Path, message: str, tag: str | None = None) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    if tag:
        git(root, "tag", tag)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diff") / "game"
    write(root, "pnp.toml", '[project]\nname = "Demo"\n\n[build]\npaper = "a4"\nduplex = "long"\n')
    write(root, ".gitignore", "output/\n")
    write(root, "schemas/demo.card.schema.json", SCHEMA)
    write(root, "schemas/demo.token.schema.json", TOKEN_SCHEMA)
    write(root, "layouts/demo-card.json", CARD_LAYOUT)
    write(root, "layouts/demo-token.json", token_layout("#fdebd0"))
    write(root, "cards/tokens.json", TOKENS)
    write(root, "cards/cards.json", '[\n  {"kind": "demo.card", "id": "alpha",}\n]\n')  # a comma too many
    git(root, "init", "-q")
    (root / "notes").mkdir()
    (root / "notes" / "outside").symlink_to("/etc/hostname")  # a link in a revision is never followed
    commit(root, "broken", tag="broken")
    write(root, "cards/cards.json", [*V1_CARDS[:3], {**V1_CARDS[3], "cost": "four"}])
    commit(root, "a schema error", tag="loose")
    write(root, "cards/cards.json", V1_CARDS)
    commit(root, "v1.0", tag="v1.0")
    write(root, "cards/cards.json", V11_CARDS)
    write(root, "layouts/demo-token.json", token_layout("#d0ebfd"))
    commit(root, "v1.1")
    return root


@pytest.fixture(scope="module")
def runs(game: Path) -> dict[str, Ran]:
    """Every command of the module, run once; the one run writing output/diff/ is `files`."""
    status = git(game, "status", "--porcelain", "--ignored")
    found = {
        "files": run(game, "diff", "v1.0", "HEAD"),  # writes the working tree's output/diff/ all the same
        "json": run(game, "diff", "v1.0", "--format", "json", "--no-files"),
        "github": run(game, "diff", "v1.0", "--format", "github", "--no-files"),
        "two": run(game, "diff", "v1.0", "HEAD", "--format", "json", "--no-files"),
        "since": run(game, "diff", "--since-tag", "--no-files"),
        "clean": run(game, "diff", "--no-files"),
        "same": run(game, "diff", "v1.0", "v1.0", "--no-files"),
    }
    after = git(game, "status", "--porcelain", "--ignored")
    assert after == status + "!! output/\n" or after == status, (status, after)  # only output/ appeared
    return found


def test_records_added_removed_changed_field_by_field(runs: dict[str, Ran]) -> None:
    ran = runs["json"]
    assert ran.returncode == 1, ran.stderr
    report = json.loads(ran.stdout)
    assert (report["before"], report["after"], report["changed"]) == ("v1.0", "working tree", True)
    records = {(r["id"], r["status"]): r for r in report["records"]}
    assert sorted(records) == [("alpha", "changed"), ("bravo", "changed"), ("charlie", "removed"), ("echo", "added")]
    assert records["alpha", "changed"]["fields"] == [{"pointer": "/cost", "status": "changed", "before": 1, "after": 2}]
    assert records["bravo", "changed"]["fields"] == [
        {"pointer": "/text", "status": "changed", "before": "Draw a card.", "after": "Draw two cards."}
    ]
    assert records["echo", "added"]["place"] == "cards/cards.json:24"  # where it is, in the new version
    assert [r["id"] for r in report["records"]] == ["alpha", "bravo", "charlie", "echo"]  # sorted by kind, id


def test_a_layout_colour_change_reports_every_face_of_its_kind_and_only_them(runs: dict[str, Ran]) -> None:
    faces = {(f["kind"], f["id"]): (f["status"], f["reasons"]) for f in json.loads(runs["json"].stdout)["faces"]}
    assert faces == {
        ("demo.card", "alpha"): ("changed", ["record"]),
        ("demo.card", "bravo"): ("changed", ["record"]),
        ("demo.card", "charlie"): ("removed", ["record"]),
        ("demo.card", "echo"): ("added", ["record"]),
        ("demo.token", "t1"): ("changed", ["layout"]),
        ("demo.token", "t2"): ("changed", ["layout"]),
        ("demo.token", "t3"): ("changed", ["layout"]),
    }
    files = json.loads(runs["json"].stdout)["files"]
    assert files == [{"path": "layouts/demo-token.json", "status": "changed"}]


def test_two_revisions_compare_like_the_working_tree_they_match(runs: dict[str, Ran]) -> None:
    two, tree = json.loads(runs["two"].stdout), json.loads(runs["json"].stdout)
    assert runs["two"].returncode == 1 and two["after"] == "HEAD"
    assert {**two, "after": ""} == {**tree, "after": ""}


def test_text_and_github_formats(runs: dict[str, Ran]) -> None:
    text = runs["files"].stdout
    assert text.splitlines()[:4] == [
        "pnp diff v1.0 .. HEAD",
        "~ demo.card alpha (changed) cards/cards.json:2",
        "    /cost: 1 -> 2",
        "~ demo.card bravo (changed) cards/cards.json:10",
    ]
    assert "- demo.card charlie (removed) cards/cards.json:17" in text
    assert "* demo.token t1 redrawn (layout demo-token: its layout, icons or fonts changed)" in text
    github = runs["github"].stdout
    assert github.startswith("### pnp diff: v1.0 → working tree\n")
    assert "| changed | demo.card | Alpha | cost 1 → 2 |" in github
    assert "| added | demo.card | Echo | added |" in github
    for output in (text, github, runs["json"].stdout):
        assert "delta" not in output.lower()  # unchanged: in no report


def test_exit_status_and_since_tag(runs: dict[str, Ran], game: Path) -> None:
    assert runs["since"].returncode == 1 and runs["since"].stdout.startswith("pnp diff v1.0 .. working tree")
    assert (runs["clean"].returncode, runs["clean"].stdout) == (0, "pnp diff HEAD .. working tree\nno changes\n")
    assert (runs["same"].returncode, runs["same"].stdout) == (0, "pnp diff v1.0 .. v1.0\nno changes\n")
    missing = run(game, "diff", "v9.9", "--no-files")
    assert missing.returncode == 2 and missing.stdout == ""
    assert "no revision 'v9.9'" in missing.stderr and "Traceback" not in missing.stderr
    option_like = run(game, "diff", "--no-files", "--", "--output=/tmp/x")
    assert option_like.returncode == 2 and "is not a revision" in option_like.stderr


def test_a_broken_old_version_is_labelled_never_a_traceback(game: Path) -> None:
    ran = run(game, "diff", "broken", "--no-files")
    assert ran.returncode == 2
    assert ran.stdout.splitlines() == [
        "broken:cards/cards.json:2:39: error[json-syntax]: trailing comma before '}'; remove the comma"
    ]
    assert "Traceback" not in ran.stderr


def test_a_schema_error_in_an_old_version_does_not_stop_the_comparison(game: Path) -> None:
    ran = run(game, "diff", "loose", "v1.0", "--format", "json", "--no-files")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    records = json.loads(ran.stdout)["records"]
    assert records == [
        {
            "kind": "demo.card",
            "id": "delta",
            "status": "changed",
            "place": "cards/cards.json:24",
            "title": "Delta",
            "fields": [{"pointer": "/cost", "status": "changed", "before": "four", "after": 4}],
        }
    ]


def test_not_a_repository_and_no_git(tmp_path: Path, game: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    for name in ("pnp.toml", "schemas", "layouts", "cards"):
        if (game / name).is_dir():
            shutil.copytree(game / name, alone / name)
        else:
            shutil.copy(game / name, alone / name)
    ran = run(alone, "diff", "--no-files")
    assert ran.returncode == 2 and "not in a git repository" in ran.stderr
    git(alone, "init", "-q")
    commit(alone, "untagged")
    untagged = run(alone, "diff", "--since-tag", "--no-files")
    assert untagged.returncode == 2 and "--since-tag: no release tag" in untagged.stderr
    good = (alone / "pnp.toml").read_text(encoding="utf-8")
    (alone / "pnp.toml").write_text(good.replace('paper = "a4"', "paper = 7"), encoding="utf-8")
    commit(alone, "a pnp.toml that does not load", tag="bad-toml")
    (alone / "pnp.toml").write_text(good, encoding="utf-8")
    bad = run(alone, "diff", "bad-toml", "--no-files")
    assert bad.returncode == 2 and bad.stdout.startswith("bad-toml:pnp.toml:"), bad.stdout + bad.stderr
    assert len(bad.stdout.splitlines()) == 1 and "Traceback" not in bad.stderr


def test_a_revision_over_the_file_limit_is_refused(game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pnp.core.problems import ConfigError
    from pnp.outputs.diff import gitsource

    monkeypatch.setattr(gitsource, "MAX_FILES", 3)
    repo = gitsource.repository(game)
    with pytest.raises(ConfigError, match="over 3 files"):
        gitsource.extract(repo, gitsource.resolve(repo, "v1.0"), tmp_path)
    assert not any(tmp_path.iterdir())  # refused before anything was written
    no_git = run(game, "diff", "--no-files", env={"PATH": str(tmp_path / "empty")})
    assert no_git.returncode == 2 and "git is not installed" in no_git.stderr


def test_a_link_in_a_revision_is_not_followed(game: Path, tmp_path: Path) -> None:
    from pnp.outputs.diff.gitsource import extract, repository, resolve

    repo = repository(game)
    target = tmp_path / "v1"
    target.mkdir()
    done = extract(repo, resolve(repo, "v1.0"), target)
    assert done.refused == ("notes/outside",)
    assert not (target / "notes").exists() and (target / "cards" / "cards.json").is_file()


def test_the_page_shows_exactly_the_changed_faces_before_and_after(runs: dict[str, Ran], game: Path) -> None:
    assert runs["files"].returncode == 1
    folder = game / "output" / "diff"
    page = (folder / "index.html").read_text(encoding="utf-8")
    titles = [line for line in page.splitlines() if line.startswith("<h2>")]
    assert [t.split("<span")[0] for t in titles] == [
        "<h2>demo.card: Alpha",
        "<h2>demo.card: Bravo",
        "<h2>demo.card: Charlie",
        "<h2>demo.card: Echo",
        "<h2>demo.token: Token1",
        "<h2>demo.token: Token2",
        "<h2>demo.token: Token3",
    ]
    assert "Delta" not in page and "http://" not in page and "https://" not in page  # offline
    images = sorted(p.name for p in (folder / "img").iterdir())
    for name in images:
        assert f'src="img/{name}"' in page
    # Alpha: its front before and after, its unchanged back once; Charlie: before only; Echo: after only
    assert [n for n in images if n.startswith("0001-")] == [
        "0001-back-after.png", "0001-front-after.png", "0001-front-before.png",
    ]  # fmt: skip
    assert [n for n in images if n.startswith(("0003-", "0004-"))] == [
        "0003-back-before.png", "0003-front-before.png", "0004-back-after.png", "0004-front-after.png",
    ]  # fmt: skip
    alpha = page.split('id="face-1"')[1].split("</section>")[0]
    boxes = [b.split('"')[0] for b in alpha.split('class="box" style="')[1:]]
    assert len(boxes) == 2  # the front's changed cost, on both images; the back shows no change
    left = float(boxes[0].split("left:")[1].split("%")[0])
    width = float(boxes[0].split("width:")[1].split("%")[0])
    assert left > 60 and width < 30  # the cost stat at the top right, not the whole card
    assert "back: no visible change" in alpha


def test_the_errata_holds_exactly_the_changed_faces(runs: dict[str, Ran], game: Path) -> None:
    with pdfplumber.open(game / "output" / "diff" / "errata.pdf") as pdf:
        pages = [page.extract_text() or "" for page in pdf.pages]
    changelog, blank, sheets = pages[0], pages[1], pages[2:]
    assert changelog.splitlines()[:2] == ["Demo: errata", "Changes from v1.0 to HEAD."]
    assert "Changed demo.card: Alpha: cost 1 → 2" in changelog and "Removed demo.card: Charlie" in changelog
    assert blank == ""  # duplex: the changelog's back is blank, so every front meets its back
    words = " ".join(sheets).split()
    names = sorted(
        w for w in words if w in {"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Token1", "Token2", "Token3"}
    )
    assert names == ["Alpha", "Alpha", "Bravo", "Echo", "Token1", "Token2", "Token3"]  # Alpha's 2 copies
    assert "Delta" not in " ".join(pages)
    assert words.count("DEMO") == 4  # the backs of the 4 cards printed


def test_same_input_same_report(runs: dict[str, Ran], game: Path) -> None:
    folder = game / "output" / "diff"
    before = {p.name: p.read_bytes() for p in (folder, folder / "img") for p in p.iterdir() if p.is_file()}
    again = run(game, "diff", "v1.0", "HEAD")
    assert again.returncode == 1
    after = {p.name: p.read_bytes() for p in (folder, folder / "img") for p in p.iterdir() if p.is_file()}
    assert before == after


def test_an_earlier_version_of_a_font_file_is_drawn_with_its_own_glyphs(tmp_path: Path) -> None:
    """Both versions' fonts/title.ttf are registered in one process: each content under its own name."""
    from pnp.drawing.fonts import FONT_DIR, register_file

    old, new, same = tmp_path / "old" / "title.ttf", tmp_path / "new" / "title.ttf", tmp_path / "same" / "title.ttf"
    # contents no other test of this process registered (a content seen before keeps its first name)
    unique = f"\0{tmp_path}".encode()
    for path, source in ((old, "DejaVuSans.ttf"), (new, "DejaVuSansCondensed.ttf"), (same, "DejaVuSans.ttf")):
        path.parent.mkdir()
        path.write_bytes((FONT_DIR / source).read_bytes() + unique)
    names = register_file(old), register_file(new), register_file(same)
    assert names[0] != names[1] and names[0] == names[2]
    assert all(name.startswith("pnp-title") for name in names)
