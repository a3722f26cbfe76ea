"""`pnp build` keeps each face's drawing, so that after an edit only the faces whose digest
changed are drawn again and the kind's PDF is re-assembled from the others.

What a face draws after it is placed (pnp.drawing.render's `draw_body`: card-relative, the same
in any slot) is kept as PDF operators under a key: the face digest of its record
(pnp.drawing.faces), the side, its copy and expansion values, and the document's own key (pnp's
code, the options, the layout, the sheet geometry and the characters preset into its fonts).
Its slot's translation and clip are drawn afresh. What the operators name must be the same in
every document: fonts get fixed resource names and preset character codes
(pnp.drawing.stablefont), static layers are made before the first page in a fixed order
(`Renderer.prime_forms`), and a face showing an image not yet in the document is drawn again
(drawing it puts the image there, as in a cold build). A cold build goes through the same
path, so a warm build writes the same bytes (tests/test_face_store.py).

The store of a kind is one file, output/.pnp-cache/faces/<kind>.faces, holding only the faces of
the last build (stale ones are dropped each time), each distinct drawing once, at most
`STORE_MAX_BYTES`. It lives in the output folder, which a pull request could ship, so it is
signed with the project's key (pnp.verify.keys.project_key: a key file's bytes and its identity
on this disk) and ignored, never trusted, when its signature, its form or its key does not match.
A document whose fonts met a character that was not preset keeps nothing, and a warm build that
finds one draws the kind again from scratch.

Whole pages are kept too, as the compressed content stream a build wrote for them, under a key
made of what is on the page: the keys of its faces, their slots and clips, its label. A page
whose key is kept is not drawn at all (its stream goes in without the canvas, what its faces name
as for a kept face: pnp.drawing.pagestream), so after a one-card edit only the pages holding a
changed face are drawn and compressed. Every page's stream, drawn or kept, goes into the file as a
`FixedStream`, formatted once; the store's file is made on a thread once the PDF is (`prepare`).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pnp.core.problems import Finding
from pnp.drawing.facefile import STORE_MAX_BYTES, Drawings, Kept, KeptPage, Meta, Raw, read_store, store_bytes

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

    from pnp.drawing.impose import Box
    from pnp.drawing.render import Renderer

FOLDER = Path(".pnp-cache") / "faces"
ALIKE = "alike:"  # the key of a face every record draws alike: this, and the face's name (no record digest)


class Redraw(Exception):
    """A warm document met a character that was not preset: draw the kind again from scratch."""


class FaceStore:
    """The kept faces of one kind, used and refreshed while its cut sheets are drawn."""

    def __init__(
        self, path: Path | None, key: bytes | None, root: Path, doc_key: str, digests: dict[int, str], preset: str
    ) -> None:
        self.path = path
        self.key = key  # None: there is no key yet, so nothing to read (`save` is given one)
        self.root = root
        self.preset = preset
        self.doc_key = hashlib.sha256(f"{doc_key}\0{preset}".encode("utf-8", "surrogatepass")).hexdigest()
        self.digests = digests  # id(record) -> its face digest
        self.entries: dict[str, Raw] = {}  # key -> (body index, meta index, findings): made into Kept when used
        self._drawings = Drawings()  # each face's drawing, by the index `entries` gives
        self._metas: list[Meta] = []
        self.pages: dict[str, KeptPage] = {}  # page key -> its kept stream (from the file)
        if self.path is not None and self.key is not None:
            self._read()
        self.kept: dict[str, Kept | Raw] = {}  # this document's faces (Raw: reused, as the store holds them)
        self.kept_pages: dict[str, KeptPage] = {}  # this document's pages, for the next build
        self.drawn, self.reused, self.pages_drawn = 0, 0, 0  # faces drawn, faces taken from the store, pages drawn
        self.stable = False
        self._prefixes: dict[tuple[Box, Box | None], list[str]] = {}
        self._present: set[str] = set()  # forms and images known to be in the document
        self._named: set[tuple[str, int]] = set()  # font subsets known to be named in it
        self._ready_metas: set[int] = set()  # metas (forms, fonts, images) whose every name is in it
        self._placed: set[tuple[Any, ...]] = set()  # kept pages' fonts, forms and images, known to be in it
        self._geometry: dict[tuple[int, int], tuple[Any, Any, list[str]]] = {}  # a page's slots and clips, written
        self._on_page: tuple[list[str], list[Any]] = ([], [])  # the faces of the page `page_key` made, and their keys
        self.keeps_pages = True  # False: a throwaway document drawing faces for another (pnp.drawing.drawahead)
        self._ahead: list[Any] = []  # forked children drawing faces for this document (pnp.core.workers.Child)
        self._elsewhere: set[str] = set()  # the keys of the faces they draw
        self._start: Callable[[], list[Any]] | None = None  # forks them (after the first face drawn here)
        self._alike_sides: frozenset[str] = frozenset()  # sides every record draws alike (`draws_alike`)
        self._alike_backs: tuple[Callable[[str, Any], str], frozenset[str]] | None = None  # a back chosen per record
        self._making: tuple[Any, bytes, list[Any]] | None = None  # the file `prepare` makes: thread, key, result
        self._fronts: dict[int, str] = {}  # id(face) -> the key of its front, made for the kind's faces (`missing`)
        self.faces_drawn: tuple[int, float, float, float, str] | None = None  # how many, their size, bleed, shape

    def draws_alike(self, renderer: Renderer) -> None:
        """Key the faces that every record draws alike (`Renderer.alike_faces`: a deck's common back)
        by the face alone, not by the record: such a face is drawn once a document and copied on
        every card, as a kept face is (the same operators, so the same bytes)."""
        alike = renderer.alike_faces()
        per_record_back = renderer.back_by is not None
        self._alike_sides = alike & ({"front"} if per_record_back else {"front", "back"})
        self._alike_backs = (renderer.face_for, alike) if per_record_back and alike else None

    def missing(self, faces: list[Any]) -> list[Any]:
        """The faces among `faces` whose front is not kept (to be drawn)."""
        keys = self._keys("front", faces)
        self._fronts = dict(zip(map(id, faces), keys, strict=True))  # for the pages (`page_key`)
        return [face for face, key in zip(faces, keys, strict=True) if key not in self.entries]

    def draw_elsewhere(self, start: Callable[[], list[Any]], faces: list[Any]) -> None:
        """`faces` to be drawn by forked children (pnp.drawing.drawahead): `start` forks them once
        this document has drawn its first face (so they inherit its fonts, forms and images);
        their drawings join the kept ones when the document reaches the first of those faces, as
        a warm build's would."""
        self._start = start
        keys = {self._key(side, face) for face in faces for side in ("front", "back")}
        self._elsewhere.update(key for key in keys if not key.startswith(ALIKE))  # drawn here, once

    def settle(self) -> None:
        """Take in (or reap) whatever the children drew; a child that failed drew nothing, and its
        faces are drawn here."""
        children, self._ahead = self._ahead, []
        self._elsewhere.clear()
        self._start = None
        for child in children:
            drawn = child.result()
            for key, kept in drawn or ():
                if key not in self.entries:
                    self.entries[key] = (self._drawings.add(kept.body), len(self._metas), kept.findings)
                    self._metas.append((kept.xobjects, kept.fonts, kept.images))

    def forget(self) -> None:
        """Keep nothing from the last build: the kind is drawn again from scratch."""
        self.settle()  # the children's faces go too: they are of the same document
        self.entries, self.kept, self.drawn, self.reused, self.stable = {}, {}, 0, 0, False
        self._drawings, self._metas = Drawings(), []
        self.pages, self.kept_pages, self.pages_drawn = {}, {}, 0
        self._prefixes, self._present, self._named, self._ready_metas, self._placed = {}, set(), set(), set(), set()

    # --- drawing (pnp.drawing.pdf.write_cut_sheets) -------------------------------------------

    def begin(self, canvas: Canvas, renderer: Renderer, faces: list[Any], backs: bool) -> None:
        """Before the first page: preset the fonts, make the static layers' forms."""
        from pnp.drawing.pagestream import format_quickly
        from pnp.drawing.stablefont import preset_document

        format_quickly(canvas._doc)  # kept pages written as they are (pnp.drawing.pagestream)
        self.faces_drawn = (len(faces), renderer.width, renderer.height, renderer.bleed, renderer.shape)
        preset_document(canvas._doc, self.preset)
        names = ["front"]
        if backs:
            names.extend({renderer.face_for("back", face.record) for face in faces} or {"back"})
        renderer.prime_forms(canvas, names)

    def draw(
        self, canvas: Canvas, renderer: Renderer, side: str, face: Any, box: Box, clip: Box | None
    ) -> list[Finding]:
        """Draw one face (pnp.drawing.pdf.Face) at `box`: its kept drawing when there is one, else
        drawn and kept."""
        key = self._key(side, face)
        hit = self._kept(key)
        if hit is not None and self._ready(canvas, renderer, hit.xobjects, hit.fonts, hit.images):
            code: list[str] = canvas._code
            prefix = self._prefixes.get((box, clip))
            if prefix is None:
                start = len(code)
                renderer.open_face(canvas, box, clip)
                prefix = self._prefixes[(box, clip)] = code[start:]
                del code[start:]
                canvas.pop_state_stack()  # open_face saved the state twice; the kept body restores it twice
                canvas.pop_state_stack()
            code.extend(prefix)
            code.append(hit.body)
            canvas._formsinuse.extend(hit.xobjects)
            stored = self.entries.get(key)
            if stored is not None:  # as the store holds it: saved without decoding it again
                self.kept[key] = stored
                self.reused += 1  # (a copy of a face drawn in this document is no reuse: see `finish`)
            return list(hit.findings)
        return self._draw(canvas, renderer, side, face, box, clip, key)

    def _ready(
        self,
        canvas: Canvas,
        renderer: Renderer,
        xobjects: tuple[str, ...],
        fonts: tuple[tuple[str, int], ...],
        images: tuple[tuple[str, str | None], ...],
    ) -> bool:
        """Whether the document holds what a kept face names (its meta): its fonts are named (so
        embedded) as drawing it would; images shown first here are put in; forms were made by `begin`."""
        doc = canvas._doc
        self._name(doc, fonts)
        missing = [name for name in xobjects if name not in self._present]
        if missing and not all(doc.hasForm(name) for name in missing):
            _put_images(canvas, renderer.root, images)  # as drawing the face would
            if not all(doc.hasForm(name) for name in missing):
                return False
        self._present.update(missing)
        return True

    def _draw(
        self, canvas: Canvas, renderer: Renderer, side: str, face: Any, box: Box, clip: Box | None, key: str
    ) -> list[Finding]:
        from pnp.drawing.stablefont import track_fonts

        code: list[str] = canvas._code
        doc = canvas._doc
        shown = len(canvas._formsinuse)
        renderer.open_face(canvas, box, clip)
        start = len(code)
        setter = renderer.text_setters.get(canvas)
        if setter is not None:
            setter.names.clear()  # every font the face shows is named again, so it is seen here
        used: set[tuple[str, int]] = set()
        images: list[tuple[str, str | None]] = []
        track_fonts(doc, used)
        canvas.drawImage = _recording(canvas.drawImage, images)
        try:
            found = renderer.draw_body(canvas, side, face.record, box, face.extra)
        finally:
            track_fonts(doc, None)
            del canvas.drawImage
        body = "\n".join(code[start:])
        code[start:] = [body]
        xobjects = tuple(canvas._formsinuse[shown:])
        if found and key.startswith(ALIKE):  # what it found names its record: kept as that record's face
            key = self._key(side, face, alike=False)
        self.kept[key] = Kept(body, xobjects, tuple(sorted(used)), tuple(found), tuple(dict.fromkeys(images)))
        self._named.update(used)
        self._present.update(xobjects)
        self.drawn += 1
        if self._start is not None:
            fork, self._start = self._start, None
            self._ahead.extend(fork())
        return found

    # --- whole pages ---------------------------------------------------------------------------

    def page_key(self, sides: list[Any], faces: list[Any], label: str, honeycomb: bool) -> str:
        """What a page shows: its faces (by key), their slots and clips, its label (the rest, the
        paper and the layout, is the document's key)."""
        parts = [label, "hex" if honeycomb else ""]
        keys: list[str] = []
        shown: list[Any] = []
        for side, slots, clips in sides:
            known = self._geometry.get((id(slots), id(clips)))
            if known is None:  # full sheets share their slots and clips (pnp.drawing.shelf.kind_sheets)
                where = [f"{box!r} {clip!r}" for box, clip in zip(slots, clips, strict=False)]
                known = self._geometry[(id(slots), id(clips))] = (slots, clips, where)
            on_side = faces[: len(known[2])]
            side_keys = self._keys(side, on_side)
            parts.extend(known[2][: len(on_side)])
            parts.extend(side_keys)
            keys.extend(side_keys)
            shown.extend(on_side)
        self._on_page = (keys, shown)
        return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def replay_page(self, canvas: Canvas, renderer: Renderer, key: str, problems: list[Any]) -> bool:
        """Put the kept page `key` (just made by `page_key`) into the document in place of drawing
        it; False (nothing shown) when there is none, or a face on it is not kept or cannot be
        copied: the page is drawn."""
        from pnp.drawing.pagestream import add_kept_page

        page = self.pages.get(key)
        if page is None:
            return False
        keys, faces = self._on_page  # the faces `page_key` met, in its order (as drawn)
        found = [self.entries.get(face_key) for face_key in keys]
        if None in found:
            return False
        raws: list[Raw] = found  # type: ignore[assignment]  # none is None
        ready = self._ready_metas
        if not ready.issuperset([raw[1] for raw in raws]):
            for raw in raws:  # as drawing it does, face by face (an image gone: the page is drawn)
                if raw[1] not in ready:
                    if not self._ready(canvas, renderer, *self._metas[raw[1]]):
                        return False
                    ready.add(raw[1])
        if (page.fonts, page.xobjects) not in self._placed:  # fonts named, forms and images put in: they stay
            self._name(canvas._doc, page.fonts)
            if not all(name in canvas._doc.idToObject for name in page.xobjects):
                return False
            self._placed.add((page.fonts, page.xobjects))
        add_kept_page(canvas, page.data, page.xobjects)
        self.kept.update(zip(keys, raws, strict=True))
        for face, raw in zip(faces, raws, strict=True):
            if raw[2]:
                problems.extend((face, finding) for finding in raw[2])
        self.reused += len(keys)
        self._present.update(page.xobjects)
        self.kept_pages[key] = page
        return True

    def keep_page(self, canvas: Canvas, key: str, fonts: set[tuple[str, int]]) -> None:
        """The page just shown (drawn): its stream formatted now and kept under `key`."""
        from pnp.drawing.pagestream import fixed_stream

        if not self.keeps_pages:
            return
        shown = canvas._doc.Pages.pages[-1]
        data = fixed_stream(canvas._doc, shown)
        if shown._colorsUsed or shown._shadingUsed or shown.Annots or shown.ExtGState:
            return  # named resources of its own: drawn again each time
        xobjects = tuple(shown.XObjects.dict) if shown.XObjects is not None else ()
        self._named.update(fonts)
        self.kept_pages[key] = KeptPage(data, xobjects, tuple(sorted(fonts)))
        self.pages_drawn += 1

    def _name(self, doc: Any, fonts: tuple[tuple[str, int], ...]) -> None:
        for font in fonts:
            if font not in self._named:
                _font(font[0]).getSubsetInternalName(font[1], doc)
                self._named.add(font)

    def finish(self, canvas: Canvas) -> None:
        """Before saving: fonts in a fixed order; a warm document that met an unassigned character
        raises Redraw (its kept faces may encode it otherwise than a cold build)."""
        from pnp.drawing.stablefont import finish_document, stable

        self.stable = stable(canvas._doc)
        if not self.stable and self.reused:
            raise Redraw()
        finish_document(canvas._doc)

    # --- the file ------------------------------------------------------------------------------

    def _key(self, side: str, face: Any, alike: bool = True) -> str:
        """The face's key: its record's digest, side and copy (or expansion values); for a face every
        record draws alike (`draws_alike`), the face alone, unless `alike` is False."""
        if alike and side in self._alike_sides:
            return f"{ALIKE}{side}"
        if alike and self._alike_backs is not None and side == "back":
            chosen = self._alike_backs[0](side, face.record)
            if chosen in self._alike_backs[1]:
                return f"{ALIKE}{chosen}"
        record = self.digests.get(id(face.record), "")
        extra = face.extra
        if len(extra) == 1 and type(extra.get("copy")) is int:
            return f"{record}:{side}:{extra['copy']}"
        dumped = orjson.dumps(extra, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
        return f"{record}:{side}:{dumped.decode()}"

    def _keys(self, side: str, faces: list[Any]) -> list[str]:
        """`_key` of each of `faces` on `side`, made in one loop (a page's, a kind's)."""
        if side in self._alike_sides:
            return [f"{ALIKE}{side}"] * len(faces)
        if side == "front" and self._fronts:
            known = [self._fronts.get(id(face)) for face in faces]
            if None not in known:
                return known  # type: ignore[return-value]  # none is None
        if side == "back" and self._alike_backs is not None:
            return [self._key(side, face) for face in faces]
        get = self.digests.get
        return [
            f"{get(id(f.record), '')}:{side}:{f.extra['copy']}"
            if len(f.extra) == 1 and type(f.extra.get("copy")) is int
            else self._key(side, f)
            for f in faces
        ]

    def _kept(self, key: str) -> Kept | None:
        raw = self.entries.get(key)
        if raw is None and key in self._elsewhere:
            self.settle()
            raw = self.entries.get(key)
        if raw is None:
            drawn = self.kept.get(key) if key.startswith(ALIKE) else None
            return drawn if isinstance(drawn, Kept) else None  # a face every record draws alike, drawn here
        index, meta, findings = raw
        body = self._drawings.text(index)
        if body is None:
            return None
        xobjects, fonts, images = self._metas[meta]
        return Kept(body, xobjects, fonts, findings, images)

    def save(self, key: bytes | None) -> None:
        """Keep this build's faces (and only them), signed with `key` (None: the output folder cannot
        hold one: nothing kept); nothing when the document was not stable."""
        from pnp.core.output import rewrite_cache

        if self.path is None or key is None:
            return
        prepared = self._prepared(key)
        if key != self.key:
            self.key, self.entries = key, {}  # a new key: the file is written again
        pieces = self._file(key) if prepared is None else prepared[0]
        if pieces is None:
            self._remove()
        elif pieces:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                rewrite_cache(self.path, pieces)
            except OSError:
                self._remove()  # a read-only output folder, a full disk: the next build draws every face

    def prepare(self, key: bytes | None) -> None:
        """Make the file `save(key)` writes, on a thread, while the build does the rest (its other
        outputs, waiting for its PDFs to reach the disk): hashing 14 MB releases the lock."""

        def make(into: list[tuple[list[bytes | memoryview] | None]], key: bytes) -> None:
            with contextlib.suppress(Exception):  # made again by `save`, which says what failed
                into.append((self._file(key),))

        if self.path is not None and key is not None and key == self.key:
            made: list[tuple[list[bytes | memoryview] | None]] = []
            self._making = (threading.Thread(target=make, args=(made, key), daemon=True), key, made)
            self._making[0].start()

    def _prepared(self, key: bytes) -> tuple[list[bytes | memoryview] | None] | None:
        """What `prepare(key)` made (None: nothing, or for another key, or it failed)."""
        making, self._making = self._making, None
        if making is not None:
            making[0].join()
        return making[2][0] if making is not None and making[2] and making[1] == key else None

    def _file(self, key: bytes) -> list[bytes | memoryview] | None:
        """The file that keeps this build's faces, in pieces (pnp.drawing.facefile): None when nothing
        is to be kept (the document was not stable, or it is too large), [] when the file holds them."""
        if not self.stable or not self.kept:
            return None
        if not self.drawn and len(self.kept) == len(self.entries) and self.kept_pages.keys() == self.pages.keys():
            return []  # the same faces and pages as the file holds
        drawings, filed = self._drawings, self._drawings.filed
        names, values = list(self.kept), list(self.kept.values())
        used = {kept[0] for kept in values if type(kept) is tuple}
        appending = filed > 0 and 2 * drawings.size({i for i in used if i < filed}) >= len(drawings.region)
        lengths: list[int] = list(drawings.lengths) if appending else []  # else: written anew
        parts: list[bytes | memoryview] = [drawings.region] if appending else []
        metas: list[Meta] = list(self._metas) if appending else []
        meta_at = {meta: index for index, meta in reversed(list(enumerate(metas)))}
        bodies: dict[str, int] = {}  # each distinct new drawing once (10,000 identical backs: one)
        renumbered: dict[int, int] = {}  # a drawing or meta of the store, where the new file has it
        renumbered_metas: dict[int, int] = {}

        def body_at(text: str) -> int:
            index = bodies.get(text)
            if index is None:
                index = bodies[text] = len(lengths)
                parts.append(text.encode("utf-8", "surrogatepass"))
                lengths.append(len(parts[-1]))
            return index

        def meta_index(meta: Meta) -> int:
            index = meta_at.get(meta)
            if index is None:
                index = meta_at[meta] = len(metas)
                metas.append(meta)
            return index

        if appending:  # the faces copied with their page, as the file holds them (column by column)
            body_of = [kept[0] if type(kept) is tuple and kept[0] < filed else -1 for kept in values]
            meta_of = [kept[1] if type(kept) is tuple and kept[0] < filed else -1 for kept in values]
        else:
            body_of, meta_of = [-1] * len(values), [-1] * len(values)
        unreadable: set[int] = set()
        for at in [at for at, body in enumerate(body_of) if body < 0]:  # drawn here, or written anew
            kept = values[at]
            if isinstance(kept, Kept):
                body_of[at] = body_at(kept.body)
                meta_of[at] = meta_index((kept.xobjects, kept.fonts, kept.images))
                continue
            body = renumbered.get(kept[0], -1)
            if body < 0:
                text = drawings.text(kept[0])
                if text is None:
                    unreadable.add(at)  # not text: not kept
                    continue
                body = renumbered[kept[0]] = body_at(text)
            body_of[at] = body
            meta = renumbered_metas.get(kept[1], -1)
            if meta < 0:
                meta = renumbered_metas[kept[1]] = meta_index(self._metas[kept[1]])
            meta_of[at] = meta
        if unreadable:
            names = [name for at, name in enumerate(names) if at not in unreadable]
            values = [kept for at, kept in enumerate(values) if at not in unreadable]
            body_of = [body for at, body in enumerate(body_of) if at not in unreadable]
            meta_of = [meta for at, meta in enumerate(meta_of) if at not in unreadable]
        found = {
            name: [asdict(f) for f in findings]
            for name, kept in zip(names, values, strict=True)
            if (findings := kept.findings if isinstance(kept, Kept) else kept[2])
        }
        page_metas: dict[tuple[Any, ...], int] = {}
        page_meta = [
            page_metas.setdefault((page.xobjects, page.fonts), len(page_metas)) for page in self.kept_pages.values()
        ]
        if sum(lengths) + sum(len(page.data) for page in self.kept_pages.values()) > STORE_MAX_BYTES:
            return None
        header = {
            "doc": self.doc_key,
            "bodies": lengths,
            "metas": metas,
            "faces": names,  # the faces, by key, column by column
            "body": body_of,
            "meta": meta_of,
            "found": found,
            "pages": list(self.kept_pages),
            "page_sizes": [len(page.data) for page in self.kept_pages.values()],
            "page_metas": list(page_metas),
            "page_meta": page_meta,
        }
        return store_bytes(key, header, [*parts, *(page.data for page in self.kept_pages.values())])

    def _remove(self) -> None:
        assert self.path is not None
        with contextlib.suppress(OSError):  # a read-only output folder: nothing kept, nothing to remove
            self.path.unlink()

    def _read(self) -> None:
        """The kept faces; none when the file is missing, foreign, damaged or forged."""
        assert self.path is not None and self.key is not None
        stored = read_store(self.path, self.key, self.root, self.doc_key)
        if stored is not None:
            self.entries, self._drawings, self._metas, self.pages = (
                stored.entries,
                stored.drawings,
                stored.metas,
                stored.pages,
            )


def _recording(draw_image: Any, images: list[tuple[str, str | None]]) -> Any:
    """canvas.drawImage, noting each project image it is given (pnp.drawing.images.ImagePath)."""

    def recording(image: Any, *args: Any, **kwargs: Any) -> Any:
        key = getattr(image, "key", None)
        if isinstance(key, str):
            mask = kwargs.get("mask")
            images.append((key, None if mask is None else str(mask)))
        return draw_image(image, *args, **kwargs)

    return recording


def _put_images(canvas: Canvas, root: Path, images: tuple[tuple[str, str | None], ...]) -> None:
    """Put a kept face's images into the document, in its order, as drawing it would (the same
    call, its operators dropped): the objects get the numbers a cold build gives them."""
    from pnp.core.paths import project_file
    from pnp.drawing.images import ImagePath
    from pnp.drawing.pngpass import put_png

    code, shown = canvas._code, canvas._formsinuse
    for name, mask in images:
        path, problem = project_file(root, name)
        if problem or path is None:
            return  # the face is drawn instead
        start, listed = len(code), len(shown)
        try:
            put_png(canvas, ImagePath(path, root), path, root, mask)  # as drawing it did (pnp.drawing.pngpass)
            canvas.drawImage(ImagePath(path, root), 0, 0, 1, 1, mask=mask)
        except Exception:  # noqa: BLE001 - an image reportlab cannot read: the face is drawn, and says so
            return
        finally:
            del code[start:]
            del shown[listed:]


def _font(name: str) -> Any:
    from reportlab.pdfbase.pdfmetrics import getFont

    return getFont(name)


def kind_store(
    loaded: Any,
    layout: Any,
    kind: str,
    spec: Any,
    digests: Any,
    key: bytes | None,
    records: dict[int, str],
    preset: str,
) -> FaceStore:
    """The store of one kind's cut sheets drawn with `spec`; `records` from `face_keys`, `preset`
    from `kind_preset`."""
    doc_key = f"{digests.layout_key(layout, kind)}\0{spec!r}"
    path = loaded.project.output / FOLDER / f"{kind}.faces"
    return FaceStore(path, key, loaded.project.root, doc_key, records, preset)
