"""What a cut a hair off would spoil, read from the prepared layout and the records (no drawing).

`short-of-bleed`: art that touches the trim edge but stops there, so a cut a hair off shows
paper: a rect or image reaching an edge of a rectangular card without `"bleed": true`, or an
image with `"bleed": true` fitted with `contain` (which leaves the bleed empty unless its
proportions match the grown frame).
`outside-safe-zone`: an element drawn for some record closer to the cut than the layout's
`safe` (or a print shop's): a cut a hair off clips it. Both are reported by `pnp check` (through
pnp.drawing.facecache), by `pnp build` (pnp.drawing.findings.render_kind) and by the exports.
"""

from __future__ import annotations

from typing import Any

from pnp.core.problems import Finding
from pnp.core.units import MM

EDGE = 0.01  # points
CODE = "short-of-bleed"
SAFE_CODE = "outside-safe-zone"


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


def inside_safe_zone(renderer: Any) -> bool:
    """Whether every element of every face the layout may draw sits inside its safe zone (then
    `safe_findings` finds nothing, whatever the faces)."""
    return not _outside_elements(renderer, renderer.safe, f"layout {renderer.layout.name!r}")


def _outside_elements(renderer: Any, safe: float, zone: str) -> dict[int, str]:
    outside: dict[int, str] = {}
    for _, elements in renderer.faces.values():  # every face a record may choose: a few elements each
        for element in elements:
            message = _outside(renderer, element, safe, zone, renderer.width, renderer.height)
            if message is not None:
                outside[id(element)] = message
    return outside


def safe_findings(renderer: Any, faces: list[Any], safe: float | None = None, zone: str | None = None) -> list[Finding]:
    """One warning per element (of the layout, not per record) whose box leaves the safe zone for
    some face of `faces` (see docs/export.md for the rule): the layout's `safe`, or `safe` points
    named `zone` (a print shop's preset).

    Where an element sits is the layout's alone: the elements outside the zone are found first,
    and only they are tried on the faces (is the element drawn for this record?), so a layout
    whose elements all sit inside costs nothing per face (pnp check after a one-card edit)."""
    from pnp.drawing.elements import DrawFailure, template_failures

    if safe is None:
        safe, zone = renderer.safe, f"layout {renderer.layout.name!r}"
    sides = ("front", "back") if renderer.has_back else ("front",)
    outside = _outside_elements(renderer, safe, zone or "")  # id(element) -> the warning's message
    if not outside:
        return []
    problems: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for face in faces:
        record = face.record
        context = {**record, "record": record, "palette": renderer.palettes, **face.extra}
        for side in sides:
            _, elements = renderer.faces[renderer.face_for(side, record)]
            for element in elements:
                message = outside.get(id(element))
                if message is None:
                    continue
                marker = (side, element.name)  # where an element sits is the layout's: once per layout
                if marker in seen:
                    continue
                failures: tuple[type[Exception], ...] = (*template_failures(), DrawFailure)
                try:
                    if element.when is not None and not element.when(**context):
                        continue
                    if element.kind == "text" and not renderer.text_of(element, "text", context):
                        continue
                    if element.kind == "image" and not renderer.text_of(element, "src", context):
                        continue
                except failures:
                    continue  # reported as a render problem
                seen.add(marker)
                problems.append(Finding(SAFE_CODE, f"{side} {message}", element.pointer, in_layout=True))
    return problems


def _outside(renderer: Any, element: Any, safe: float, zone: str, width: float, height: float) -> str | None:
    """The warning (after its side) for an element whose box leaves the safe zone; None inside."""
    x0, y0, x1, y1 = _element_bounds(renderer, element)
    if element.kind == "rect" and element.spec.get("bleed"):
        return None  # a background meant to run into the bleed
    if x0 <= EDGE and y0 <= EDGE and x1 >= width - EDGE and y1 >= height - EDGE:
        return None  # covers the whole card: a background
    edges = {"left": x0, "top": y0, "right": width - x1, "bottom": height - y1}
    edge, distance = min(edges.items(), key=lambda item: item[1])
    if distance >= safe - EDGE:
        return None
    if distance < -EDGE:
        where = f"runs {-distance / MM:.1f} mm past the {edge} edge"
    elif distance <= EDGE:
        where = f"touches the {edge} edge"
    else:
        where = f"comes within {distance / MM:.1f} mm of the {edge} edge"
    return (
        f"element {element.name!r} ({element.kind}) {where}, outside the {safe / MM:g} mm "
        f"safe zone of {zone}; move it inwards "
        '(a background: a rect with "bleed": true)'
    )


def _element_bounds(renderer: Any, element: Any) -> tuple[float, float, float, float]:
    """An element's box in points from the trim's top-left corner, y downwards: x0, y0, x1, y1."""
    spec, scale = element.spec, renderer.scale
    if element.kind == "polygon":
        xs = [float(p[0]) * scale for p in spec.get("points", [])] or [0.0]
        ys = [float(p[1]) * scale for p in spec.get("points", [])] or [0.0]
        return min(xs), min(ys), max(xs), max(ys)
    if element.kind == "line":
        x2, y2 = float(spec.get("x2", 0)) * scale, float(spec.get("y2", 0)) * scale
        return min(element.x, x2), min(element.y, y2), max(element.x, x2), max(element.y, y2)
    w = element.w or (renderer.width - element.x)
    h = element.h or (renderer.height - element.y)
    return element.x, element.y, element.x + w, element.y + h
