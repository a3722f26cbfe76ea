"""A stranger's review: attacks on a project made by `pnp new`, as a designer outside this
repository has it, through the CLI (in this process: tests/runpnp.py). Each test is one defect
found by that review."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.rasterise import pages
from tests.runpnp import Ran
from tests.runpnp import run as pnp

ROOT = Path(__file__).resolve().parents[1]
GREEN = (0, 255, 0)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pnp new "Ember Wild"`, once for the module."""
    folder = tmp_path_factory.mktemp("made")
    done = pnp(folder, "new", "Ember Wild")
    assert done.returncode == 0, done.stderr
    return folder / "ember-wild"


@pytest.fixture()
def project(made: Path, tmp_path: Path) -> Path:
    target = tmp_path / "ember-wild"
    shutil.copytree(made, target)
    return target


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    """A folder beside the project, which nothing of the project may reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def assert_no_traceback(done: Ran) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr


def green_png(path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (20, 20), GREEN).save(path)


def edit_json(path: Path, change: object) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.mark.parametrize("ref", ["other.schema.json", "file:///etc/passwd", "../../etc/passwd"])
def test_a_ref_to_no_schema_of_the_folder_is_a_configuration_error(project: Path, ref: str) -> None:
    """A typo in a $ref file name was `pnp: internal error: ValueError` (the registry refused it)."""
    schema = project / "schemas" / "emberwild.card.schema.json"
    edit_json(schema, lambda s: s["properties"].update(cost={"$ref": ref}))
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith(f"pnp: error: {schema}: "), line
    assert "$ref" in line, line


def test_a_schema_linked_out_of_the_project_is_not_read(project: Path, outside: Path) -> None:
    """A schema file that is a link to a file elsewhere was read (its content parsed)."""
    (outside / "x.schema.json").write_text('{"$id": "https://elsewhere.invalid/x.schema.json"}')
    (project / "schemas" / "x.schema.json").symlink_to(outside / "x.schema.json")
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 2
    assert "x.schema.json: a symbolic link to" in done.stderr and "outside the project" in done.stderr


@pytest.mark.parametrize("name", ["extra.json", "extra.yaml", "icons.json"])
def test_a_layout_file_linked_out_of_the_project_is_reported_not_read(project: Path, outside: Path, name: str) -> None:
    """Layout files and layouts/icons.json that link to a file elsewhere were read and used."""
    target = outside / name
    shutil.copy(project / "layouts" / ("icons.json" if name == "icons.json" else "emberwild.card.json"), target)
    link = project / "layouts" / name
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 1
    assert (
        f"layouts/{name}:1:1: error[unreadable-file]: a symbolic link to {target}, outside the project" in done.stdout
    )
    if name == "icons.json":  # not used either: the records' {coin} is unknown
        assert "error[unknown-icon]: unknown icon {coin}" in done.stdout


def test_an_svg_icon_never_draws_a_file_outside_the_project(project: Path, outside: Path) -> None:
    """svglib followed an SVG's <image href="../../x.png"> to any file: the build embedded it."""
    green_png(outside / "secret.png")
    (project / "art").mkdir()
    (project / "art" / "coin.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
        '<rect width="10" height="10" fill="#c9a227"/>'
        '<image xlink:href="../../outside/secret.png" width="10" height="10"/></svg>'
    )
    edit_json(project / "layouts" / "icons.json", lambda d: d["icons"]["coin"].update(image="art/coin.svg"))
    done = pnp(project, "build")
    assert_no_traceback(done)
    assert done.returncode == 0, done.stdout + done.stderr
    page = pages(project / "output" / "ember-wild" / "emberwild.card.pdf", dpi=100)[0]
    colours = {colour for _count, colour in page.getcolors(1 << 20) or []}
    assert (0xC9, 0xA2, 0x27) in colours  # the SVG icon itself is drawn
    assert GREEN not in colours


