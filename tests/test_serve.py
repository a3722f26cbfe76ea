"""`pnp watch --serve`: the live proof page in headless chromium, and a server that names no file.

The page is driven in Debian's chromium through selenium (the fixture of tests/test_export.py);
files are edited on disk as an editor would save them, and the images the page shows are read
back as pixels from the page itself.
"""

from __future__ import annotations

import base64
import io
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from test_export import browser  # noqa: F401 - the same headless chromium, skipped when absent
from watchkit import WatchProcess, copy_fixture, wait_until

BAND = (190, 58)  # a pixel of the card's top band at 100 dpi (x 48 mm, y 14.7 mm), clear of text
RED, GREEN = (0xC0, 0x39, 0x2B), (0x1E, 0x84, 0x49)

PIXELS_JS = """
const figure = [...document.querySelectorAll('figure.card')].find(f => f.dataset.key === arguments[0]);
const img = figure && figure.querySelector('img.front');
if (!img || !img.complete || !img.naturalWidth) return null;
const canvas = document.createElement('canvas');
canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
canvas.getContext('2d').drawImage(img, 0, 0);
return [img.getAttribute('src'), canvas.toDataURL('image/png')];
"""


@pytest.fixture()
def watched(tmp_path: Path) -> Iterator[tuple[Path, WatchProcess]]:
    project = copy_fixture(tmp_path)
    process = WatchProcess(project, "--serve", "--port", "0", "--no-build")
    try:
        yield project, process
    finally:
        process.close()


def shown(driver, key: str) -> tuple[str, Image.Image] | None:  # type: ignore[no-untyped-def]
    """The front image of a card as the page shows it: its URL and its pixels."""
    found = driver.execute_script(PIXELS_JS, key)
    if not found:
        return None
    src, data_url = found
    with Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))) as image:
        return src, image.convert("RGB")


def near(pixel: tuple[int, ...], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(pixel, colour, strict=False))


def problem_lines(driver) -> list[str]:  # type: ignore[no-untyped-def]
    return driver.execute_script("return [...document.querySelectorAll('#problems li')].map(li => li.textContent)")


def test_page_follows_every_save(watched: tuple[Path, WatchProcess], browser) -> None:  # type: ignore[no-untyped-def] # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    project, process = watched
    browser.get(process.url)
    wait_until(lambda: browser.execute_script("return document.querySelectorAll('figure.card').length") == 5)
    first = wait_until(lambda: shown(browser, "demo.card:ember"), what="the first card's image")
    src, before = first  # type: ignore[misc]
    assert before.size == (248, 346)  # 63 x 88 mm at 100 dpi
    assert near(before.getpixel(BAND), RED)
    assert browser.execute_script("return document.getElementById('problems-title').textContent") == "No problems"
    browser.execute_script("window.notReloaded = true")

    # a record's name: only that card's image changes
    cards = project / "cards" / "cards.json"
    records = json.loads(cards.read_text())
    sources = "return [...document.querySelectorAll('figure.card img.front')].map(i => i.getAttribute('src'))"
    others = browser.execute_script(sources)[1:]  # tide, gale, coin, star
    records[0]["name"] = "Blazing Ember"
    cards.write_text(json.dumps(records, indent=2) + "\n")
    renamed = wait_until(
        lambda: (s := shown(browser, "demo.card:ember")) and s[0] != src and s, what="the renamed card's new image"
    )
    src, after = renamed  # type: ignore[misc]
    title = (16, 12, 180, 52)  # where the title is drawn
    assert after.crop(title).tobytes() != before.crop(title).tobytes()
    assert near(after.getpixel(BAND), RED)
    assert browser.execute_script(sources)[1:] == others  # only the renamed card's image changed
    assert browser.execute_script(
        "const f = document.querySelector('figure.changed'); const r = f.getBoundingClientRect();"
        "return f.dataset.key === 'demo.card:ember' && r.top >= 0 && r.bottom <= window.innerHeight"
    )

    # a card below the fold: the page scrolls to it
    browser.set_window_size(900, 500)
    browser.execute_script("window.scrollTo(0, 0)")
    in_view = (
        "const f = [...document.querySelectorAll('figure.card')].find(f => f.dataset.key === arguments[0]);"
        "const r = f.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight"
    )
    assert not browser.execute_script(in_view, "demo.token:star")
    tokens = project / "cards" / "tokens.json"
    tokens.write_text(tokens.read_text().replace('"Star"', '"Comet"'))
    wait_until(
        lambda: browser.execute_script(in_view, "demo.token:star"), what="the page to scroll to the changed card"
    )
    assert browser.execute_script("return document.querySelector('figure.changed').dataset.key") == "demo.token:star"
    browser.set_window_size(1400, 1000)

    # a layout colour: every card of the kind changes
    layout = project / "layouts" / "demo-card.json"
    layout.write_text(layout.read_text().replace('"fill": "#c0392b"', '"fill": "#1e8449"'))
    recoloured = wait_until(
        lambda: (s := shown(browser, "demo.card:ember")) and s[0] != src and s, what="the recoloured card"
    )
    src, green = recoloured  # type: ignore[misc]
    assert near(green.getpixel(BAND), GREEN), green.getpixel(BAND)
    assert near(wait_until(lambda: shown(browser, "demo.card:gale"))[1].getpixel(BAND), GREEN)  # type: ignore[index]

    # a broken save: the located problem on the page; the cards stay as they were
    good = cards.read_text()
    cards.write_text(good.replace('"id": "tide",', '"id": "tide"', 1))
    line = next(i for i, text in enumerate(good.splitlines(), 1) if '"id": "tide"' in text) + 1
    lines = wait_until(lambda: problem_lines(browser), what="the located problem")
    assert any(re.match(rf"cards/cards\.json:{line}:\d+: error\[json-syntax\]: ", text) for text in lines), lines
    assert browser.execute_script("return document.querySelectorAll('figure.card.stale').length") == 3
    # the next good save clears it
    cards.write_text(good)
    wait_until(lambda: not problem_lines(browser), what="the problem to clear")
    assert browser.execute_script("return document.getElementById('problems-title').textContent") == "No problems"
    assert browser.execute_script("return document.querySelectorAll('figure.card.stale').length") == 0

    # a record's problem beside its card; the filters
    records[2]["cost"] = 12
    cards.write_text(json.dumps(records, indent=2) + "\n")
    beside = wait_until(
        lambda: browser.execute_script(
            "return [...document.querySelectorAll('figure.has-problems')].map(f => [f.dataset.key, f.textContent])"
        ),
        what="a card with a problem",
    )
    assert [key for key, _ in beside] == ["demo.card:gale"]  # type: ignore[union-attr]
    assert re.search(r"cards/cards\.json:\d+:\d+: error\[out-of-range\]", beside[0][1])  # type: ignore[index]
    visible = "return [...document.querySelectorAll('figure.card')].filter(f => f.offsetParent).map(f => f.dataset.key)"
    browser.find_element(By.ID, "only-problems").click()
    assert browser.execute_script(visible) == ["demo.card:gale"]
    browser.find_element(By.ID, "only-problems").click()
    Select(browser.find_element(By.ID, "kind")).select_by_value("demo.token")
    assert browser.execute_script(visible) == ["demo.token:coin", "demo.token:star"]

    assert browser.execute_script("return window.notReloaded") is True  # all without a reload
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe


