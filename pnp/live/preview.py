"""The live preview's model: the project loaded and checked as `pnp check` does, each card's
face drawn to PNG only when its inputs changed, and the snapshot a round hands to the page.

Everything the live preview needs from the check and drawing stages goes through the adapter
functions here (`load_and_check`, `new_renderer`, `render_face_png`), so a change to those
stages is mended in one place. `pnp.live.serve` serves it; `pnp.live.watch` runs the rounds.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from pnp.core.problems import Finding, Problem, text_line
from pnp.project.config import ConfigError, Project

if TYPE_CHECKING:
    from pnp.project.refkinds import Lookup

PREVIEW_DPI = 100
EAGER_RENDER_LIMIT = 64  # faces re-rendered during a round; more are drawn when the page asks
PARSE_CODES = frozenset(
    {"empty-file", "file-too-large", "unreadable-file", "invalid-encoding", "byte-order-mark", "json-syntax"}
)


# --- adapter: the only calls into check, layout, render and build --------------------------------


@dataclass(frozen=True, slots=True)
class Checked:
    """One round's view of the project: what `pnp check` reports, and what the preview draws."""

    loaded: Any  # pnp.project.loaded.LoadedProject
    layouts: Any  # pnp.project.layout.LayoutSet
    icons: dict[str, dict[str, Any]]
    problems: tuple[Problem, ...]
    records: int


@dataclass(frozen=True, slots=True)
class RecordRef:
    """Where a record is: its file's display name, the pointer of the record, its file object."""

    display: str
    pointer: str
    source: Any  # pnp.project.records.RecordFile, to locate problems


def load_and_check(project: Project) -> Checked:
    """Load every record and layout and check them, as `pnp check` does (one process)."""
    from pnp.project.loaded import load_project_records
    from pnp.verify.run import CheckOptions, check_loaded

    loaded = load_project_records(project)
    problems = check_loaded(loaded, CheckOptions(render=False))  # the cards changed are drawn for the page
    layouts = loaded.layouts
    try:
        icons = loaded.icons
    except ConfigError:
        icons = {}  # check_loaded reported it
    records = sum(len(f.records) for f in loaded.files)
    return Checked(loaded, layouts, icons, tuple(problems), records)


def card_records(checked: Checked) -> Iterable[tuple[str, Any, RecordRef, dict[str, Any]]]:
    """(kind, layout, where, record) of every record whose kind has a layout, in index order."""
    loaded = checked.loaded
    for kind in sorted(loaded.index.files_by_kind):
        layout = checked.layouts.by_kind.get(kind)
        if layout is None:
            continue
        for record_file, index, record in loaded.records(kind):
            yield kind, layout, RecordRef(record_file.display, record_file.pointer(index), record_file), record


def broken_files(checked: Checked) -> set[str]:
    """Record files that could not be read at all this round (their cards stay as last seen)."""
    return {
        f.display
        for f in checked.loaded.files
        if not f.records and any(finding.code in PARSE_CODES for finding in f.findings)
    }


def new_renderer(checked: Checked, layout: Any, lookup: Lookup) -> Any:
    from pnp.drawing.render import Renderer

    return Renderer(layout, checked.loaded.project.root, checked.icons, lookup)