def test_a_raster_icon_over_image_pixels_is_reported_by_check(project: Path) -> None:
    """A decompression-bomb PNG icon passed `pnp check` and was handed to the decoder by build."""
    from tests.test_hostile import huge_png

    (project / "art").mkdir()
    huge_png(project / "art" / "coin.png")
    edit_json(project / "layouts" / "icons.json", lambda d: d["icons"]["coin"].update(image="art/coin.png"))
    done = pnp(project, "check", "--no-render")
    assert_no_traceback(done)
    assert done.returncode == 1
    line = next(
        n
        for n, text in enumerate((project / "layouts" / "icons.json").read_text().splitlines(), 1)
        if "coin.png" in text
    )
    assert f"layouts/icons.json:{line}:" in done.stdout
    # its header's size, read without decoding it (pnp.core.pngfile)
    assert (
        "error[bad-asset]: icon 'coin': image 'art/coin.png' has 100000 x 100000 pixels, over the limit" in done.stdout
    )
    assert "(image-pixels)" in done.stdout


@pytest.mark.parametrize("where", ["link", "fifo"])
def test_the_check_cache_is_read_only_as_a_regular_file(project: Path, outside: Path, where: str) -> None:
    """A named pipe planted as output/.pnp-cache/KIND.json made `pnp check` hang."""
    assert pnp(project, "check").returncode == 0
    cache = project / "output" / ".pnp-cache" / "emberwild.card.json"
    cache.unlink()
    if where == "fifo":
        os.mkfifo(cache)
    else:
        (outside / "cache.json").write_text("canary")
        cache.symlink_to(outside / "cache.json")
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 0, done.stdout
    assert cache.is_file() and not cache.is_symlink()  # replaced by a real cache
    if where == "link":
        assert (outside / "cache.json").read_text() == "canary"


def test_numbers_of_yaml_and_csv_records_are_read_as_json_reads_them(project: Path) -> None:
    """A YAML or CSV integer beyond 64 bits was `pnp: internal error: TypeError: Integer exceeds
    64-bit range` (records are digested as JSON); one beyond any float is a located problem."""
    cards = project / "cards"
    (cards / "big.csv").write_text("kind,id,name,copies\nemberwild.card,big,Big,999999999999999999999\n")
    (cards / "huge.yaml").write_text(f"kind: emberwild.card\nid: huge\nname: Huge\ncost: 9{'0' * 400}\n")
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 1
    assert "cards/big.csv:2:4: error[limit-exceeded]: 1000000000000000000000 copies of record 'big'" in done.stdout
    assert "cards/huge.yaml:4:7: error[json-syntax]: number is too large" in done.stdout
    assert "huge.yaml:4:7: error[type-mismatch]" not in done.stdout  # one problem, not a second about a stand-in


def test_copies_written_as_a_whole_float_count_and_draw_as_that_many(project: Path) -> None:
    """`"copies": 2.0` passes the schema's "integer" (JSON has one number type) but was counted
    and drawn as 1 copy, so the component count failed with no hint why."""
    cards = project / "cards" / "cards.json"
    cards.write_text(cards.read_text().replace('"copies": 2,', '"copies": 2.0,'))
    done = pnp(project, "build")
    assert_no_traceback(done)
    assert done.returncode == 0, done.stdout
    from pypdf import PdfReader

    text = PdfReader(project / "output" / "ember-wild" / "emberwild.card.pdf").pages[0].extract_text()
    assert text.count("Fire Imp") == 2


def test_a_file_name_cannot_add_lines_to_the_text_report(project: Path) -> None:
    """A record file named "a<newline>::error file=x::forged.json" printed a line of its own, which
    a CI log reads as a problem (or a GitHub workflow command) pnp never reported."""
    name = "a\n::error file=README.md::forged.json"
    (project / "cards" / name).write_text('{"kind": "emberwild.card", "id": "x", "name": "X", "cost": "x"}')
    done = pnp(project, "check")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert not [line for line in lines if line.startswith("::")], lines
    assert '"cards/a\\n::error file=README.md::forged.json":1:' in done.stdout  # quoted: it holds colons
    assert len(lines) == 3  # the forged file's problem, the count the extra record breaks, the summary


