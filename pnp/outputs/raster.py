"""`pnp export png` and `pnp export tts`: the exports that are images of the cards.

Both rasterise the print-shop pages (pnp.outputs.export_run); png writes one file per card face,
tts composes Tabletop Simulator deck sheets (at most 10 x 7 slots, the last one the hidden face,
at most 4096 px a side) with a back image and a JSON file per sheet giving what to type when importing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pnp.core.output import digest
from pnp.drawing.shapes import cut_out
from pnp.outputs.export_run import (
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
from pnp.project.config import Project

if TYPE_CHECKING:
    from PIL.Image import Image

TTS_MAX_COLUMNS = 10
TTS_MAX_ROWS = 7
TTS_MIN_SIDE = 2  # Tabletop Simulator's importer takes 2-10 columns and 2-7 rows
TTS_MAX_PIXELS = 4096
TTS_PER_SHEET = TTS_MAX_COLUMNS * TTS_MAX_ROWS - 1  # the last slot holds the hidden face
PLAIN_HIDDEN = "#808080"
TTS_GROUND = (255, 255, 255)  # outside a rounded, round or hex face on a deck sheet: the sheet's own white


# --- pnp export png ---------------------------------------------------------------------------


@in_output_run
def run_png(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/png/<kind>/<record-id>[-<n>]-front.png (and -back.png)."""
    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    tick = session.progress(plans)
    for plan in plans:
        if plan.blocked:
            tick(plan.units)
            continue
        folder = project.output / plan.game.folder / "png" / plan.kind
        targets = {(i, side): folder / f"{name}-{side}.png" for i, name in enumerate(plan.names) for side in plan.sides}
        key = digest(plan.key, "png", options.dpi, options.with_bleed)
        if session.skip_if_fresh(plan, list(targets.values()), key, tick):
            continue
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick)  # ticks as it rasterises
        session.problems.extend(drawn.problems)
        if drawn.failed:
            tick(len(drawn.pages))
            continue
        images = rasterise(plan, drawn, options.dpi, options.with_bleed, tick)
        corner = plan.renderer.corner * options.dpi / 72
        for page, image in zip(drawn.pages, images, strict=True):
            if not options.with_bleed:  # as cut: transparent outside a rounded, round or hex face
                image = cut_out(image, plan.renderer.shape, corner)
            session.write(targets[page], png_bytes(image, options.dpi), key)
        session.remove_stale(targets.values(), folder.glob("*.png"))
    return session.result()


# --- pnp export tts ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SheetGrid:
    columns: int
    rows: int
    cell_width: int
    cell_height: int

    @property
    def size(self) -> tuple[int, int]:
        return self.columns * self.cell_width, self.rows * self.cell_height


def tts_grid(count: int, card_width: int, card_height: int) -> SheetGrid:
    """The grid for `count` cards plus the hidden face: the largest cards within 4096 px, then the fewest slots."""
    if not 0 < count <= TTS_PER_SHEET:
        raise ValueError(f"a sheet holds 1 to {TTS_PER_SHEET} cards, not {count}")
    best: tuple[tuple[float, int, int], int, int, float] | None = None
    for columns in range(TTS_MIN_SIDE, TTS_MAX_COLUMNS + 1):
        for rows in range(TTS_MIN_SIDE, TTS_MAX_ROWS + 1):
            if columns * rows < count + 1:
                continue
            scale = min(1.0, TTS_MAX_PIXELS / (columns * card_width), TTS_MAX_PIXELS / (rows * card_height))
            rank = (-scale, columns * rows, columns)
            if best is None or rank < best[0]:
                best = (rank, columns, rows, scale)
    assert best is not None
    _, columns, rows, scale = best
    return SheetGrid(columns, rows, max(1, math.floor(card_width * scale)), max(1, math.floor(card_height * scale)))


def split_sheets(count: int) -> list[range]:
    """Cards per sheet: as few sheets as the 69-card limit allows, filled evenly (70 cards: 35 + 35)."""
    sheets = max(1, math.ceil(count / TTS_PER_SHEET))
    base, extra = divmod(count, sheets)
    ranges: list[range] = []
    start = 0
    for n in range(sheets):
        size = base + (1 if n < extra else 0)
        ranges.append(range(start, start + size))
        start += size
    return [r for r in ranges if len(r)]


def compose_sheet(images: list[Image], hidden: Image, grid: SheetGrid) -> Image:
    from PIL import Image as PILImage

    sheet = PILImage.new("RGB", grid.size, (255, 255, 255))
    cell = (grid.cell_width, grid.cell_height)
    slots = grid.columns * grid.rows
    for slot, image in [*enumerate(images), (slots - 1, hidden)]:
        column, row = slot % grid.columns, slot // grid.columns
        fitted = image if image.size == cell else image.resize(cell, PILImage.Resampling.LANCZOS)
        sheet.paste(fitted.convert("RGB"), (column * grid.cell_width, row * grid.cell_height))
    return sheet


