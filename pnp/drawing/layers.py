"""Which elements of a face look the same on every card, grouped so they can be drawn once per PDF.

pnp.drawing.render draws a static layer as a form XObject placed on every card; this module only
decides the grouping, from the prepared elements and their boxes, so that a card still looks
exactly as when drawn element by element.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pnp.drawing.elements import Element


def group_layers(
    at: str, background: Any, elements: list[Element], width: float, height: float
) -> list[tuple[bool, list[Element]]]:
    """The face's elements in painting order, grouped in runs that do or do not depend on the record.

    A static run is drawn once per PDF (a form XObject) and placed on every card. A static element
    joins the static run before it when it overlaps none of the record's elements it would then
    be painted under instead of over, so a card looks exactly as when drawn element by element.
    A stat whose value alone reads the record is split: its box and label are static.
    """
    drawn: list[Element] = []
    if isinstance(background, str):
        drawn.append(Element("background", "background", f"{at}/background", {"fill": background}, 0, 0, 0, 0))
    for element in elements:
        drawn.extend(_split_stat(element) if element.kind == "stat" else [element])
    runs: list[tuple[bool, list[Element]]] = []
    for element in drawn:
        if not _is_static(element):
            if runs and not runs[-1][0]:
                runs[-1][1].append(element)
            else:
                runs.append((False, [element]))
            continue
        target = None
        for index in range(len(runs) - 1, -1, -1):
            static, run = runs[index]
            if static:
                target = index
                break
            if any(_overlap(element, other, width, height) for other in run):
                break
        if target is None:
            runs.append((True, [element]))
        else:
            runs[target][1].append(element)
    return runs


def _split_stat(element: Element) -> list[Element]:
    """A stat whose value alone depends on the record, as its static box and label, then its value."""
    if set(element.templates) | set(element.plain) != {"value"} or element.when is not None or "when" in element.spec:
        return [element]
    frame = replace(element, kind="stat-frame", templates={}, plain={})
    return [frame, replace(element, kind="stat-value")]


def _is_static(element: Element) -> bool:
    """Whether an element looks the same on every card: no template, no `when`, no palette by field."""
    if element.kind == "stat-value" or element.templates or element.plain:
        return False
    if element.when is not None or "when" in element.spec:
        return False
    return not any(isinstance(element.spec.get(key), dict) for key in ("fill", "stroke", "color"))


def _overlap(a: Element, b: Element, width: float, height: float) -> bool:
    """Whether two elements may paint the same spot (bounds widened by stroke, icons and bleed)."""
    ax0, ay0, ax1, ay1 = _bounds(a, width, height)
    bx0, by0, bx1, by1 = _bounds(b, width, height)
    return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1


def _bounds(element: Element, width: float, height: float) -> tuple[float, float, float, float]:
    """An element's extent from the trim's top-left (x0, y0, x1, y1), generously widened."""
    spec = element.spec
    if element.kind == "background" or spec.get("bleed") or element.kind in ("polygon", "line"):
        return -1e9, -1e9, 1e9, 1e9  # reaches the bleed, or its extent is not a box: overlaps all
    margin = 2.0 + float(spec.get("stroke_width", 0.75) or 0) + float(spec.get("size", 9) or 0)
    w = element.w or (width - element.x)
    h = element.h or (height - element.y)
    return element.x - margin, element.y - margin, element.x + w + margin, element.y + h + margin