def test_a_sheet_image_over_image_pixels_is_a_located_problem(project: Path) -> None:
    """A sheet's image block handed a decompression bomb to the decoder:
    `pnp: internal error: DecompressionBombError`, from check and build alike."""
    from tests.test_hostile import huge_png

    (project / "art").mkdir()
    huge_png(project / "art" / "bomb.png")
    sheet = project / "sheets" / "cards.yaml"
    sheet.write_text(sheet.read_text().replace("blocks:\n", "blocks:\n  - type: image\n    src: art/bomb.png\n", 1))
    line = sheet.read_text().splitlines().index("    src: art/bomb.png") + 1
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        assert done.returncode == 1, done.stdout
        assert (
            f"sheets/cards.yaml:{line}:10: error[sheet-error]: image 'art/bomb.png' has 100000 x 100000 pixels"
            in done.stdout
        )


@pytest.mark.parametrize("attack", ["fifo", "link out", "deep nesting"])
def test_a_hostile_project_file_is_one_configuration_line(project: Path, outside: Path, attack: str) -> None:
    """pnp.toml as a pipe was skipped ("no pnp.toml ... or any folder above", or a parent project
    used instead), as a link it was read from anywhere, nested 100,000 deep it was an internal error."""
    toml = project / "pnp.toml"
    if attack == "fifo":
        toml.unlink()
        os.mkfifo(toml)
        expected = "a named pipe (FIFO), not a regular file"
    elif attack == "link out":
        shutil.copy(toml, outside / "pnp.toml")
        toml.unlink()
        toml.symlink_to(outside / "pnp.toml")
        expected = "outside the project"
    else:
        toml.write_text(toml.read_text() + "\n[x]\ny = " + "[" * 100_000 + "]" * 100_000 + "\n")
        expected = "not valid TOML: nested too deeply"
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 2
    assert done.stderr.startswith(f"pnp: error: {toml}: ") and expected in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1


def test_a_pattern_that_is_no_regular_expression_says_so(project: Path) -> None:
    """The message told a designer with an unclosed "(" in a pattern to check their $ref values."""
    schema = project / "schemas" / "emberwild.card.schema.json"
    edit_json(schema, lambda s: s["properties"].update(name={"type": "string", "pattern": "(a"}))
    done = pnp(project, "check")
    assert done.returncode == 2
    assert done.stderr.startswith(f"pnp: error: {schema}: ") and '"(a" is not a "regex"' in done.stderr
    assert "$ref" not in done.stderr and "regular expression" in done.stderr


@pytest.mark.parametrize(("element", "key"), [(5, "leading"), (0, "radius")])
def test_a_layout_measure_no_pdf_can_hold_is_a_located_layout_error(project: Path, element: int, key: str) -> None:
    """`"x": 1e308` passed the layout schema and reached reportlab: `pnp: internal error:
    ValueError: _fp_one failed ... number too large`, from check and build alike."""
    layout = project / "layouts" / "emberwild.card.json"
    edit_json(layout, lambda d: d["front"]["elements"][element].update({key: 1e300}))
    line = next(n for n, text in enumerate(layout.read_text().splitlines(), 1) if "1e+300" in text)
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        assert done.returncode == 1, done.stdout
        assert f"layouts/emberwild.card.json:{line}:" in done.stdout
        assert "error[layout-error]: 1e+300 is too large" in done.stdout
        assert f"(at /front/elements/{element}/{key})" in done.stdout


def solid_png(path: Path, colour: tuple[int, int, int]) -> None:
    from PIL import Image

    Image.new("RGB", (20, 20), colour).save(path)


