"""Hostile input, second round (issue 26): the real CLI on a copy of tests/build_project.

Each test is one class of mistake that once ended in "internal error", an endless run or a
misleading message: limits raised past their ceiling, paths the system refuses, numbers and
files no parser takes, a full device, impossible places for `pnp new`. Each asserts the exit
status, the one located line (or the one `pnp: error:` line), and a time bound. The template
classes are the case folders tests/cases/template-work-layout and template-work-sheet (with a
memory bound).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pnp.core.limits import CEILINGS, KEYS

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "build_project"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SECONDS = 60  # generous: the machine is slow and shared; each of these takes about a second


def pnp(project: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pnp", *args], cwd=project, capture_output=True, text=True, env=ENV, timeout=300
    )
    assert time.monotonic() - started < SECONDS
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("output"))
    return target


def add_element(project: Path, element: dict[str, object]) -> None:
    path = project / "layouts" / "test-spell.json"
    data = json.loads(path.read_text())
    data["front"]["elements"].append({"name": "attack", "x": 5, "y": 30, "w": 50, "h": 20, **element})
    path.write_text(json.dumps(data))


def errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if ": error[" in line]


# --- limits have hard ceilings ------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(KEYS))
def test_every_limit_has_a_hard_ceiling(project: Path, key: str) -> None:
    ceiling = getattr(CEILINGS, KEYS[key])
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text() + f"\n[limits]\n{key} = {ceiling * 10}\n")
    line = toml.read_text().splitlines().index(f"{key} = {ceiling * 10}") + 1
    done = pnp(project, "check")
    assert done.returncode == 2
    assert errors(done) == [
        f"pnp.toml:{line}:1: error[config-error]: [limits] {key} = {ceiling * 10:g} is over its hard ceiling of "
        f"{ceiling:,g}, beyond which pnp could no longer bound the work of hostile input; use at most {key} = {ceiling:g}"
    ]


def test_shrink_to_fit_cannot_be_unbounded_again(project: Path) -> None:
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text() + "\n[limits]\ntext-max-pt = 1e300\n")
    done = pnp(project, "build")
    assert done.returncode == 2 and "text-max-pt = 1e+300 is over its hard ceiling of 1,000" in done.stdout


def test_a_paper_no_printer_takes_is_a_pnp_toml_error_at_the_paper(project: Path) -> None:
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('paper = "a4"', 'paper = "1e200x1e200mm"'))
    done = pnp(project, "build")
    assert done.returncode == 2
    assert len(errors(done)) == 1
    assert errors(done)[0].startswith(
        "pnp.toml:5:1: error[config-error]: paper 1e200x1e200mm is 1e+200 mm long, over the limit of 2,000.0 (paper-mm)"
    )


def test_an_empty_game_folder_is_a_pnp_toml_error(project: Path) -> None:
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('folder = "test"', 'folder = ""'))
    done = pnp(project, "build")
    assert done.returncode == 2
    assert errors(done) == [
        'pnp.toml:11:1: error[config-error]: [games.test] folder may not be empty (such as folder = "test")'
    ]
    assert not (project / "output" / ".pdf").exists()


@pytest.mark.parametrize("folder", ["a\\u0000b", "x" * 300], ids=["nul", "over 255 bytes"])
def test_a_game_folder_the_system_refuses_is_a_pnp_toml_error(project: Path, folder: str) -> None:
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text().replace('folder = "test"', f'folder = "{folder}"'))
    line = next(n for n, row in enumerate(toml.read_text().splitlines(), 1) if row.startswith("folder = "))
    for command in (("build",), ("export", "printshop")):  # every command prints it as a located line
        done = pnp(project, *command)
        assert done.returncode == 2 and done.stderr == ""
        assert errors(done) == [
            f"pnp.toml:{line}:1: error[config-error]: [games.test] folder must be a plain folder name of at most 255 "
            'bytes (such as folder = "test")'
        ]


# --- paths the system refuses -------------------------------------------------------------------

LONG = "a" * 300  # a name part over 255 bytes


@pytest.mark.parametrize(
    ("src", "where", "reason"),
    [
        ("art/a\x00b.png", "layouts/test-spell.json:1:", "embedded null byte"),
        (f"art/{LONG}.png", "layouts/test-spell.json:1:", "File name too long"),
        ("art/{{ name }}\x00.png", "cards/spells.json:5:13:", "embedded null byte"),
        ("art/{{ name * 60 }}.png", "cards/spells.json:5:13:", "File name too long"),
    ],
    ids=["nul in layout", "long in layout", "nul from template", "long from template"],
)
def test_an_image_path_the_system_refuses_is_a_located_problem(
    project: Path, src: str, where: str, reason: str
) -> None:
    add_element(project, {"type": "image", "src": src})
    for command in ("check", "build"):
        done = pnp(project, command)
        assert done.returncode == 1
        first = errors(done)[0]
        assert (
            first.startswith(where) and "error[missing-asset]" in first and f"is not a usable path: {reason}" in first
        )


def test_an_image_path_in_a_record_the_system_refuses_is_a_located_problem(project: Path) -> None:
    add_element(project, {"type": "image", "src": "{{ name }}"})
    spells = project / "cards" / "spells.json"
    spells.write_text(spells.read_text().replace('"Spell 1"', json.dumps("art/x\x00.png"), 1))
    done = pnp(project, "check")
    assert done.returncode == 1
    assert "is not a usable path: embedded null byte" in errors(done)[0] and errors(done)[0].startswith(
        "cards/spells.json:5:"
    )


def test_a_pipe_or_a_folder_as_an_image_says_what_it_is(project: Path) -> None:
    os.mkfifo(project / "art" / "pipe.png")
    (project / "art" / "folder.png").mkdir()
    add_element(project, {"type": "image", "src": "art/pipe.png"})
    add_element(project, {"type": "image", "src": "art/folder.png"})
    done = pnp(project, "check")
    assert done.returncode == 1
    assert len(errors(done)) == 2 and "does not exist" not in done.stdout
    assert all("is not a regular file" in line or "folder" in line for line in errors(done))


# --- numbers and files no parser takes ----------------------------------------------------------


def test_a_yaml_integer_of_thousands_of_digits_is_located(project: Path) -> None:
    (project / "cards" / "big.yaml").write_text("- kind: test.spell\n  id: big\n  name: Big\n  level: " + "9" * 5000)
    done = pnp(project, "check")
    assert done.returncode == 1
    assert errors(done) == [
        "cards/big.yaml:4:10: error[json-syntax]: YAML syntax: number is too large for any JSON reader "
        "(over 1.8e308); write a smaller number"
    ]


def test_a_yaml_nan_is_named_as_nan(project: Path) -> None:
    (project / "cards" / "big.yaml").write_text("- kind: test.spell\n  id: big\n  name: Big\n  level: .nan\n")
    done = pnp(project, "check")
    assert done.returncode == 1
    assert errors(done) == [
        "cards/big.yaml:4:10: error[non-finite-number]: .nan is NaN, not a number JSON can hold; "
        "use a number, or null for no value"
    ]


@pytest.mark.parametrize("font", ["truncated", "collection"])
def test_a_font_that_is_cut_short_or_a_collection_is_bad_asset(project: Path, font: str) -> None:
    real = (ROOT / "pnp" / "fonts" / "DejaVuSans.ttf").read_bytes()
    data = real[:5000] if font == "truncated" else b"ttcf\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x10" + real
    (project / "art" / "f.ttf").write_bytes(data)
    add_element(project, {"type": "text", "text": "x", "font": "art/f.ttf"})
    done = pnp(project, "build")
    assert done.returncode == 1
    assert len(errors(done)) == 1 and errors(done)[0].startswith("layouts/test-spell.json:1:")
    assert "error[bad-asset]" in errors(done)[0]
    assert ("cut short or damaged" if font == "truncated" else "is a font collection (TTC)") in errors(done)[0]


@pytest.mark.parametrize(
    ("svg", "says"),
    [
        ('<svg xmlns="http://www.w3.org/2000/svg" width="inf" height="nan"><circle r="5"/></svg>', "width='inf'"),
        ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1e400 10"><circle r="5"/></svg>', "viewBox="),
        ('<svg xmlns="http://www.w3.org/2000/svg" <<<', "is not a valid SVG file"),
    ],
    ids=["inf and nan sizes", "huge viewBox", "not XML"],
)
def test_a_broken_svg_icon_is_reported_at_icons_json(project: Path, svg: str, says: str) -> None:
    (project / "art" / "icon.svg").write_text(svg)
    icons = json.loads((project / "layouts" / "icons.json").read_text())
    icons["icons"]["attack"]["image"] = "art/icon.svg"
    (project / "layouts" / "icons.json").write_text(json.dumps(icons, indent=2))
    add_element(project, {"type": "text", "text": "hit {attack} now"})
    for command in ("check", "build"):
        done = pnp(project, command)
        assert done.returncode == 1
        assert len(errors(done)) == 1 and errors(done)[0].startswith("layouts/icons.json:")
        assert "error[bad-asset]: icon 'attack': image 'art/icon.svg'" in errors(done)[0] and says in errors(done)[0]


def test_drawing_never_fails_on_an_svg_icon_reportlab_cannot_draw(tmp_path: Path) -> None:
    """pnp check reports such an icon; drawing (sheets, previews) draws the disc instead."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from pnp.drawing.images import draw_icon_image

    (tmp_path / "icon.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="-inf" height="5"><circle r="5"/></svg>'
    )
    assert draw_icon_image(Canvas(io.BytesIO()), tmp_path, {}, "icon.svg", 10, 10, 8) is False


