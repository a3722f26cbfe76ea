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
signed with the project's key (pnp.verify.cache.project_key: a key file's bytes and its identity
on this disk) and ignored, never trusted, when its signature, its form or its key does not match.
A document whose fonts met a character that was not preset keeps nothing, and a warm build that
finds one draws the kind again from scratch.

Whole pages are kept too, as the compressed content stream a build wrote for them, under a key
made of what is on the page: the keys of its faces, their slots and clips, its label. A page
whose key is kept is not drawn at all (its stream is copied, what its faces name is put into the
document as for a kept face), so after a one-card edit only the pages holding a changed face are
drawn and compressed. Every page's stream, drawn or kept, goes into the file through the same
`FixedStream`, formatted once when the page is shown (pnp.drawing.pdf.write_cut_sheets).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pnp.core.problems import Finding, sound_finding

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

    from pnp.drawing.impose import Box
    from pnp.drawing.render import Renderer

MAGIC = b"pnp-faces 6\n"  # 6: signed with HMAC-SHA-256 (the processor's SHA instructions: twice BLAKE2b's speed)
STORE_MAX_BYTES = 512 * 1024 * 1024  # the drawings of one kind; 10,000 poker cards take about 25 MB
FOLDER = Path(".pnp-cache") / "faces"


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


