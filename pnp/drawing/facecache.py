"""`pnp check`'s drawing, face by face: what drawing each record's faces found is kept under the
record's face digest (pnp.drawing.faces), so that after an edit only the faces whose digest
changed are drawn again, on a throwaway PDF, as `pnp build` draws them.

Per kind, output/.pnp-cache/<kind>.json holds: what the layout alone gives (templates that do
not compile, art short of the bleed, a card too large for the paper), keyed by the layout's
digest; what counting the faces gives (`copies` and `expand` templates), keyed by every record's
digest in order; and each record's own drawing findings, unlocated, keyed by its face digest.
Findings are located afresh each time (pnp.drawing.findings.place), so a record that moved in its
file, or two records alike, are each reported where they are now.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pnp.core.problems import Finding, sound_finding
from pnp.drawing.facekeys import CACHE_MAX_BYTES, KEYS_FOLDER, read_keys, write_keys
from pnp.project.records import RecordFile

if TYPE_CHECKING:
    from pnp.drawing.faces import FaceDigests
    from pnp.drawing.impose import SheetSpec
    from pnp.project.layout import Layout
    from pnp.project.loaded import LoadedProject

Located = tuple[RecordFile, Finding]
Origin = tuple[RecordFile, int]


class DrawCounter:
    """How many faces a check drew (tests count them: one edit, one face)."""

    def __init__(self) -> None:
        self.faces = 0


def kind_findings(
    loaded: LoadedProject,
    layout: Layout,
    kind: str,
    spec: SheetSpec,
    records: list[tuple[Origin, dict[str, Any]]],
    digests: FaceDigests,
    cache_file: Path | None,
    counter: DrawCounter | None = None,
    jobs: int = 0,
    reserved: int = 0,
    signing_key: bytes | None = None,
) -> list[Located]:
    """What drawing `records` of `kind` finds, located; drawing only the faces not in the cache
    (`jobs`, `reserved`: as `draw_faces`; `signing_key`: the project's, which signs the faces'
    keys kept per record file, see `read_keys`)."""
    from pnp.drawing.locate import place

    layout_key = digests.layout_key(layout, kind)
    stored = _read(cache_file, loaded.project.root) if cache_file is not None else {}
    same_layout = stored.get("layout_key") == layout_key
    keys_path = cache_file.parent / KEYS_FOLDER / cache_file.name if cache_file is not None else None  # keys_file
    known = read_keys(keys_path, layout_key, signing_key, loaded.project.root)
    keys, files = digests.keys_by_file(layout, kind, records, known)
    if files != known:
        write_keys(keys_path, layout_key, files, signing_key)
    records_key = hashlib.sha256("\n".join(keys).encode()).hexdigest()
    faces: dict[str, list[Finding]] = stored.get("faces", {}) if same_layout else {}
    own: list[Finding] = stored.get("layout", []) if same_layout else []
    bleed: list[Finding] = stored.get("bleed", []) if same_layout else []
    imposed: list[Finding] = stored.get("impose", []) if same_layout else []
    counted: list[Finding] | None = (
        stored.get("expand") if same_layout and stored.get("records_key") == records_key else None
    )
    todo = [(origin, record) for (origin, record), key in zip(records, keys, strict=True) if key not in faces]
    if todo or counted is None or not same_layout:
        from pnp.drawing.bleedcheck import bleed_findings, inside_safe_zone, safe_findings
        from pnp.drawing.impose import ImpositionError
        from pnp.drawing.pdf import expand_faces, plainly_counted
        from pnp.drawing.render import Renderer

        renderer = Renderer(layout, loaded.project.root, loaded.icons, loaded.lookup)
        renderer.dry_images = True  # the PDF is thrown away: each image is checked, not encoded
        if not same_layout:
            own, bleed = list(renderer.findings), bleed_findings(renderer)
        if plainly_counted(renderer, records) and inside_safe_zone(renderer):  # nothing to find in counting:
            all_faces, counted = expand_faces(renderer, todo)[0], []  # only the faces drawn are made
        else:
            all_faces, counted = expand_faces(renderer, records)
            counted = [*counted, *safe_findings(renderer, all_faces)]  # where elements sit, for these records
        wanted = {(id(origin[0]), origin[1]) for origin, _ in todo}
        drawn_faces = [face for face in all_faces if (id(face.origin[0]), face.origin[1]) in wanted]
        if todo:
            by_origin: dict[tuple[int, int], list[Finding]] = {(id(o[0]), o[1]): [] for o, _ in todo}
            try:
                drawn = draw_faces(renderer, drawn_faces, spec, kind, jobs, reserved)
                imposed = []
            except ImpositionError as err:
                drawn = []
                imposed = [Finding("layout-error", f"layout {layout.name!r}: {err}", "/size", in_layout=True)]
                by_origin = {}  # nothing was drawn: nothing to keep for these faces
            if counter is not None:
                counter.faces += len(drawn_faces) if not imposed else 0
            for face, finding in drawn:
                by_origin[(id(face.origin[0]), face.origin[1])].append(finding)
            for (origin, _), key in zip(records, keys, strict=True):
                if (id(origin[0]), origin[1]) in by_origin:
                    faces[key] = by_origin[(id(origin[0]), origin[1])]
        if cache_file is not None:
            _write(cache_file, _payload(layout_key, keys, own, bleed, imposed, counted, faces))
    drawn_now = [
        (origin, finding) for (origin, _), key in zip(records, keys, strict=True) for finding in faces.get(key, [])
    ]
    return place(layout, [*own, *counted, *bleed, *imposed], drawn_now)


def _payload(
    layout_key: str,
    keys: list[str],
    own: list[Finding],
    bleed: list[Finding],
    imposed: list[Finding],
    counted: list[Finding] | None,
    faces: dict[str, list[Finding]],
) -> dict[str, Any]:
    return {
        "layout_key": layout_key,
        "records_key": hashlib.sha256("\n".join(keys).encode()).hexdigest(),
        "layout": own,
        "bleed": bleed,
        "impose": imposed,
        "expand": counted,
        "faces": {key: faces[key] for key in dict.fromkeys(keys) if key in faces},
    }


@dataclass(frozen=True)
class CheckCache:
    """Where `pnp check` keeps a kind's findings, and the digests it keys them by: `pnp build`
    stores what it found there too, so that a check after a build draws nothing."""

    file: Path
    digests: FaceDigests


def remember_build(
    cache: CheckCache,
    layout: Layout,
    kind: str,
    records: list[tuple[Origin, dict[str, Any]]],
    found: tuple[list[Finding], list[Finding], list[Finding], list[Finding]],
    drawn: list[tuple[Origin, Finding]],
) -> None:
    """Store what a build found drawing every record of `kind` (`found`: the layout's own, its
    bleed, what counting and placing the faces gave, an imposition error) as kind_findings stores it."""
    own, bleed, counted, imposed = found
    keys = cache.digests.record_keys(layout, kind, [record for _, record in records])
    by_origin: dict[tuple[int, int], list[Finding]] = {}
    for origin, finding in drawn:
        by_origin.setdefault((id(origin[0]), origin[1]), []).append(finding)
    faces: dict[str, list[Finding]] = {}  # imposed: nothing was drawn, nothing to keep for the faces
    none: list[Finding] = []  # what most faces found (one list for them all: it is only written)
    if not imposed and not by_origin:  # no face found anything
        faces = dict.fromkeys(keys, none)
    elif not imposed:
        for (origin, _), key in zip(records, keys, strict=True):
            faces.setdefault(key, by_origin.get((id(origin[0]), origin[1]), none))
    _write(cache.file, _payload(cache.digests.layout_key(layout, kind), keys, own, bleed, imposed, counted, faces))


def _read(path: Path, root: Path) -> dict[str, Any]:
    """The stored entry of a kind, as Findings; {} when there is none or it is not sound."""
    from pnp.core.paths import RefusedFile, read_regular

    try:  # a regular file only: a pipe planted in the cache must not block pnp check
        stored = orjson.loads(read_regular(path, CACHE_MAX_BYTES, root))
        out: dict[str, Any] = {"layout_key": str(stored["layout_key"]), "records_key": str(stored["records_key"])}
        for name in ("layout", "bleed", "impose"):
            out[name] = [Finding(**item) for item in stored[name]]
        out["expand"] = None if stored["expand"] is None else [Finding(**item) for item in stored["expand"]]
        out["faces"] = {str(k): [Finding(**item) for item in v] for k, v in stored["faces"].items()}
    except (RefusedFile, OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no cache, or one this pnp cannot read: draw again
    every = [f for name in ("layout", "bleed", "impose", "expand") for f in out[name] or ()]
    every += [f for found in out["faces"].values() for f in found]
    return out if all(sound_finding(f) for f in every) else {}  # edited by hand, or by another pnp: draw again


def _write(path: Path, payload: dict[str, Any]) -> None:
    from pnp.core.output import atomic_write

    data = orjson.dumps(payload)  # a Finding as its fields, as dataclasses.asdict gives them
    with contextlib.suppress(OSError):  # a read-only checkout: the check still works, only slower next time
        atomic_write(path, lambda handle: handle.write(data))


PARALLEL_MIN_FACES = 300  # below this many faces per process, forking costs more than it saves


def draw_jobs(faces: int, minimum: int = PARALLEL_MIN_FACES, reserved: int = 0) -> int:
    """Processes to draw `faces` with: one per core this process may use (but `reserved` cores,
    busy with other work of the same command), each with at least `minimum` faces to draw."""
    from pnp.core.workers import can_fork, usable_cores

    if not can_fork():
        return 1
    return max(1, min(usable_cores() - reserved, faces // minimum))


def draw_faces(
    renderer: Any, faces: list[Any], spec: SheetSpec, kind: str, jobs: int = 0, reserved: int = 0
) -> list[tuple[Any, Finding]]:
    """Draw `faces` on a throwaway PDF, as `pnp build` draws them; (face, finding) in face order.
    The PDF is never written out (what drawing finds is known when the faces are drawn).

    On several cores (`jobs` processes; 0: one per core but `reserved` ones, busy with other work
    of the check, for enough faces), forked children each draw a contiguous share while this process draws the
    first; their findings come back by face index, so the result is the one a single process
    gives. A child that fails is redone here (pnp.core.workers: a failed child loses nothing).
    """
    from pnp.core.workers import Child
    from pnp.drawing.pdf import write_cut_sheets

    jobs = draw_jobs(len(faces), PARALLEL_MIN_FACES, reserved) if jobs == 0 else min(jobs, len(faces))
    if jobs <= 1:
        return write_cut_sheets(io.BytesIO(), renderer, faces, spec, kind, save=False)
    size = -(-len(faces) // jobs)
    shares = [(start, faces[start : start + size]) for start in range(0, len(faces), size)]
    children = [(start, share, Child(_draw_share, renderer, share, start, spec, kind)) for start, share in shares[1:]]
    try:
        found = _draw_share(renderer, shares[0][1], 0, spec, kind)
    except BaseException:
        for _, _, child in children:
            child.result()  # reaped, not left behind
        raise
    for start, share, child in children:
        drawn = child.result()  # [] is a share that found nothing; None a child that failed
        found.extend(drawn if drawn is not None else _draw_share(renderer, share, start, spec, kind))
    return [(faces[index], finding) for index, finding in found]


def _draw_share(renderer: Any, share: list[Any], start: int, spec: SheetSpec, kind: str) -> list[tuple[int, Finding]]:
    """(index into all the faces, finding) for one share; an ImpositionError propagates (every
    share raises it alike: it is the layout's size against the paper)."""
    from pnp.drawing.pdf import write_cut_sheets

    index = {id(face): start + i for i, face in enumerate(share)}
    drawn = write_cut_sheets(io.BytesIO(), renderer, share, spec, kind, save=False)
    return [(index[id(face)], finding) for face, finding in drawn]