# --- the environment ----------------------------------------------------------------------------


def test_a_plain_file_as_the_output_folder_is_one_line(project: Path) -> None:
    (project / "output").write_text("not a folder")
    done = pnp(project, "build")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pnp: error: cannot write {project / 'output'}: a file stands where a folder should be; nothing was "
        "changed in the output folder (free some space, or make it a writable folder)"
    ]
    assert (project / "output").read_text() == "not a folder"


def test_export_records_into_a_plain_file_output_is_one_line(project: Path) -> None:
    (project / "output").write_text("not a folder")
    done = pnp(project, "export", "records", "--format", "csv")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pnp: error: cannot write {project / 'output' / 'records' / 'test.card.csv'}: a file stands where a "
        "folder should be; nothing more was written"
    ]
    assert (project / "output").read_text() == "not a folder"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [("check", "--format", "text"), ("check", "--format", "json"), ("stats",)])
def test_standard_output_on_a_full_device_is_one_line_and_no_success(project: Path, command: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "pnp", *command],
            cwd=project,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
            timeout=300,
        )
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["pnp: error: cannot write to standard output: No space left on device"]


@pytest.mark.parametrize("where", ["dangling link", "long name", "under a file"])
def test_pnp_new_in_an_impossible_place_is_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "x")
    (tmp_path / "file").write_text("x")
    target = {"dangling link": "dangling", "long name": "b" * 300, "under a file": "file/game"}[where]
    done = pnp(tmp_path, "new", target)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("pnp: error: ")
    said = {"dangling link": "is a symbolic link", "long name": "File name too long", "under a file": "Not a directory"}
    assert said[where] in done.stderr
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("bleed", ["1e400mm", "1e999999999mm", "nanmm", "9" * 5000 + "mm"])
def test_an_absurd_bleed_is_one_line(project: Path, bleed: str) -> None:
    done = pnp(project, "export", "printshop", "--bleed", bleed)
    assert done.returncode == 2
    shown = bleed if len(bleed) < 40 else "9" * 30 + "..." + "999999mm"  # a long value is quoted short
    assert done.stderr.splitlines() == [f"pnp: error: bleed {shown!r} is out of range; use 0 to 25 mm"]