@pytest.mark.parametrize("drawn_as", ["icon", "image src template"])
def test_a_changed_picture_is_never_called_up_to_date(project: Path, drawn_as: str) -> None:
    """A picture named by icons.json, or by a record through `"src": "{{ art }}"` (no `x-asset` in
    the schema), was no input of the kind's digest: after it changed, `pnp build` said
    "0 written, 2 up to date" and kept the old picture."""
    (project / "art").mkdir()
    picture = project / "art" / "coin.png"
    solid_png(picture, (255, 0, 0))
    if drawn_as == "icon":
        edit_json(project / "layouts" / "icons.json", lambda d: d["icons"]["coin"].update(image="art/coin.png"))
    else:
        edit_json(
            project / "schemas" / "emberwild.card.schema.json",
            lambda s: s["properties"].update(art={"type": "string"}),
        )
        edit_json(project / "cards" / "cards.json", lambda r: r[0].update(art="art/coin.png"))
        image = {"name": "art", "type": "image", "x": 5, "y": 20, "w": 20, "h": 20, "src": "{{ art }}"}
        edit_json(project / "layouts" / "emberwild.card.json", lambda d: d["front"]["elements"].append(image))
    cards = project / "output" / "ember-wild" / "emberwild.card.pdf"
    assert pnp(project, "build").returncode == 0
    first = cards.read_bytes()
    solid_png(picture, (0, 0, 255))
    done = pnp(project, "build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote output/ember-wild/emberwild.card.pdf" in done.stderr
    assert cards.read_bytes() != first
    colours = {colour for _count, colour in pages(cards, dpi=100)[0].getcolors(1 << 20) or []}
    assert (0, 0, 255) in colours and (255, 0, 0) not in colours


def test_a_minimum_text_size_under_its_limit_points_at_min_size(project: Path) -> None:
    """The text-min-pt problem pointed at the element's `size`, not at the `min_size` to edit."""
    layout = project / "layouts" / "emberwild.card.json"
    edit_json(layout, lambda d: d["front"]["elements"][5].update(min_size=0.0001))
    line = next(n for n, text in enumerate(layout.read_text().splitlines(), 1) if '"min_size": 0.0001' in text)
    done = pnp(project, "check")
    assert done.returncode == 1
    assert f"layouts/emberwild.card.json:{line}:" in done.stdout and "(text-min-pt)" in done.stdout
    assert "(at /front/elements/5/min_size)" in done.stdout


def test_a_project_file_saved_with_a_byte_order_mark_is_read(project: Path) -> None:
    """Notepad's "UTF-8 with BOM" pnp.toml was `not valid TOML: Invalid statement (at line 1, column 1)`."""
    toml = project / "pnp.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes().replace(b"\n", b"\r\n"))
    done = pnp(project, "check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_invalid_utf8_in_a_yaml_file_is_located_at_the_byte(project: Path) -> None:
    """A YAML record or sheet with a byte that is not UTF-8 was located at 1:1, not at the byte."""
    (project / "cards" / "y.yaml").write_bytes(b'kind: emberwild.card\r\nid: yy\r\nname: "Y\xffY"\r\n')
    sheet = project / "sheets" / "cards.yaml"
    lines = sheet.read_bytes().split(b"\n")
    number = next(i for i, line in enumerate(lines) if line.startswith(b"title:"))
    lines[number] = b'title: "Ember \xff Wild"'
    sheet.write_bytes(b"\n".join(lines))
    done = pnp(project, "check")
    assert done.returncode == 1
    assert "cards/y.yaml:3:9: error[invalid-encoding]: byte 0xff is not valid UTF-8" in done.stdout
    assert f"sheets/cards.yaml:{number + 1}:15: error[invalid-encoding]" in done.stdout


def test_a_layout_with_a_mistake_is_not_also_called_missing(project: Path) -> None:
    """One wrong value in a layout gave a second, false line: "kind 'emberwild.card' has records
    but no layout ... add a layout listing it in 'kinds'" (it does list it)."""
    edit_json(project / "layouts" / "emberwild.card.json", lambda d: d["front"]["elements"][5].update(h=-5))
    done = pnp(project, "check")
    assert done.returncode == 1
    assert "error[layout-error]: -5 is less than the minimum of 0" in done.stdout
    assert "missing-layout" not in done.stdout


def test_two_schemas_with_one_id_is_a_configuration_error(project: Path) -> None:
    """A schema copied to make a new kind, its "$id" kept, silently replaced the first: the first
    kind's records were then checked against the copy (errors on records that are right)."""
    schemas = project / "schemas"
    copy = json.loads((schemas / "emberwild.card.schema.json").read_text())
    copy["properties"]["kind"] = {"const": "emberwild.token"}
    (schemas / "emberwild.token.schema.json").write_text(json.dumps(copy))
    done = pnp(project, "check")
    assert done.returncode == 2
    assert done.stderr.startswith(f"pnp: error: {schemas / 'emberwild.token.schema.json'}: ")
    assert 'is also the "$id" of emberwild.card.schema.json' in done.stderr


@pytest.mark.parametrize(
    ("settings", "where"),
    [
        ('output = "."', "is the project folder"),
        ('output = "layouts"', "is the layouts folder"),
        ('records = "."', "lies in the records folder"),
    ],
)
def test_an_output_folder_pnp_would_read_back_is_a_configuration_error(
    project: Path, settings: str, where: str
) -> None:
    """With output = "cards", `pnp export records` wrote cards/records/*.json, which the next check
    read as records (duplicate-id everywhere); with output = "layouts" the manifest was read as a
    layout (layout-error at layouts/.pnp-manifest.json)."""
    toml = project / "pnp.toml"
    key = settings.split(" ")[0]
    text = "\n".join(settings if line.startswith(f"{key} =") else line for line in toml.read_text().splitlines())
    toml.write_text(text + "\n")
    line = next(n for n, text in enumerate(toml.read_text().splitlines(), 1) if text.startswith("output ="))
    done = pnp(project, "check")
    assert done.returncode == 2
    assert f"pnp.toml:{line}:1: error[config-error]: [project] output = " in done.stdout + done.stderr
    assert where in done.stdout + done.stderr


def test_a_changed_limit_is_never_answered_from_the_check_cache(project: Path) -> None:
    """Raising text-min-pt to 100 after a clean check gave "0 errors" again: the cache of what
    drawing found (and the build's digests) did not depend on [limits]."""
    assert pnp(project, "check").returncode == 0
    toml = project / "pnp.toml"
    toml.write_text(toml.read_text() + "\n[limits]\ntext-min-pt = 100\n")
    done = pnp(project, "check")
    assert done.returncode == 1
    assert "(text-min-pt)" in done.stdout
    assert pnp(project, "build").returncode == 1


@pytest.mark.parametrize(
    ("table", "setting", "expected"),
    [
        ("build", 'paper = "nanxnanmm"', "unknown paper"),
        ("project", "max-file-mb = nan", "must be a positive number"),
    ],
)
def test_not_a_number_in_pnp_toml_is_a_located_configuration_error(
    project: Path, table: str, setting: str, expected: str
) -> None:
    """TOML has nan and inf: paper = "nanxnanmm" and max-file-mb = nan were internal errors."""
    toml = project / "pnp.toml"
    lines = [line for line in toml.read_text().splitlines() if not line.startswith(setting.split(" ")[0] + " ")]
    at = lines.index(f"[{table}]") + 1
    lines.insert(at, setting)
    toml.write_text("\n".join(lines) + "\n")
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 2
    assert f"pnp.toml:{at + 1}:1: error[config-error]" in done.stdout + done.stderr
    assert expected in done.stdout + done.stderr


def test_an_id_of_any_length_exports_to_files(project: Path) -> None:
    """A 300-character id passed `pnp check` (kebab-case) but `pnp export png` and `gallery` died
    with `internal error: OSError: [Errno 36] File name too long`."""
    long_id = "a" * 300
    edit_json(project / "cards" / "cards.json", lambda r: (r[1].update(id=long_id), r[0].pop("counters")))
    assert pnp(project, "check").returncode == 0
    for fmt in ("png", "gallery"):
        done = pnp(project, "export", fmt)
        assert_no_traceback(done)
        assert done.returncode == 0, done.stderr
    names = [p.name for p in (project / "output" / "ember-wild" / "png" / "emberwild.card").iterdir()]
    assert all(len(name.encode()) < 255 for name in names)
    assert len([name for name in names if name.startswith("a" * 100)]) == 2  # front and back


def test_a_file_name_cannot_add_lines_to_a_configuration_error(project: Path) -> None:
    """The one `pnp: error:` line of a configuration error printed a schema file's name as is: a
    name with a line break added a line (a GitHub workflow command) to stderr."""
    schemas = project / "schemas"
    shutil.copy(schemas / "common.schema.json", schemas / "x\n::error file=README.md::forged.schema.json")
    done = pnp(project, "check")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "x\\n::error file=README.md::forged.schema.json" in done.stderr


@pytest.mark.parametrize(
    ("where", "text", "line_col"),
    [
        ("cards/r.yaml", "kind: emberwild.card\nid: rec\nname: Rec\nnote: &a [1, *a]\n", "4:7"),
        ("layouts/r.yaml", "kinds: [emberwild.card]\nfront: &f {elements: [], x: *f}\n", "2:8"),
    ],
)
def test_a_yaml_alias_of_itself_is_a_located_problem(project: Path, where: str, text: str, line_col: str) -> None:
    """`note: &a [1, *a]` (four lines of YAML) made an endless value: an internal error
    (Recursion limit reached), or with later walks of the records, a check that never ended."""
    (project / where).write_text(text)
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 1
    assert f"{where}:{line_col}: error[json-syntax]: YAML: this value holds an alias (*name) of itself" in done.stdout


def test_a_font_family_file_that_is_no_font_is_one_line(project: Path) -> None:
    """The static check names the family's `regular` file; drawing, meeting the element's `font`,
    must not report the same mistake a second time (every mistake is one located line)."""
    (project / "fonts").mkdir()
    (project / "fonts" / "Fake.ttf").write_text("not a font")
    layout = project / "layouts" / "emberwild.card.json"
    data = json.loads(layout.read_text())
    data["front"]["elements"][1]["font"] = {"regular": "fonts/Fake.ttf"}
    layout.write_text(json.dumps(data, indent=2))
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        lines = [line for line in done.stdout.splitlines() if "error[" in line]
        assert done.returncode == 1 and len(lines) == 1, done.stdout
        assert "error[bad-asset]" in lines[0] and lines[0].endswith("(at /front/elements/1/font/regular)")


def test_copies_a_layout_template_gives_over_the_limit_point_at_that_template(project: Path) -> None:
    layout = project / "layouts" / "emberwild.card.json"
    data = json.loads(layout.read_text())
    data["copies"] = "{{ 100000 }}"
    layout.write_text(json.dumps(data, indent=2))
    line = next(n for n, text in enumerate(layout.read_text().splitlines(), 1) if '"copies"' in text)
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        errors = [text for text in done.stdout.splitlines() if "error[" in text]
        assert done.returncode == 1 and errors, done.stdout
        assert all(text.startswith(f"layouts/emberwild.card.json:{line}:") for text in errors), errors
        assert all("error[limit-exceeded]" in text and text.endswith("(at /copies)") for text in errors)


def test_a_sheet_file_that_is_a_link_out_or_a_pipe_is_a_located_problem(project: Path, outside: Path) -> None:
    """Never skipped in silence (the sheet would just be missing from the build)."""
    (outside / "evil.yaml").write_text("title: from outside\nblocks: []\n")
    (project / "sheets" / "evil.yaml").symlink_to(outside / "evil.yaml")
    os.mkfifo(project / "sheets" / "pipe.yaml")
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        assert done.returncode == 1, done.stdout
        assert "sheets/evil.yaml:1:1: error[unreadable-file]: a symbolic link to " in done.stdout
        assert "sheets/pipe.yaml:1:1: error[unreadable-file]: a named pipe (FIFO)" in done.stdout
    assert "from outside" not in done.stdout


def test_a_pipe_in_the_layouts_folder_is_a_located_problem(project: Path) -> None:
    os.mkfifo(project / "layouts" / "pipe.json")
    done = pnp(project, "check")
    assert_no_traceback(done)
    assert done.returncode == 1 and "layouts/pipe.json:1:1: error[unreadable-file]: a named pipe" in done.stdout


def test_a_record_file_that_does_not_parse_is_one_line_not_also_a_count_mismatch(project: Path) -> None:
    """The component list counts the cards of a file pnp could not read: what it holds is
    unknown, so no count-mismatch follows the one located syntax error."""
    cards = project / "cards" / "cards.json"
    text = cards.read_text()
    cards.write_text(text[: len(text) // 2])  # a half-saved file
    for command in ("check", "build"):
        done = pnp(project, command)
        assert_no_traceback(done)
        errors = [line for line in done.stdout.splitlines() if "error[" in line]
        assert done.returncode == 1 and len(errors) == 1, done.stdout
        assert errors[0].startswith("cards/cards.json:") and "error[json-syntax]" in errors[0]
