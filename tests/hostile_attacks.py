"""Every attack of issue 26 (hostile input, second round) against the real CLI, each on a fresh
copy of tests/build_project: prints the exit status, the time and the first lines of output, and
BAD before any run that ends in a traceback or "internal error". Run by hand after touching a
loader (not collected by pytest; the attacks that misbehaved are regression tests in
test_hostile_round2.py, test_spreadsheet_bounds.py and tests/cases/hostile-*):

    .venv/bin/python tests/hostile_attacks.py [PNP_TREE] [ATTACK ...]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
LONG = "a" * 300


def fresh():
    t = Path(tempfile.mkdtemp(prefix="atk")) / "p"
    shutil.copytree(ROOT / "tests/build_project", t, ignore=shutil.ignore_patterns("output"))
    return t


def add_element(p, el, layout="test-spell.json"):
    path = p / "layouts" / layout
    d = json.loads(path.read_text())
    d["front"]["elements"].append({"name": "atk", "x": 5, "y": 30, "w": 50, "h": 20, **el})
    path.write_text(json.dumps(d))


def icon(p, svg):
    (p / "art" / "icon.svg").write_text(svg)
    d = json.loads((p / "layouts/icons.json").read_text())
    d["icons"]["attack"]["image"] = "art/icon.svg"
    (p / "layouts/icons.json").write_text(json.dumps(d, indent=2))
    add_element(p, {"type": "text", "text": "hit {attack} now"})


def spells_name(p, value):
    s = p / "cards/spells.json"
    s.write_text(s.read_text().replace('"Spell 1"', json.dumps(value), 1))


def run(name, p, *args, stdout=None, cwd=None):
    t = time.monotonic()
    if stdout:
        with open(stdout, "w") as out:
            d = subprocess.run(
                [PY, "-m", "pnp", *args],
                cwd=cwd or p,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                env=ENV,
                timeout=300,
            )
        o = ""
    else:
        d = subprocess.run([PY, "-m", "pnp", *args], cwd=cwd or p, capture_output=True, text=True, env=ENV, timeout=300)
        o = d.stdout
    lines = [x for x in o.splitlines() if "error[" in x or "warning[" in x][:3] + d.stderr.splitlines()[:3]
    bad = "Traceback" in d.stderr or "internal error" in d.stderr or "internal error" in o
    print(f"{'BAD ' if bad else ''}[{name}] {' '.join(args)} -> exit {d.returncode} ({time.monotonic() - t:.1f}s)")
    for line in lines:
        print("    ", line[:300])


A = []


def attack(f):
    A.append(f)
    return f


@attack
def nul_layout():
    p = fresh()
    add_element(p, {"type": "image", "src": "art/a\x00b.png"})
    run("nul in layout", p, "check")
    run("nul in layout", p, "build")


@attack
def long_layout():
    p = fresh()
    add_element(p, {"type": "image", "src": f"art/{LONG}.png"})
    run("long in layout", p, "build")


@attack
def nul_record():
    p = fresh()
    add_element(p, {"type": "image", "src": "{{ name }}"})
    spells_name(p, "art/x\x00.png")
    run("nul in record", p, "check")
    run("nul in record", p, "build")


@attack
def long_record():
    p = fresh()
    add_element(p, {"type": "image", "src": "{{ name }}"})
    spells_name(p, f"art/{LONG}.png")
    run("long in record", p, "check")
    run("long in record", p, "build")


@attack
def long_template():
    p = fresh()
    add_element(p, {"type": "image", "src": "art/{{ name * 60 }}.png"})
    run("long from template", p, "build")


@attack
def nul_font():
    p = fresh()
    add_element(p, {"type": "text", "text": "x", "font": "art/a\x00.ttf"})
    run("nul in font", p, "check")
    run("nul in font", p, "build")


@attack
def long_font():
    p = fresh()
    add_element(p, {"type": "text", "text": "x", "font": f"art/{LONG}.ttf"})
    run("long font", p, "build")


@attack
def yaml_int_record():
    p = fresh()
    (p / "cards/big.yaml").write_text("- kind: test.spell\n  id: big\n  name: Big\n  level: " + "9" * 5000)
    run("yaml big int record", p, "check")


@attack
def yaml_int_layout():
    p = fresh()
    d = json.loads((p / "layouts/test-spell.json").read_text())
    (p / "layouts/test-spell.json").unlink()
    import yaml

    txt = (
        yaml.safe_dump(d).replace("bleed: 3", "bleed: " + "9" * 5000)
        if "bleed: 3" in yaml.safe_dump(d)
        else yaml.safe_dump(d) + "safe: " + "9" * 5000 + "\n"
    )
    (p / "layouts/test-spell.yaml").write_text(txt)
    run("yaml big int layout", p, "check")


@attack
def yaml_nan():
    p = fresh()
    (p / "cards/big.yaml").write_text("- kind: test.spell\n  id: big\n  name: Big\n  level: .nan\n")
    run("yaml .nan", p, "check")


@attack
def yaml_nan_layout():
    p = fresh()
    (p / "layouts/x.yaml").write_text("extends: test-spell\nkind: test.spell\nsafe: .nan\n")
    run("yaml .nan layout", p, "check")


@attack
def fonts():
    real = (ROOT / "pnp/fonts/DejaVuSans.ttf").read_bytes()
    for n, data in [
        ("truncated font", real[:5000]),
        ("ttc font", b"ttcf\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x10" + real),
        ("empty font", b""),
    ]:
        p = fresh()
        (p / "art/f.ttf").write_bytes(data)
        add_element(p, {"type": "text", "text": "x", "font": "art/f.ttf"})
        run(n, p, "check")
        run(n, p, "build")


@attack
def svgs():
    for n, svg in [
        ("svg inf", '<svg xmlns="http://www.w3.org/2000/svg" width="inf" height="nan"><circle r="5"/></svg>'),
        ("svg -inf", '<svg xmlns="http://www.w3.org/2000/svg" width="-inf" height="5"><circle r="5"/></svg>'),
        ("svg zero", '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"><circle r="5"/></svg>'),
        ("svg broken", '<svg xmlns="http://www.w3.org/2000/svg" <<<'),
        ("svg not svg", "<html/>"),
        ("svg empty", ""),
    ]:
        p = fresh()
        icon(p, svg)
        run(n, p, "check")
        run(n, p, "build")


@attack
def svg_image_element():
    p = fresh()
    (p / "art/x.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="inf" height="nan"/>')
    add_element(p, {"type": "image", "src": "art/x.svg"})
    run("svg image element inf", p, "check")
    run("svg image element inf", p, "build")


@attack
def output_file():
    for cmd in (
        ["build"],
        ["check"],
        ["export", "png"],
        ["export", "printshop"],
        ["export", "records", "--format", "csv"],
    ):
        p = fresh()
        (p / "output").write_text("x")
        run("output is a file", p, *cmd)


@attack
def full():
    for cmd in (
        ["check"],
        ["check", "--format", "sarif"],
        ["stats"],
        ["translate", "status"],
        ["build"],
        ["--help"],
        ["list"],
    ):
        p = fresh()
        run("stdout /dev/full", p, *cmd, stdout="/dev/full")


@attack
def new_places():
    t = Path(tempfile.mkdtemp(prefix="atknew"))
    (t / "dangling").symlink_to(t / "nowhere/x")
    (t / "file").write_text("x")
    os.mkdir(t / "ro")
    os.chmod(t / "ro", 0o500)
    for target in ("dangling", "b" * 300, "file/game", "ro/game", "/proc/game", "", "a/" + "b" * 300 + "/c"):
        run("pnp new", t, "new", target, cwd=t)


@attack
def bleeds():
    for b in ("1e400mm", "nanmm", "-1mm", "1e308in", "infmm", "9" * 5000 + "mm"):
        p = fresh()
        run("bleed", p, "export", "printshop", "--bleed", b)


@attack
def pipe_folder():
    p = fresh()
    os.mkfifo(p / "art/pipe.png")
    (p / "art/folder.png").mkdir()
    add_element(p, {"type": "image", "src": "art/pipe.png"})
    add_element(p, {"type": "image", "src": "art/folder.png"}, "test-card.json")
    run("pipe/folder image", p, "check")
    run("pipe/folder image", p, "build")


@attack
def pipe_record():
    p = fresh()
    os.mkfifo(p / "art/pipe.png")
    add_element(p, {"type": "image", "src": "{{ name }}"})
    spells_name(p, "art/pipe.png")
    run("pipe image via record", p, "check")


@attack
def pipe_font():
    p = fresh()
    os.mkfifo(p / "art/f.ttf")
    add_element(p, {"type": "text", "text": "x", "font": "art/f.ttf"})
    run("pipe font", p, "check")
    run("pipe font", p, "build")


@attack
def folder_empty():
    p = fresh()
    t = p / "pnp.toml"
    t.write_text(t.read_text().replace('folder = "test"', 'folder = ""'))
    run('folder = ""', p, "check")
    run('folder = ""', p, "build")
    run('folder = ""', p, "export", "printshop")
    for v in ('"."', '".."', '"/"', '"a/../.."', '"a\\u0000b"', '"' + "x" * 300 + '"'):
        p = fresh()
        t = p / "pnp.toml"
        t.write_text(t.read_text().replace('folder = "test"', f"folder = {v}"))
        run(f"folder = {v[:20]}", p, "build")


@attack
def forged():
    name = "x.json:1:1: error[forged]: y.json"
    for fmt in ("text", "github", "sarif", "json"):
        p = fresh()
        (p / "cards" / name).write_text('[{"kind": "test.spell", "id": "q", "name": "Q"}]')
        run(f"forged name {fmt}", p, "check", "--format", fmt)
    p = fresh()
    (p / "layouts" / ("l: error[forged]: .json")).write_text(
        '{"kind": "test.spell", "size": "poker", "front": {"elements": [{"type": "bogus"}]}}'
    )
    run("forged layout name", p, "check")
    p = fresh()
    (p / "art" / "a: error[x]: b.png").write_text("no")
    add_element(p, {"type": "image", "src": "art/a: error[x]: b.png"})
    run("forged image name", p, "check")


only = sys.argv[2:]
for f in A:
    if not only or f.__name__ in only:
        f()
