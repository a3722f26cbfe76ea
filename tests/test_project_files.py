"""`project_files` (many names, each folder resolved once) answers exactly what `project_file`
answers for each name, on every kind of name a stranger's icons.json may hold."""

from __future__ import annotations

import os
from pathlib import Path

from pnp.core.paths import project_file, project_files


def test_project_files_answers_as_project_file_for_every_name(tmp_path: Path) -> None:
    root = tmp_path / "project"
    art = root / "layouts" / "art"
    art.mkdir(parents=True)
    (art / "sun.png").write_bytes(b"png")
    (art / "moon.svg").write_bytes(b"<svg/>")
    (art / "folder").mkdir()
    os.mkfifo(art / "pipe")
    (tmp_path / "secret.png").write_bytes(b"outside")
    (art / "in-link.png").symlink_to(art / "sun.png")
    (art / "out-link.png").symlink_to(tmp_path / "secret.png")
    (art / "dangling.png").symlink_to(art / "gone.png")
    (root / "linked-folder").symlink_to(tmp_path)
    names = [
        "layouts/art/sun.png",
        "layouts/art/moon.svg",
        "layouts/art/missing.png",
        "layouts/art/folder",
        "layouts/art/pipe",
        "layouts/art/in-link.png",
        "layouts/art/out-link.png",
        "layouts/art/dangling.png",
        "linked-folder/secret.png",
        "../secret.png",
        "layouts/../layouts/art/sun.png",
        "layouts/art/..",
        "layouts/art/.",
        "layouts/art/",
        str(tmp_path / "secret.png"),
        "layouts/nowhere/sun.png",
        "layouts/art/sun.png/inside",
        "bad\0name.png",
        "x" * 300 + ".png",
    ]
    expected = [project_file(root, name) for name in names]
    assert project_files(root, names) == expected
    assert [problem for _, problem in expected][:5] == [
        "",
        "",
        "does not exist",
        "is a folder, not a file",
        "is a named pipe (FIFO), not a regular file",
    ]
    assert expected[6][1] == expected[8][1] == expected[9][1] == "is outside the project"