Raw = tuple[int, int, tuple[Finding, ...]]  # a face as the file holds it: body, metas and findings


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
        self._bodies: list[str] = []
        self._metas: list[tuple[Any, ...]] = []
        self.pages: dict[str, KeptPage] = {}  # page key -> its kept stream (from the file)
        if self.path is not None and self.key is not None:
            self._read()
        self.kept: dict[str, Kept | Raw] = {}  # this document's faces (Raw: copied with their page, as read)
        self.kept_pages: dict[str, KeptPage] = {}  # this document's pages, for the next build
        self.drawn = 0  # faces drawn in this document
        self.reused = 0  # faces taken from the store
        self.pages_drawn = 0  # pages drawn (not copied) in this document
        self.stable = False
        self._prefixes: dict[tuple[Box, Box | None], list[str]] = {}
        self._present: set[str] = set()  # forms and images known to be in the document
        self._named: set[tuple[str, int]] = set()  # font subsets known to be named in it
        self._ready_metas: set[int] = set()  # metas (forms, fonts, images) whose every name is in it
        self._geometry: dict[tuple[int, int], tuple[Any, Any, list[str]]] = {}  # a page's slots and clips, written
        self._on_page: list[tuple[str, Any]] = []  # (key, face) of the page `page_key` was last asked about
        self.keeps_pages = True  # False: a throwaway document drawing faces for another (pnp.drawing.drawahead)
        self._ahead: list[Any] = []  # forked children drawing faces for this document (pnp.core.workers.Child)
        self._elsewhere: set[str] = set()  # the keys of the faces they draw
        self._start: Callable[[], list[Any]] | None = None  # forks them (after the first face drawn here)

    def keeps(self, face: Any) -> bool:
        """Whether the front of `face` is kept (its drawing copied, not drawn)."""
        return self._key("front", face) in self.entries

    def draw_elsewhere(self, start: Callable[[], list[Any]], faces: list[Any]) -> None:
        """`faces` to be drawn by forked children (pnp.drawing.drawahead): `start` forks them once
        this document has drawn its first face (so they inherit its fonts, forms and images);
        their drawings join the kept ones when the document reaches the first of those faces, as
        a warm build's would."""
        self._start = start
        self._elsewhere.update(self._key(side, face) for face in faces for side in ("front", "back"))

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
                    self.entries[key] = (len(self._bodies), len(self._metas), kept.findings)
                    self._bodies.append(kept.body)
                    self._metas.append((kept.xobjects, kept.fonts, kept.images))

    def forget(self) -> None:
        """Keep nothing from the last build: the kind is drawn again from scratch."""
        self.settle()  # the children's faces go too: they are of the same document
        self.entries, self.kept, self.drawn, self.reused, self.stable = {}, {}, 0, 0, False
        self.pages, self.kept_pages, self.pages_drawn = {}, {}, 0
        self._prefixes, self._present, self._named, self._ready_metas = {}, set(), set(), set()

    # --- drawing (pnp.drawing.pdf.write_cut_sheets) -------------------------------------------

    def begin(self, canvas: Canvas, renderer: Renderer, faces: list[Any], backs: bool) -> None:
        """Before the first page: preset the fonts, make the static layers' forms."""
        from pnp.drawing.stablefont import preset_document

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
        if hit is not None and self._ready(canvas, renderer, hit):
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
            self.kept[key] = hit
            self.reused += 1
            return list(hit.findings)
        return self._draw(canvas, renderer, side, face, box, clip, key)

    def _ready(self, canvas: Canvas, renderer: Renderer, hit: Kept) -> bool:
        """Whether the document holds what the kept face names: its fonts are named (so embedded)
        as drawing it would; images shown first here are put in; forms were made by `begin`."""
        doc = canvas._doc
        self._name(doc, hit.fonts)
        missing = [name for name in hit.xobjects if name not in self._present]
        if missing and not all(doc.hasForm(name) for name in missing):
            _put_images(canvas, renderer.root, hit.images)  # as drawing the face would
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
        self._on_page = []
        for side, slots, clips in sides:
            known = self._geometry.get((id(slots), id(clips)))
            if known is None:  # full sheets share their slots and clips (pnp.drawing.shelf.kind_sheets)
                known = (slots, clips, [f"{box!r} {clip!r}" for box, clip in zip(slots, clips, strict=False)])
                self._geometry[(id(slots), id(clips))] = known
            for face, where in zip(faces, known[2], strict=False):
                face_key = self._key(side, face)
                self._on_page.append((face_key, face))
                parts.append(f"{face_key} {where}")
        return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def replay_page(self, canvas: Canvas, renderer: Renderer, key: str, problems: list[Any]) -> bool:
        """Put the kept page `key` (just made by `page_key`) into the document in place of drawing
        it; False (nothing shown) when there is none, or a face on it is not kept or cannot be
        copied: the page is drawn."""
        from reportlab.pdfbase.pdfdoc import PDFDictionary, PDFObjectReference

        from pnp.drawing.pagestream import FixedStream, QuickPage

        page = self.pages.get(key)
        if page is None:
            return False
        hits: list[tuple[str, Any, Raw]] = []
        for face_key, face in self._on_page:  # the faces `page_key` met, in its order (as drawn)
            raw = self.entries.get(face_key)
            if raw is None:
                return False
            hits.append((face_key, face, raw))
        doc = canvas._doc
        for face_key, _, raw in hits:  # as drawing it does, face by face (an image gone: the page is drawn)
            if raw[1] not in self._ready_metas:
                hit = self._kept(face_key)
                if hit is None or not self._ready(canvas, renderer, hit):
                    return False
                self._ready_metas.add(raw[1])
        self._name(doc, page.fonts)
        if not all(name in doc.idToObject for name in page.xobjects):
            return False
        canvas.showPage()
        shown = doc.Pages.pages[-1]
        shown.stream = None
        shown.Contents = FixedStream(page.data)
        forms = {name: PDFObjectReference(name) for name in page.xobjects}
        shown.XObjects = PDFDictionary(forms) if forms else None  # as reportlab's showPage sets it
        shown.__class__ = QuickPage
        for face_key, face, raw in hits:
            self.kept[face_key] = raw
            problems.extend((face, finding) for finding in raw[2])
        self.reused += len(hits)
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
        if shown._colorsUsed or shown._shadingUsed or shown.Annots:
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

    def _key(self, side: str, face: Any) -> str:
        record = self.digests.get(id(face.record), "")
        extra = face.extra
        if len(extra) == 1 and type(extra.get("copy")) is int:
            return f"{record}:{side}:{extra['copy']}"
        dumped = orjson.dumps(extra, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
        return f"{record}:{side}:{dumped.decode()}"

    def _kept(self, key: str) -> Kept | None:
        raw = self.entries.get(key)
        if raw is None and key in self._elsewhere:
            self.settle()
            raw = self.entries.get(key)
        if raw is None:
            return None
        index, meta, findings = raw
        xobjects, fonts, images = self._metas[meta]
        return Kept(self._bodies[index], xobjects, fonts, findings, images)

    def _mac(self, data: bytes) -> bytes:
        assert self.key is not None
        return hmac.new(hashlib.sha256(self.key).digest(), data, hashlib.sha256).hexdigest().encode()

    def save(self, key: bytes | None) -> None:
        """Keep this build's faces (and only them), signed with `key` (None: the output folder cannot
        hold one: nothing kept); nothing when the document was not stable."""
        from pnp.core.output import atomic_write

        if self.path is None or key is None:
            return
        if key != self.key:
            self.key, self.entries = key, {}  # a new key: every face is written again
        if not self.stable or not self.kept:
            self._remove()
            return
        if not self.drawn and len(self.kept) == len(self.entries) and self.kept_pages.keys() == self.pages.keys():
            return  # the same faces and pages as the file holds
        bodies: dict[str, int] = {}  # each distinct drawing once (10,000 identical backs: one)
        metas: dict[tuple[Any, ...], int] = {}
        old_bodies: dict[int, int] = {}  # a face copied with its page: its body and metas as read, renumbered
        old_metas: dict[int, int] = {}
        body_of: list[int] = []
        meta_of: list[int] = []
        found: dict[str, list[Any]] = {}
        for name, kept in self.kept.items():
            if isinstance(kept, Kept):
                body = bodies.setdefault(kept.body, len(bodies))
                meta = metas.setdefault((kept.xobjects, kept.fonts, kept.images), len(metas))
                findings = kept.findings
            else:
                body = old_bodies.get(kept[0], -1)
                if body < 0:
                    body = old_bodies[kept[0]] = bodies.setdefault(self._bodies[kept[0]], len(bodies))
                meta = old_metas.get(kept[1], -1)
                if meta < 0:
                    meta = old_metas[kept[1]] = metas.setdefault(self._metas[kept[1]], len(metas))
                findings = kept[2]
            body_of.append(body)
            meta_of.append(meta)
            if findings:
                found[name] = [asdict(f) for f in findings]
        blob = [body.encode("utf-8", "surrogatepass") for body in bodies]
        page_metas: dict[tuple[Any, ...], int] = {}
        page_meta = [
            page_metas.setdefault((page.xobjects, page.fonts), len(page_metas)) for page in self.kept_pages.values()
        ]
        if sum(len(b) for b in blob) + sum(len(page.data) for page in self.kept_pages.values()) > STORE_MAX_BYTES:
            self._remove()
            return
        header = orjson.dumps(
            {
                "doc": self.doc_key,
                "bodies": [len(b) for b in blob],
                "metas": list(metas),
                "faces": list(self.kept),  # the faces, by key, column by column
                "body": body_of,
                "meta": meta_of,
                "found": found,
                "pages": list(self.kept_pages),
                "page_sizes": [len(page.data) for page in self.kept_pages.values()],
                "page_metas": list(page_metas),
                "page_meta": page_meta,
            }
        )
        blob.extend(page.data for page in self.kept_pages.values())
        payload = b"%d\n" % len(header) + header + b"".join(blob)
        data = MAGIC + self._mac(payload) + b"\n" + payload
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, lambda handle: handle.write(data))
        except OSError:
            pass  # a read-only output folder: the next build draws every face again

    def _remove(self) -> None:
        assert self.path is not None
        with contextlib.suppress(OSError):  # a read-only output folder: nothing kept, nothing to remove
            self.path.unlink()

    def _read(self) -> None:
        """The kept faces; none when the file is missing, foreign, damaged or forged."""
        from pnp.core.paths import RefusedFile, read_regular

        assert self.path is not None
        try:
            data = read_regular(self.path, STORE_MAX_BYTES + 64 * 1024 * 1024, self.root)
            if not data.startswith(MAGIC):
                return
            mac, _, payload = data[len(MAGIC) :].partition(b"\n")
            if not hmac.compare_digest(mac, self._mac(payload)):
                return  # edited, forged, or signed with another key: never trusted
            size, _, rest = payload.partition(b"\n")
            header = orjson.loads(rest[: int(size)])
            if header["doc"] != self.doc_key:
                return  # another layout, options or preset: every code may differ
            body_bytes = sum(int(length) for length in header["bodies"])
            text = rest[int(size) : int(size) + body_bytes].decode("utf-8", "surrogatepass")
            bodies, offset = [], 0
            for length in header["bodies"]:  # ASCII operators: a character per byte
                bodies.append(text[offset : offset + int(length)])
                offset += int(length)
            metas = [
                (
                    tuple(map(str, xobjects)),
                    tuple((str(f), int(s)) for f, s in fonts),
                    tuple((str(i), None if m is None else str(m)) for i, m in images),
                )
                for xobjects, fonts, images in header["metas"]
            ]
            keys, body_of, meta_of = header["faces"], header["body"], header["meta"]
            if not len(keys) == len(body_of) == len(meta_of) or not all(type(k) is str for k in keys):
                return
            if not _indices(body_of, len(bodies)) or not _indices(meta_of, len(metas)):
                return
            found = {str(k): tuple(Finding(**item) for item in v) for k, v in header["found"].items()}
            if not all(sound_finding(f) for findings in found.values() for f in findings):
                return
            entries = {
                key: (body, meta, found.get(key, ())) for key, body, meta in zip(keys, body_of, meta_of, strict=True)
            }
            page_metas = [
                (tuple(map(str, xobjects)), tuple((str(f), int(s)) for f, s in fonts))
                for xobjects, fonts in header["page_metas"]
            ]
            page_keys, sizes, page_meta = header["pages"], header["page_sizes"], header["page_meta"]
            if not len(page_keys) == len(sizes) == len(page_meta) or not _indices(page_meta, len(page_metas)):
                return
            pages, at = {}, int(size) + body_bytes
            for key, length, meta in zip(page_keys, sizes, page_meta, strict=True):
                pages[str(key)] = KeptPage(rest[at : at + int(length)], *page_metas[meta])
                at += int(length)
        except (RefusedFile, OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return
        if offset != len(text) or at != len(rest):
            return  # not a character per byte, or cut short: not what pnp wrote
        self.entries, self._bodies, self._metas, self.pages = entries, bodies, metas, pages


def _indices(values: list[Any], count: int) -> bool:
    """Whether every one of `values` is a whole number that indexes a list of `count`."""
    return all(type(v) is int for v in values) and (not values or (min(values) >= 0 and max(values) < count))


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

    code, shown = canvas._code, canvas._formsinuse
    for name, mask in images:
        path, problem = project_file(root, name)
        if problem or path is None:
            return  # the face is drawn instead
        start, listed = len(code), len(shown)
        try:
            canvas.drawImage(ImagePath(path, root), 0, 0, 1, 1, mask=mask)
        except Exception:  # noqa: BLE001 - an image reportlab cannot read: the face is drawn, and says so
            return
        finally:
            del code[start:]
            del shown[listed:]


def _font(name: str) -> Any:
    from reportlab.pdfbase.pdfmetrics import getFont

    return getFont(name)


def face_keys(loaded: Any, layout: Any, kind: str, digests: Any) -> dict[int, str]:
    """id(record) -> the face digest of each record of `kind` (digests: pnp.drawing.faces.FaceDigests)."""
    return {id(record): digests.record_key(layout, kind, record) for _, _, record in loaded.records(kind)}


def kind_preset(loaded: Any, layout: Any, kind: str, name: str = "") -> str:
    """The characters a kind's fonts are preset with (pnp.drawing.stablefont); `name`: the sheets'
    label (the kind's schema title, or the kind)."""
    from pnp.drawing.stablefont import preset_chars

    return preset_chars(preset_text(loaded, layout, kind, name or kind))


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


def preset_text(loaded: Any, layout: Any, kind: str, name: str) -> str:
    """Every text a kind's faces may draw characters of: its layout, its records (all records when
    its templates look others up), the icons, the sheet label. Assigned first in its fonts
    (pnp.drawing.stablefont); a character drawn that is not here only costs the reuse."""
    from pnp.drawing.faces import REF_FILTER

    layout_text = orjson.dumps(layout.data).decode()
    if REF_FILTER.search(layout_text) or "records_of" in layout_text:
        records = [record_file.records for record_file in loaded.files]
    else:
        records = [record for _, _, record in loaded.records(kind)]
    icons = orjson.dumps(loaded.icons, default=str).decode()
    return f"{layout_text}{orjson.dumps(records, default=str).decode()}{icons}{name}"
