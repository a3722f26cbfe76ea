"""`pnp export gallery`: a static HTML proof page of every card, searchable by name.

Every card as an image with its record's fields and its problems (Jinja2 template in
pnp/templates/), opening from the file system. Unlike the other exports it can be written for a
project with errors (--with-errors), to show them on their cards.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.output import digest
from pnp.core.problems import Problem
from pnp.drawing.shapes import cut_out
from pnp.outputs.export_run import (
    INCH,
    ExportOptions,
    ExportResult,
    KindPlan,
    Session,
    draw_pages,
    in_output_run,
    no_tick,
    png_bytes,
    rasterise,
)
from pnp.outputs.printshop import safe_zone_problems
from pnp.project.config import Project

if TYPE_CHECKING:
    from pnp.drawing.pdf import Face
    from pnp.translation.translate import Fallbacks

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
GALLERY_TEMPLATE = "gallery.html.j2"
RECORD_PREFIX = re.compile(r"^record '[^']*'(: |, )")  # redundant on the gallery's card


# --- pnp export gallery -----------------------------------------------------------------------


@in_output_run
def run_gallery(project: Project, options: ExportOptions) -> ExportResult:
    """output/gallery/index.html and output/gallery/img/<game>/<kind>/<name>-front.png (and -back.png)."""
    session = Session(project, options)
    if session.failed and not options.with_errors:
        return session.result()
    plans = session.plans(distinct=True, all_kinds=True)
    gallery = project.output / "gallery"
    tick = session.progress(plans)
    images: dict[Path, tuple[bytes, str]] = {}
    fresh: list[Path] = []
    for plan in plans:
        session.problems.extend(safe_zone_problems(plan))
        folder = gallery / "img" / plan.game.folder / plan.kind
        targets = {(i, side): folder / f"{name}-{side}.png" for i, name in enumerate(plan.names) for side in plan.sides}
        key = digest(plan.key, "gallery", options.dpi)
        # always drawn (cheap), so the page lists text that does not fit; rasterised only when changed
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick, tolerant=options.with_errors)
        session.problems.extend(drawn.problems)
        if session.fresh(list(targets.values()), key):
            fresh.extend(targets.values())
            tick(len(drawn.pages))
            continue
        corner = plan.renderer.corner * options.dpi / 72
        for page, image in zip(drawn.pages, rasterise(plan, drawn, options.dpi, False, tick), strict=True):
            image = cut_out(image, plan.renderer.shape, corner)  # as cut: transparent outside its shape
            images[targets[page]] = (png_bytes(image, options.dpi), key)
    if session.failed and not options.with_errors:
        return session.result()  # text that does not fit, a missing image: nothing is written
    fallbacks = session.localized.fallbacks if session.localized else None
    by_card = session.localized.problems_by_card(session.problems) if session.localized else {}
    html = render_gallery(project, plans, session.problems, options, fallbacks, by_card)
    index = gallery / "index.html"
    html_key = digest(html)
    for path, (data, key) in images.items():
        session.write(path, data, key)
    session.skipped.extend(fresh)
    if session.fresh([index], html_key):
        session.skipped.append(index)
    else:
        session.write(index, html.encode(), html_key)
    session.remove_stale([*images, *fresh], (gallery / "img").rglob("*.png"))
    return session.result()


def render_gallery(
    project: Project,
    plans: list[KindPlan],
    problems: list[Problem],
    options: ExportOptions,
    fallbacks: Fallbacks | None = None,
    by_card: dict[str, list[Problem]] | None = None,
) -> str:
    """The proof page: games, then kinds, then one figure per card with its fields and problems;
    in a language exported with --fallback, the cards showing source text are marked.
    `by_card`: a language's catalog problems by the record id whose card they concern."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    by_file: dict[str, list[Problem]] = {}
    for problem in problems:
        by_file.setdefault(problem.file, []).append(problem)
    games: dict[str, dict[str, Any]] = {}
    total = 0
    on_cards: set[Problem] = set()  # catalog problems shown on a card (not listed again outside)
    for plan in plans:
        game = games.setdefault(plan.game.folder, {"title": plan.game.title, "folder": plan.game.folder, "kinds": []})
        cards = []
        scale = options.dpi / INCH
        width, height = round(plan.renderer.width * scale), round(plan.renderer.height * scale)
        for name, face in zip(plan.names, plan.faces, strict=True):
            record = face.record
            base = f"img/{plan.game.folder}/{plan.kind}/{name}"
            catalog_own = (by_card or {}).get(str(record.get("id")), [])
            on_cards.update(catalog_own)
            own = _problems_of(face, by_file) + catalog_own
            title = str(record.get("name") or record.get("id") or name)
            cards.append(
                {
                    "id": str(record.get("id", "")),
                    "name": title,
                    "search": _search_text(f"{title} {record.get('id', '')}"),
                    "front": f"{base}-front.png",
                    "back": f"{base}-back.png" if plan.renderer.has_back else None,
                    "width": width,
                    "height": height,
                    "extra": ", ".join(f"{k} {v}" for k, v in face.extra.items() if k != "copy"),
                    "fields": [(key, _field_text(value)) for key, value in record.items()],
                    "problems": [
                        {
                            "severity": p.severity,
                            "code": p.code,
                            "message": RECORD_PREFIX.sub("", p.message),
                            "where": p.place + (f" (at {p.pointer})" if p.pointer else ""),
                        }
                        for p in own
                    ],
                    "errors": sum(1 for p in own if p.severity == "error"),
                    "fallback": fallbacks.of_card(str(record.get("id")), plan.layout) if fallbacks else [],
                }
            )
        total += len(cards)
        game["kinds"].append({"kind": plan.kind, "layout": plan.layout.name, "cards": cards})
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    record_files = _record_files(plans)
    unplaced = [p for p in problems if p.file not in record_files and p not in on_cards]
    return env.get_template(GALLERY_TEMPLATE).render(
        title=project.name,
        language=options.lang,
        source_language=project.languages[0] if project.languages else "",
        games=list(games.values()),
        total=total,
        dpi=options.dpi,
        unplaced=[
            {
                "severity": p.severity,
                "code": p.code,
                "message": p.message,
                "where": p.place if p.file else "",
            }
            for p in unplaced
        ],
    )


def _record_files(plans: list[KindPlan]) -> set[str]:
    return {origin[0].display for plan in plans for origin in plan.origins.values()}


def _problems_of(face: Face, by_file: dict[str, list[Problem]]) -> list[Problem]:
    """Problems located in the face's record: its file, at or under its record's JSON pointer."""
    if face.origin is None:
        return []
    record_file, index = face.origin
    pointer = record_file.pointer(index)
    own = [
        p for p in by_file.get(record_file.display, []) if p.pointer == pointer or p.pointer.startswith(pointer + "/")
    ]
    seen: set[tuple[str, str]] = set()
    unique = []
    for problem in own:
        if (problem.code, problem.message) not in seen:
            seen.add((problem.code, problem.message))
            unique.append(problem)
    return sorted(unique, key=lambda p: p.severity != "error")  # errors first, otherwise in file order


def _search_text(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def _field_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