def face_copies(renderer: Any, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The distinct faces of a record (the layout's `expand` values), its copies shown once."""
    from pnp.drawing.pdf import expand_faces

    faces, _ = expand_faces(renderer, [(None, record)])
    return [face.extra for face in faces if face.extra.get("copy") == 1]


def render_face_png(
    renderer: Any, side: str, record: dict[str, Any], extra: dict[str, Any], dpi: float
) -> tuple[bytes, list[tuple[str, str, str]]]:
    """One face, trimmed, as PNG bytes, and its render problems as (code, message).

    Drawn alone on a one-page PDF (no kind PDF needed) and rasterised with pdfium.
    """
    import pypdfium2 as pdfium

    from pnp.drawing.impose import Box
    from pnp.drawing.pdf import new_canvas

    buffer = io.BytesIO()
    canvas = new_canvas(buffer, (renderer.width, renderer.height), "preview")
    box = Box(0, 0, renderer.width, renderer.height)
    try:
        drawn = renderer.draw(canvas, side, record, box, extra, clip=box)
        issues = [(i.code, i.message, "" if i.in_layout else i.pointer) for i in drawn]
    except Exception as err:  # noqa: BLE001 - a record that failed its check may not draw; say so on its card
        issues = [("layout-error", f"could not draw the {side}: {type(err).__name__}: {err}", "")]
    canvas.showPage()
    canvas.save()
    document = pdfium.PdfDocument(buffer.getvalue())
    try:
        page = document[0]
        size = (max(1, round(renderer.width * dpi / 72)), max(1, round(renderer.height * dpi / 72)))
        image = page.render(scale=dpi / 72, draw_annots=False).to_pil().convert("RGB").crop((0, 0, *size))
        page.close()
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue(), issues


def record_lines(refs: list[RecordRef]) -> list[int]:
    """The line each record starts on, counted in one pass per file (not one per record)."""
    lines = [1] * len(refs)
    by_file: dict[int, list[int]] = {}
    for i, ref in enumerate(refs):
        by_file.setdefault(id(ref.source), []).append(i)
    for indices in by_file.values():
        source = refs[indices[0]].source
        text = source.text
        offsets = sorted((source.offset_of(Finding("json-syntax", "", refs[i].pointer)), i) for i in indices)
        line, last = 1, 0
        for offset, i in offsets:
            line += text.count("\n", last, offset)
            last = offset
            lines[i] = line
    return lines


def locate(ref: RecordRef, code: str, message: str, pointer: str = "") -> Problem:
    """A problem of a record's card, at the field it names (`pointer`, inside the record)."""
    return ref.source.locate(Finding(code, message, ref.pointer + pointer))  # type: ignore[no-any-return]


def problem_line(p: Problem) -> str:
    """The one line `pnp check` prints (a workbook's problem at its cell: `ships.xlsx:Ships!D8`)."""
    return text_line(p)


# --- the preview model ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Card:
    """One distinct face of a record as the page shows it; `digests` name its images."""

    key: str
    kind: str
    game: str
    name: str
    ref: RecordRef
    line: int
    record: dict[str, Any]
    extra: dict[str, Any]
    renderer: Any
    sides: tuple[str, ...]
    digests: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    stale: bool = False  # its file is broken: shown as it was at the last good save


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the page shows after one round; replaced whole, never changed."""

    generation: int
    cards: tuple[Card, ...]
    problems: tuple[Problem, ...]
    changed: tuple[str, ...]
    by_digest: dict[str, tuple[Card, str]] = field(default_factory=dict)


def _digest(*parts: Any) -> str:
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS, default=str)).hexdigest()


def _problems_of(ref: RecordRef, by_file: dict[str, list[Problem]]) -> tuple[Problem, ...]:
    pointer = ref.pointer
    own = [p for p in by_file.get(ref.display, []) if p.pointer == pointer or p.pointer.startswith(pointer + "/")]
    return tuple(dict.fromkeys(own))


class Preview:
    """Turns each round's check into a Snapshot; reuses renderers whose layout did not change."""

    def __init__(self, dpi: int = PREVIEW_DPI) -> None:
        self.dpi = dpi
        self.snapshot = Snapshot(0, (), (), ())
        self.renderers: dict[str, Any] = {}
        self._groups: dict[tuple[str, str], tuple[Any, list[Card]]] = {}  # (kind, file): cards, and what made them
        self._lookup: Lookup | None = None
        self.images: ImageCache = ImageCache()
        self.faces_drawn = 0  # faces drawn since the watch began (tests count them per round)
        from pnp.drawing.faces import FileDigests

        self.files: FileDigests | None = None  # content digests of the files faces draw, kept between rounds
        self.render_lock = threading.Lock()  # pdfium and shared renderers: one face at a time
        self.changed_event = threading.Condition()

    def lookup(self, record_id: Any, kind: str | None = None) -> dict[str, Any] | None:
        return self._lookup(record_id, kind) if self._lookup is not None else None

    def update(self, checked: Checked, problems: tuple[Problem, ...]) -> Snapshot:
        from pnp.drawing.faces import FaceDigests

        self._lookup = checked.loaded.lookup
        if self.files is None or self.files.root != checked.loaded.project.root:
            from pnp.drawing.faces import FileDigests

            self.files = FileDigests(checked.loaded.project.root)
        faces = FaceDigests(checked.loaded, self.dpi, files=self.files)  # by content: no stamp needed
        by_file: dict[str, list[Problem]] = {}
        for problem in problems:
            by_file.setdefault(problem.file, []).append(problem)
        renderers: dict[str, Any] = {}
        layout_digests: dict[str, str] = {}
        groups: dict[tuple[str, str], list[tuple[Any, RecordRef, dict[str, Any]]]] = {}
        for kind, layout, ref, record in card_records(checked):
            groups.setdefault((kind, ref.display), []).append((layout, ref, record))
        cards: list[Card] = []
        cache: dict[tuple[str, str], tuple[Any, list[Card]]] = {}
        for (kind, display), members in groups.items():
            layout = members[0][0]
            layout_digest = layout_digests.get(layout.name)
            if layout_digest is None:
                layout_digest = layout_digests[layout.name] = faces.layout_key(layout, kind)
            renderer = renderers.get(layout_digest) or self.renderers.get(layout_digest)
            if renderer is None:
                renderer = new_renderer(checked, layout, self.lookup)
            renderers[layout_digest] = renderer
            keys = tuple(faces.record_key(layout, kind, record) for layout, _, record in members)
            signature = (keys, tuple(by_file.get(display, ())))  # each record's face digest, and its problems
            before = self._groups.get((kind, display))
            if before is not None and before[0] == signature:
                group = before[1]  # the same bytes, layout and problems: the same cards
            else:
                group = self._cards_of(checked, kind, renderer, keys, members, by_file)
            cache[(kind, display)] = (signature, group)
            cards.extend(group)
        self._groups = cache
        cards = _unique_keys(cards)
        self.renderers = renderers
        cards = self._keep_broken(cards, broken_files(checked), by_file)
        previous = {card.key: card.digests for card in self.snapshot.cards}
        changed = tuple(c.key for c in cards if previous.get(c.key) != c.digests) if self.snapshot.generation else ()
        by_digest = {d: (card, side) for card in cards for d, side in zip(card.digests, card.sides, strict=True)}
        return Snapshot(self.snapshot.generation + 1, tuple(cards), problems, changed, by_digest)

    def _cards_of(
        self,
        checked: Checked,
        kind: str,
        renderer: Any,
        keys: tuple[str, ...],
        members: list[tuple[Any, RecordRef, dict[str, Any]]],
        by_file: dict[str, list[Problem]],
    ) -> list[Card]:
        """The cards of one kind's records in one file."""
        cards: list[Card] = []
        lines = record_lines([ref for _, ref, _ in members])
        game = checked.loaded.project.game(kind).title
        sides = ("front", "back") if renderer.has_back else ("front",)
        for (layout, ref, record), line, record_digest in zip(members, lines, keys, strict=True):
            try:
                extras = face_copies(renderer, record) if layout.data.get("expand") else [{"copy": 1}]
            except Exception:  # noqa: BLE001 - reported by the check or the build; show the plain face
                extras = [{"copy": 1}]
            name = str(record.get("name") or record.get("id") or kind)
            own = _problems_of(ref, by_file)
            for extra in extras:
                suffix = "".join(f"~{k}={v}" for k, v in extra.items() if k != "copy")
                key = f"{kind}:{record.get('id', ref.display + ref.pointer)}{suffix}"
                face = _digest(record_digest, extra) if suffix else record_digest
                digests = tuple(hashlib.sha256(f"{face}/{side}".encode()).hexdigest() for side in sides)
                cards.append(Card(key, kind, game, name, ref, line, record, extra, renderer, sides, digests, own))
        return cards

    def _keep_broken(self, cards: list[Card], broken: set[str], by_file: dict[str, list[Problem]]) -> list[Card]:
        """Cards of a file that no longer parses stay as they were, with the file's problems."""
        if not broken:
            return cards
        from dataclasses import replace

        kept = [
            replace(card, stale=True, problems=tuple(by_file.get(card.ref.display, [])))
            for card in self.snapshot.cards
            if card.ref.display in broken
        ]
        return cards + kept

    def publish(self, snapshot: Snapshot) -> None:
        with self.changed_event:
            self.snapshot = snapshot
            self.images.keep(set(snapshot.by_digest))
            self.changed_event.notify_all()

    def image(self, digest: str) -> bytes | None:
        """The PNG of a face by digest: from the cache, or drawn now. None for an unknown digest."""
        cached = self.images.get(digest)
        if cached is not None:
            return cached
        found = self.snapshot.by_digest.get(digest)
        if found is None:
            return None
        return self._draw(digest, *found)

    def _draw(self, digest: str, card: Card, side: str) -> bytes:
        with self.render_lock:
            cached = self.images.get(digest)
            if cached is not None:
                return cached
            data, issues = render_face_png(card.renderer, side, card.record, card.extra, self.dpi)
            self.faces_drawn += 1
            self.images.put(digest, data, issues)
        return data

    def render_changed(self, snapshot: Snapshot) -> list[Problem]:
        """Draw the faces that changed this round before the page asks; the render problems of every drawn face."""
        keys = set(snapshot.changed)
        todo = [c for c in snapshot.cards if c.key in keys and not c.stale][:EAGER_RENDER_LIMIT]
        for card in todo:
            for digest, side in zip(card.digests, card.sides, strict=True):
                self._draw(digest, card, side)
        found: list[Problem] = []
        for digest, issues in self.images.issues():
            if (entry := snapshot.by_digest.get(digest)) is not None:
                card = entry[0]
                found.extend(locate(card.ref, code, message, pointer) for code, message, pointer in issues)
        return list(dict.fromkeys(found))


def _unique_keys(cards: list[Card]) -> list[Card]:
    """Cards whose records share an id (a problem of its own) get `~2`, `~3`... to stay apart on the page."""
    from dataclasses import replace

    seen: dict[str, int] = {}
    unique = []
    for card in cards:
        n = seen[card.key] = seen.get(card.key, 0) + 1
        unique.append(card if n == 1 else replace(card, key=f"{card.key}~{n}"))
    return unique


class ImageCache:
    """PNG bytes by digest, bounded: faces of the current snapshot are kept, others dropped.

    Also what drawing each face reported, so a face's problems stay listed in later rounds.
    """

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: dict[str, bytes] = {}
        self._issues: dict[str, list[tuple[str, str, str]]] = {}  # only faces that reported something
        self._total = 0
        self._lock = threading.Lock()

    def get(self, digest: str) -> bytes | None:
        with self._lock:
            return self._items.get(digest)

    def issues(self) -> list[tuple[str, list[tuple[str, str, str]]]]:
        with self._lock:
            return list(self._issues.items())

    def put(self, digest: str, data: bytes, issues: list[tuple[str, str, str]] | None = None) -> None:
        with self._lock:
            self._total += len(data) - len(self._items.pop(digest, b""))
            self._items[digest] = data
            if issues:
                self._issues[digest] = issues
            while self._total > self.max_bytes and len(self._items) > 1:
                self._total -= len(self._items.pop(next(iter(self._items))))  # the oldest first

    def keep(self, digests: set[str]) -> None:
        with self._lock:
            self._items = {d: v for d, v in self._items.items() if d in digests}
            self._issues = {d: v for d, v in self._issues.items() if d in digests}
            self._total = sum(len(v) for v in self._items.values())