def raw_get(port: int, target: str, host: str | None = None) -> tuple[int, bytes]:
    """One request with the target exactly as given (no client normalises it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        header = host if host is not None else f"127.0.0.1:{port}"
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {header}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def tree(project: Path) -> dict[str, bytes]:
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}


def test_no_path_outside_the_routes_and_nothing_written(watched: tuple[Path, WatchProcess]) -> None:
    project, process = watched
    match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", process.url)
    assert match, process.url  # bound to this machine only
    port = int(match.group(1))
    before = tree(project)
    status, page = raw_get(port, "/")
    assert status == 200 and b"<title>pnp preview</title>" in page
    model = wait_until(lambda: (got := raw_get(port, "/model.json"))[0] == 200 and b'"cards":[{' in got[1] and got[1])
    image = re.search(rb'"url":"(/img/[0-9a-f]{64}\.png)"', model)  # type: ignore[arg-type]
    assert image is not None
    status, png = raw_get(port, image.group(1).decode())
    assert status == 200 and b"\x89PNG" in png
    secrets = (b"watch test project", b"root:", b'"kind"', b"demo.card.schema")
    for target in (
        "/../pnp.toml",
        "/../../../../etc/passwd",
        "/%2e%2e/pnp.toml",
        "/%2e%2e%2fpnp.toml",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "//etc/passwd",
        "/etc/passwd",
        "/pnp.toml",
        "/cards/cards.json",
        "/schemas/demo.card.schema.json",
        "/img/../pnp.toml",
        "/img/..%2f..%2fpnp.toml",
        "/img/%2e%2e/%2e%2e/etc/passwd",
        "/img/" + "a" * 64 + ".png",
        "/img/" + "a" * 64 + ".png/../../pnp.toml",
        "/model.json/../pnp.toml",
        "/./pnp.toml",
        "/%252e%252e/pnp.toml",
        "/..\\pnp.toml",
        f"http://127.0.0.1:{port}/../pnp.toml",
        "file:///etc/passwd",
        "*",
    ):
        status, body = raw_get(port, target)
        assert status in (403, 404), (target, status)
        assert not any(secret in body for secret in secrets), target
    status, _ = raw_get(port, "/", host="attacker.example")  # another site's name: DNS rebinding
    assert status == 403
    assert tree(project) == before  # read-only: nothing written into the project, no output/
    assert process.interrupt() == 130
    assert process.stderr[-1] == "pnp watch: stopped" and not any("Traceback" in line for line in process.stderr)