# --- a file name cannot forge a report line -----------------------------------------------------

FORGED = "x.json:1:1: error[forged]: y.json"


@pytest.mark.parametrize("fmt", ["text", "github", "sarif"])
def test_a_file_name_cannot_forge_a_problem_line(project: Path, fmt: str) -> None:
    (project / "cards" / FORGED).write_text('[{"kind": "test.spell", "id": "q", "name": "Q"}]')
    (project / "cards" / "plain name.json").write_text('[{"kind": "test.spell", "id": "r", "name": "R"}]')
    done = pnp(project, "check", "--format", fmt, "--ignore", "outside-safe-zone")  # the layouts' warnings
    assert done.returncode == 1
    if fmt == "text":
        assert done.stdout.splitlines()[:2] == [
            "cards/plain name.json:1:2: error[required-property]: missing required property 'source'; add it (at /0)",
            f"\"cards/{FORGED}\":1:2: error[required-property]: missing required property 'source'; add it (at /0)",
        ]
    elif fmt == "github":
        assert "::error file=cards/x.json%3A1%3A1%3A error[forged]%3A y.json,line=1,col=2," in done.stdout
        assert "::error file=cards/plain name.json,line=1,col=2," in done.stdout
    else:
        uris = [
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(done.stdout)["runs"][0]["results"]
        ]
        assert uris == ["cards/plain name.json", "cards/x.json%3A1%3A1%3A%20error%5Bforged%5D%3A%20y.json"]
    assert "error[forged]" not in "".join(line.split(":", 1)[0] for line in done.stdout.splitlines())


def test_a_layout_file_name_cannot_forge_a_problem_line(project: Path) -> None:
    (project / "layouts" / "l: error[forged]: .json").write_text('{"kinds": ["test.spell"], "size": "poker", "x": 1}')
    done = pnp(project, "check")
    assert done.returncode == 1
    assert errors(done)[0].startswith('"layouts/l: error[forged]: .json":1:')
    assert not any(line.startswith("layouts/l") for line in done.stdout.splitlines())
