"""pnp.core.output.rewrite_cache: a cache file (the face store) is written over in place, never
through a link, into a pipe, or over a file that another name shares."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pnp.core.output import rewrite_cache


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    folder = tmp_path / "output" / ".pnp-cache" / "faces"
    folder.mkdir(parents=True)
    return folder / "kind.faces"


def test_a_regular_file_is_written_over_in_place_and_cut_to_length(cache_file: Path) -> None:
    cache_file.write_bytes(b"x" * 100)
    inode = cache_file.stat().st_ino
    rewrite_cache(cache_file, [b"abc", memoryview(b"--defg")[2:], b""])
    assert cache_file.read_bytes() == b"abcdefg"
    assert cache_file.stat().st_ino == inode


def test_thousands_of_pieces_are_written_in_order(cache_file: Path) -> None:
    pieces = [f"{n:05d};".encode() * (n % 7) for n in range(3000)]
    rewrite_cache(cache_file, pieces)  # none yet: made
    assert cache_file.read_bytes() == b"".join(pieces)
    rewrite_cache(cache_file, pieces[::-1])  # written over
    assert cache_file.read_bytes() == b"".join(pieces[::-1])


def test_a_link_out_is_replaced_not_followed(cache_file: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not pnp's")
    cache_file.symlink_to(outside)
    rewrite_cache(cache_file, [b"kept faces"])
    assert outside.read_bytes() == b"not pnp's"
    assert not cache_file.is_symlink()
    assert cache_file.read_bytes() == b"kept faces"


def test_a_file_with_another_name_is_replaced_and_the_other_name_keeps_its_bytes(
    cache_file: Path, tmp_path: Path
) -> None:
    other = tmp_path / "cards.json"
    other.write_bytes(b"[]")
    os.link(other, cache_file)
    rewrite_cache(cache_file, [b"kept faces"])
    assert other.read_bytes() == b"[]"
    assert cache_file.read_bytes() == b"kept faces"


def test_a_pipe_is_replaced_without_waiting_for_a_reader(cache_file: Path) -> None:
    os.mkfifo(cache_file)
    rewrite_cache(cache_file, [b"kept faces"])
    assert cache_file.is_file()
    assert cache_file.read_bytes() == b"kept faces"


def test_a_file_outside_the_caches_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a cache file"):
        rewrite_cache(tmp_path / "output" / "game.pdf", [b"%PDF"])