@in_output_run
def run_tts(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/tts/<kind>-<n>.png and .json per sheet, and <kind>-back.png (or a back sheet per sheet)."""
    from PIL import Image as PILImage

    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    tick = session.progress(plans)
    for plan in plans:
        if plan.blocked:
            tick(plan.units)
            continue
        folder = project.output / plan.game.folder / "tts"
        ranges = split_sheets(len(plan.faces))
        key = digest(plan.key, "tts", options.dpi)
        existing = [p for p in folder.glob(f"{plan.kind}-*") if _is_tts_file(plan.kind, p.name)]
        if not plan.faces:
            session.remove_stale([], existing)
            continue
        planned = [
            folder / f"{plan.kind}-{n}{suffix}" for n in range(1, len(ranges) + 1) for suffix in (".png", ".json")
        ]
        backs = _tts_backs(planned) if session.fresh(planned, key) else []
        if backs and session.skip_if_fresh(plan, [*planned, *backs], key, tick):
            continue
        drawn = draw_pages(plan, plan.renderer.bleed, "front-back", plan.kind, no_tick)  # ticks as it rasterises
        session.problems.extend(drawn.problems)
        if drawn.failed:
            tick(len(drawn.pages))
            continue
        fronts: list[Image] = [PILImage.new("RGB", (1, 1))] * len(plan.faces)
        backs_: list[Image] = []
        corner = plan.renderer.corner * options.dpi / 72
        for (index, side), image in zip(drawn.pages, rasterise(plan, drawn, options.dpi, False, tick), strict=True):
            image = cut_out(image, plan.renderer.shape, corner, TTS_GROUND)  # a deck sheet is RGB: white outside
            if side == "front":
                fronts[index] = image
            else:
                backs_.append(image)
        uniform_back = bool(backs_) and all(b.tobytes() == backs_[0].tobytes() for b in backs_[1:])
        plain = PILImage.new("RGB", fronts[0].size, _plain_colour(plan))
        hidden = backs_[0] if uniform_back else plain
        outputs: dict[Path, bytes] = {}
        single_back = folder / f"{plan.kind}-back.png"
        for n, cards in enumerate(ranges, start=1):
            grid = tts_grid(len(cards), *fronts[0].size)
            face_file = folder / f"{plan.kind}-{n}.png"
            outputs[face_file] = png_bytes(compose_sheet([fronts[i] for i in cards], hidden, grid))
            if backs_ and not uniform_back:
                back_file = folder / f"{plan.kind}-{n}-back.png"
                outputs[back_file] = png_bytes(compose_sheet([backs_[i] for i in cards], plain, grid))
            else:
                back_file = single_back
                if back_file not in outputs:
                    back = backs_[0] if uniform_back else plain
                    outputs[back_file] = png_bytes(
                        back.resize((grid.cell_width, grid.cell_height), PILImage.Resampling.LANCZOS)
                    )
            info = {
                "width": grid.columns,
                "height": grid.rows,
                "count": len(cards),
                "face": face_file.name,
                "back": back_file.name,
                "unique_backs": back_file != single_back,
                "hidden_face": "last slot (bottom right)",
                "cards": [plan.names[i] for i in cards],
            }
            outputs[folder / f"{plan.kind}-{n}.json"] = (json.dumps(info, indent=2, ensure_ascii=False) + "\n").encode()
        for path, data in outputs.items():
            session.write(path, data, key)
        session.remove_stale(outputs, existing)
    return session.result()


def _tts_backs(planned: list[Path]) -> list[Path]:
    """The back images the sheets' JSON files name (empty when one cannot be read)."""
    backs: set[Path] = set()
    for path in planned:
        if path.suffix == ".json":
            try:
                backs.add(path.parent / str(json.loads(path.read_text(encoding="utf-8"))["back"]))
            except (OSError, ValueError, KeyError, TypeError):
                return []
    return sorted(backs)


def _is_tts_file(kind: str, name: str) -> bool:
    return re.fullmatch(re.escape(kind) + r"-(\d+(-back)?\.(png|json)|back\.png)", name) is not None


def _plain_colour(plan: KindPlan) -> str:
    """The hidden face when the backs differ: a plain card in the back's background colour (grey without)."""
    back = plan.layout.data.get("back")
    back = back.get("default") if isinstance(back, dict) and "by" in back else back  # a back chosen per record
    colour = back.get("background") if isinstance(back, dict) else None
    return colour if isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", colour) else PLAIN_HIDDEN
