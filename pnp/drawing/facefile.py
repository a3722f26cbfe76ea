"""The file of a kind's face store (pnp.drawing.facestore): what it holds, how it is signed, read
and written.

output/.pnp-cache/faces/<kind>.faces is MAGIC, the HMAC-SHA-256 of the rest under the project's
key, then the rest: the header's length, the header (JSON: the document's key; each drawing's
length; the metas, each the forms, fonts and images a drawing names; the faces by key, each with
its drawing, its meta and its findings; the pages by key, each with its size and meta), the
drawings (PDF operators) and the pages' streams. It lives in the output folder, which a pull
request could ship, so it is ignored, never trusted, when its signature, its form or its key does
not match.

Reading decodes no drawing: a warm build copies most faces with their page, and needs only their
metas and findings; a drawing is decoded when a face is drawn from it (`Drawings.text`). After an
edit the file is written by appending: its drawings go back as they were read, in one copy, and
the new ones after them, so a drawing no face uses any more stays until such drawings are half
the file, which is then written anew with only what is used. Either way the bytes are written
over the old file's (pnp.core.output.rewrite_cache), not into a new one renamed over it.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any

import orjson

from pnp.core.problems import Finding, sound_finding

MAGIC = b"pnp-faces 7\n"  # 7: drawings decoded when used, appended after an edit
STORE_MAX_BYTES = 512 * 1024 * 1024  # the drawings of one kind; 10,000 poker cards take about 14 MB
Meta = tuple[tuple[str, ...], tuple[tuple[str, int], ...], tuple[tuple[str, str | None], ...]]
Raw = tuple[int, int, tuple[Finding, ...]]  # a face as the file holds it: drawing, meta and findings


@dataclass(frozen=True, slots=True)
class Kept:
    """One face's drawing: its operators, the forms and images it shows, the fonts it names, and
    what drawing it found."""

    body: str
    xobjects: tuple[str, ...]
    fonts: tuple[tuple[str, int], ...]
    findings: tuple[Finding, ...]
    images: tuple[tuple[str, str | None], ...] = ()  # (project file, mask) of each image it draws


@dataclass(frozen=True, slots=True)
class KeptPage:
    """One page's content stream as the PDF holds it (its dictionary, compressed operators), the
    forms and images it shows, and the fonts its frame (crop marks, label) names."""

    data: bytes
    xobjects: tuple[str, ...]
    fonts: tuple[tuple[str, int], ...]


class Drawings:
    """The drawings of a store, by index: the file's first (bytes, decoded when used), then the
    ones added since (text)."""

    def __init__(self, region: bytes | memoryview = b"", lengths: list[int] | None = None) -> None:
        self.region = region
        self.lengths = lengths or []
        self.filed = len(self.lengths)
        self._starts = list(accumulate(self.lengths, initial=0))
        self.added: list[str] = []

    def add(self, body: str) -> int:
        self.added.append(body)
        return self.filed + len(self.added) - 1

    def text(self, index: int) -> str | None:
        """The drawing at `index`; None when the file's bytes are not text (it is drawn again)."""
        if index >= self.filed:
            return self.added[index - self.filed]
        try:
            return str(self.region[self._starts[index] : self._starts[index + 1]], "utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None

    def size(self, indices: set[int]) -> int:
        """The bytes the file's drawings at `indices` take."""
        return sum(self.lengths[i] for i in indices)


@dataclass(frozen=True, slots=True)
class Stored:
    """What a store file holds: the faces by key, their drawings and metas, the pages by key."""

    entries: dict[str, Raw]
    drawings: Drawings
    metas: list[Meta]
    pages: dict[str, KeptPage]


def mac(key: bytes, data: bytes | memoryview) -> bytes:
    return hmac.new(hashlib.sha256(key).digest(), data, hashlib.sha256).hexdigest().encode()


def read_store(path: Path, key: bytes, root: Path, doc_key: str) -> Stored | None:
    """The store file at `path`; None when it is missing, foreign, damaged or forged, or is for
    another document (layout, options, preset)."""
    from pnp.core.paths import RefusedFile, read_regular

    try:
        data = read_regular(path, STORE_MAX_BYTES + 64 * 1024 * 1024, root)
        if not data.startswith(MAGIC):
            return None
        end = data.index(b"\n", len(MAGIC))  # the 14 MB of 10,000 faces are not copied
        whole = memoryview(data)
        signed = _Signature(key, whole[end + 1 :])  # checked on another thread meanwhile (9 ms)
        start = data.index(b"\n", end + 1) + 1
        size = int(data[end + 1 : start - 1])
        rest = whole[start:]
        header = orjson.loads(rest[:size])
        if header["doc"] != doc_key:
            return None  # another layout, options or preset: every code may differ
        lengths = header["bodies"]
        if not _counts(lengths):
            return None
        body_bytes = sum(lengths)
        metas: list[Meta] = [
            (
                tuple(map(str, xobjects)),
                tuple((str(f), int(s)) for f, s in fonts),
                tuple((str(i), None if m is None else str(m)) for i, m in images),
            )
            for xobjects, fonts, images in header["metas"]
        ]
        keys, body_of, meta_of = header["faces"], header["body"], header["meta"]
        if not len(keys) == len(body_of) == len(meta_of) or not set(map(type, keys)) <= {str}:
            return None
        if not _indices(body_of, len(lengths)) or not _indices(meta_of, len(metas)):
            return None
        found = {str(k): tuple(Finding(**item) for item in v) for k, v in header["found"].items()}
        if not all(sound_finding(f) for findings in found.values() for f in findings):
            return None
        findings = [found.get(key, ()) for key in keys] if found else repeat((), len(keys))
        entries: dict[str, Raw] = dict(zip(keys, zip(body_of, meta_of, findings, strict=True), strict=True))
        page_metas = [
            (tuple(map(str, xobjects)), tuple((str(f), int(s)) for f, s in fonts))
            for xobjects, fonts in header["page_metas"]
        ]
        page_keys, sizes, page_meta = header["pages"], header["page_sizes"], header["page_meta"]
        if not len(page_keys) == len(sizes) == len(page_meta) or not _indices(page_meta, len(page_metas)):
            return None
        if not _counts(sizes):
            return None
        pages, at = {}, size + body_bytes
        for page_key, length, meta in zip(page_keys, sizes, page_meta, strict=True):
            pages[str(page_key)] = KeptPage(bytes(rest[at : at + length]), *page_metas[meta])
            at += length
    except (RefusedFile, OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    if not hmac.compare_digest(data[len(MAGIC) : end], signed.value()):
        return None  # edited, forged, or signed with another key: never trusted
    if at != len(rest):
        return None  # cut short, or more than pnp wrote
    return Stored(entries, Drawings(rest[size : size + body_bytes], lengths), metas, pages)


class _Signature:
    """`mac(key, data)`, made on a thread of its own: hashing releases the interpreter's lock, so
    the file's header is parsed meanwhile (what it says is used only once the signature matches)."""

    def __init__(self, key: bytes, data: memoryview) -> None:
        import threading

        self._value = b""
        self._thread = threading.Thread(target=self._sign, args=(key, data), name="pnp-store-mac", daemon=True)
        self._thread.start()

    def _sign(self, key: bytes, data: memoryview) -> None:
        self._value = mac(key, data)

    def value(self) -> bytes:
        self._thread.join()
        return self._value


def store_bytes(key: bytes, header: dict[str, Any], parts: list[bytes | memoryview]) -> list[bytes | memoryview]:
    """The signed file of `header` (see `read_store`) and the drawings' and pages' bytes, in
    pieces: 14 MB are not copied into one string to be written."""
    head = orjson.dumps(header)
    payload: list[bytes | memoryview] = [b"%d\n" % len(head), head, *parts]
    signer = hmac.new(hashlib.sha256(key).digest(), digestmod=hashlib.sha256)
    for piece in payload:
        signer.update(piece)
    return [MAGIC, signer.hexdigest().encode(), b"\n", *payload]


def _indices(values: list[Any], count: int) -> bool:
    """Whether every one of `values` is a whole number that indexes a list of `count`."""
    return set(map(type, values)) <= {int} and (not values or (min(values) >= 0 and max(values) < count))


def _counts(values: list[Any]) -> bool:
    """Whether every one of `values` is a whole number, none below 0."""
    return set(map(type, values)) <= {int} and (not values or min(values) >= 0)
