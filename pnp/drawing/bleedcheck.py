"""`short-of-bleed`: art that touches the trim edge but stops there, so a cut a hair off shows paper.

Read from the prepared layout (no drawing): a rect or image reaching an edge of a rectangular
card without `"bleed": true`, or an image with `"bleed": true` fitted with `contain` (which
leaves the bleed empty unless its proportions match the grown frame).
"""

from __future__ import annotations

from typing import Any

from pnp.core.problems import Finding
from pnp.core.units import MM

EDGE = 0.01  # points
CODE = "short-of-bleed"


def bleed_findings(renderer: Any) -> list[Finding]:
    """One warning per element of `renderer`'s layout whose art does not reach the bleed."""
    if renderer.bleed <= 0 or renderer.shape not in ("rect", "rounded"):
        return []  # round and hex tokens are cut inside their box: its edge is no cut
    found: list[Finding] = []
    for face, (_, elements) in renderer.faces.items():
        for element in elements:
            if element.kind not in ("rect", "image"):
                continue
            edges = _edges(renderer, element)
            what = f"{face} element {element.name!r} ({element.kind})"
            if edges and not element.spec.get("bleed"):
                message = (
                    f"{what} touches the {_listed(edges)} trim edge{'s' if len(edges) > 1 else ''} but stops there, "
                    "so a cut a hair off "
                    f'shows paper; add "bleed": true to extend it {renderer.bleed / MM:g} mm into the bleed'
                )
                found.append(Finding(CODE, message, element.pointer, in_layout=True))
            elif edges and element.kind == "image" and element.spec.get("fit", "contain") != "cover":
                message = (
                    f'{what} has "bleed": true but "fit": "contain", which leaves the bleed empty unless the '
                    'picture has the proportions of its frame with bleed; use "fit": "cover"'
                )
                found.append(Finding(CODE, message, element.pointer, in_layout=True))
    return found


def _edges(renderer: Any, element: Any) -> list[str]:
    """The trim edges an element's frame reaches (its x, y from the top-left corner, in points)."""
    right = element.x + (element.w or renderer.width - element.x)
    bottom = element.y + (element.h or renderer.height - element.y)
    edges = []
    if element.y <= EDGE:
        edges.append("top")
    if bottom >= renderer.height - EDGE:
        edges.append("bottom")
    if element.x <= EDGE:
        edges.append("left")
    if right >= renderer.width - EDGE:
        edges.append("right")
    return edges


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
