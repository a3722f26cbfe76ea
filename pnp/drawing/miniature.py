"""A token's front drawn small, from its own layout, scaled into a square: the pictures that
setup sheets and reference aids show of the tokens they list (pnp.sheets)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.problems import severity_of

if TYPE_CHECKING:
    from pnp.project.loaded import LoadedProject


def token_drawer(loaded: LoadedProject, layouts: Any = None) -> tuple[Callable[..., bool], list[Path]]:
    """A hook drawing a token's front from its own layout, scaled into a square (for the aids);
    `layouts`: a language's translated layouts (default: the project's)."""
    from pnp.drawing.impose import Box
    from pnp.drawing.render import Renderer

    project = loaded.project
    if layouts is None:
        layouts = loaded.layouts
    icons = loaded.icons
    lookup = loaded.lookup
    renderers: dict[str, Renderer] = {}

    def draw(canvas: Any, record: dict[str, Any], x: float, y: float, size: float) -> bool:
        layout = layouts.by_kind.get(str(record.get("kind")))
        if layout is None:
            return False
        renderer = renderers.get(layout.name)
        if renderer is None:
            renderer = renderers[layout.name] = Renderer(layout, project.root, icons, lookup)
        scale = size / max(renderer.width, renderer.height)
        box = Box(0, 0, renderer.width, renderer.height)
        canvas.saveState()
        canvas.translate(x + (size - renderer.width * scale) / 2, y + (size - renderer.height * scale) / 2)
        canvas.scale(scale, scale)
        if renderer.shape == "round":  # the token as cut: a disc, not its square bleed
            path = canvas.beginPath()
            path.circle(renderer.width / 2, renderer.height / 2, min(renderer.width, renderer.height) / 2)
            canvas.clipPath(path, stroke=0, fill=0)
        issues = renderer.draw(canvas, "front", record, box, {"copy": 1}, clip=box)
        canvas.restoreState()
        return not any(severity_of(issue) == "error" for issue in issues)

    inputs = sorted({path for layout in layouts.layouts.values() for path in layout.files})
    return draw, inputs
