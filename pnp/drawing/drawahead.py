"""A build's faces drawn on every core.

`pnp build` writes a kind's cut sheets in one document, but what each face draws is card-relative
and kept as operators (pnp.drawing.facestore), the same in any document of the kind. So while
this process draws the first share of the faces the store does not keep, forked children each
draw a later share on a throwaway document of the same kind (same fonts preset, same forms) and
send back their faces' drawings. They join the store as a warm build's kept faces would, and the
document takes them when it reaches them: the PDF is the one a single process writes, byte for
byte (tests/test_draw_ahead.py). A child that fails, or whose document met a character that was
not preset, sends nothing, and its faces are drawn here.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pnp.drawing.facefile import Kept
    from pnp.drawing.facestore import FaceStore
    from pnp.drawing.impose import SheetSpec
    from pnp.drawing.pdf import Face
    from pnp.drawing.render import Renderer

MIN_FACES = 100  # per process: below this, forking and taking the drawings back cost more than they save
OWN_SHARE = 0.45  # this process also lays out, compresses and writes every page: it draws less


def draw_ahead(
    store: FaceStore,
    renderer: Renderer,
    faces: list[Face],
    spec: SheetSpec,
    title: str,
    name: str,
    jobs: int = 0,
    reserved: int = 0,
) -> None:
    """Have children draw the later shares of the faces `store` does not keep: `jobs` processes in
    all (0: one per core but `reserved` ones, each with at least MIN_FACES faces)."""
    from pnp.core.workers import Child, can_fork
    from pnp.drawing.facecache import draw_jobs

    missing = store.missing(faces)
    jobs = draw_jobs(len(missing), MIN_FACES, reserved) if jobs == 0 else min(jobs, len(missing))
    if jobs <= 1 or not can_fork():
        return
    own = round(len(missing) * OWN_SHARE) if jobs == 2 else len(missing) // jobs
    rest = missing[own:]
    size = -(-len(rest) // (jobs - 1))
    shares = [rest[start : start + size] for start in range(0, len(rest), size)]

    def start() -> list[Child[list[tuple[str, Kept]] | None]]:
        return [Child(_draw_share, store, renderer, share, spec, title, name) for share in shares]

    store.draw_elsewhere(start, rest)


def _draw_share(
    store: FaceStore, renderer: Renderer, share: list[Face], spec: SheetSpec, title: str, name: str
) -> list[tuple[str, Kept]] | None:
    """In a child: the drawings of `share`, keyed as `store` keys them; None when its document
    was not stable (a character drawn that was not preset: its codes would differ)."""
    from pnp.drawing.facefile import Kept
    from pnp.drawing.facestore import FaceStore
    from pnp.drawing.pdf import write_cut_sheets

    own = FaceStore(None, None, store.root, "", store.digests, store.preset)
    own.keeps_pages = False
    own.draws_alike(renderer)  # the same keys as `store`'s
    write_cut_sheets(io.BytesIO(), renderer, share, spec, title, None, name, own, save=False)
    if not own.stable:
        return None
    return [(key, kept) for key, kept in own.kept.items() if isinstance(kept, Kept)]
