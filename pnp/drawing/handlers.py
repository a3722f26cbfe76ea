"""One drawing function per layout element type (rect, circle, text, stat, image, ...).

The Renderer (pnp.drawing.render) decides what to draw and when; these functions draw one element
each, looked up by its type in HANDLERS. A new element type is a function here and a line in it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from pnp.core.paths import asset_code, image_problem, project_file
from pnp.core.problems import Finding
from pnp.drawing.elements import Context, DrawFailure, Element, hex_color, record_pointer
from pnp.drawing.images import ImagePath, place_image
from pnp.drawing.impose import Box
from pnp.drawing.renderer_view import RendererView
from pnp.drawing.textbox import set_text


@dataclass(slots=True)
class Drawing:
    """One face being drawn: what every element handler needs besides the element."""

    renderer: RendererView
    canvas: Canvas
    context: Context
    box: Box
    issues: list[Finding]
    record: dict[str, Any]


Handler = Callable[[Drawing, Element], None]


def bleed_frame(r: RendererView, element: Element, box: Box) -> tuple[float, float, float, float]:
    """The element's frame in page points; with `bleed: true`, grown into the bleed on every side
    where it touches the trim edge."""
    x, y, w, h = r.frame(element, box)
    if element.spec.get("bleed"):
        b = r.bleed
        if element.x <= 0.01:
            x, w = x - b, w + b
        if element.y <= 0.01:
            h += b
        if abs(element.x + (element.w or box.width) - box.width) <= 0.01 or not element.w:
            w += b
        if abs(element.y + (element.h or box.height) - box.height) <= 0.01 or not element.h:
            y, h = y - b, h + b
    return x, y, w, h


def draw_rect(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    x, y, w, h = bleed_frame(r, element, box)
    stroke, fill = r.stroke_fill(canvas, element, context)
    radius = float(element.spec.get("radius", 0)) * r.scale
    if radius:
        canvas.roundRect(x, y, w, h, radius, stroke=stroke, fill=fill)
    else:
        canvas.rect(x, y, w, h, stroke=stroke, fill=fill)


def draw_circle(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    x, y, w, h = r.frame(element, box)
    stroke, fill = r.stroke_fill(canvas, element, context)
    canvas.circle(x + w / 2, y + h / 2, min(w, h) / 2, stroke=stroke, fill=fill)


def draw_hexagon(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    x, y, w, h = r.frame(element, box)
    stroke, fill = r.stroke_fill(canvas, element, context)
    r.hex_path(canvas, x, y, w, h, stroke, fill)


def draw_polygon(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    stroke, fill = r.stroke_fill(canvas, element, context)
    points = [(box.x + px * r.scale, box.y + box.height - py * r.scale) for px, py in element.spec["points"]]
    path = canvas.beginPath()
    path.moveTo(*points[0])
    for point in points[1:]:
        path.lineTo(*point)
    path.close()
    canvas.drawPath(path, stroke=stroke, fill=fill)


def draw_line(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    spec = element.spec
    r.stroke_fill(canvas, element, context)
    x2 = float(spec.get("x2", 0)) * r.scale
    y2 = float(spec.get("y2", 0)) * r.scale
    canvas.line(box.x + element.x, box.y + box.height - element.y, box.x + x2, box.y + box.height - y2)


def draw_text(d: Drawing, element: Element) -> None:
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    text = r.text_of(element, "text", context)
    if text:
        set_text(r, canvas, text, element, r.frame(element, box), context, issues, record)


def draw_stat(d: Drawing, element: Element) -> None:
    """A labelled box: small label on top, the value large in the middle (empty when absent)."""
    draw_stat_frame(d, element)
    draw_stat_value(d, element)


def draw_stat_frame(d: Drawing, element: Element) -> None:
    """A stat's rounded box and its label (static for most layouts: drawn once per PDF)."""
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    x, y, w, h = r.frame(element, box)
    stroke, fill = r.stroke_fill(canvas, element, context)
    if not stroke and not fill:
        canvas.setStrokeColor(hex_color("#333333"))
        canvas.setLineWidth(0.6)
        stroke = 1
    canvas.roundRect(x, y, w, h, min(w, h) * 0.15, stroke=stroke, fill=fill)
    label = r.text_of(element, "label", context)
    label_h = h * 0.32 if label else 0.0
    label_element = (element.parts or stat_parts(element))[0]
    if label:
        label_size = min(float(element.spec.get("size", 12)) * 0.45, label_h * 0.8)
        inset = min(w, h) * 0.1
        set_text(
            r,
            canvas,
            label,
            label_element,
            (x + inset, y + h - label_h - inset * 0.6, w - 2 * inset, label_h),
            context,
            issues,
            record,
            size=label_size,
            min_size=min(label_size, 4.0),
        )


def draw_stat_value(d: Drawing, element: Element) -> None:
    """A stat's value, below its label."""
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    x, y, w, h = r.frame(element, box)
    label_h = h * 0.32 if r.text_of(element, "label", context) else 0.0
    value = r.text_of(element, "value", context)
    if value:
        value_element = (element.parts or stat_parts(element))[1]
        set_text(r, canvas, value, value_element, (x + 1, y + 0.5, w - 2, h - label_h - 1), context, issues, record)


def stat_parts(element: Element) -> tuple[Element, Element]:
    """A stat's label (small, one line) and value (bold, centred), as text elements."""
    label = Element(
        element.kind,
        element.name + " label",
        element.pointer,
        {**element.spec, "wrap": False, "align": "center", "valign": "middle", "rotate": 0, "bold": False},
        0,
        0,
        0,
        0,
        {},
    )
    value = Element(
        element.kind,
        element.name,
        element.pointer,
        {**element.spec, "align": "center", "valign": "middle", "wrap": False, "bold": True},
        0,
        0,
        0,
        0,
        element.templates,
        None,
        element.plain,
    )
    return label, value


def draw_image(d: Drawing, element: Element) -> None:
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    source = r.text_of(element, "src", context)
    if not source:
        return
    image = r.images.get(source)
    if image is not None:
        if not r.dry_images:
            place_image(canvas, element, bleed_frame(r, element, box), image)
        return
    path, problem = project_file(r.root, source)
    if problem or path is None:
        code = asset_code(problem)
        if "src" in element.templates or "src" in element.plain:  # the record names the file
            message = f"record {record.get('id')!r}, layout {r.layout.name!r}: image {source!r} {problem}"
            issues.append(Finding(code, message, record_pointer(element, "src")))
        else:  # the layout names it: once, at the layout line
            message = f"layout {r.layout.name!r}: image {source!r} of element {element.name!r} {problem}"
            issues.append(Finding(code, message, f"{element.pointer}/src", in_layout=True))
        return
    broken = image_problem(path)  # a decompression bomb or a corrupt file: never handed to the decoder
    if broken and ("src" in element.templates or "src" in element.plain):  # the record names it: said there
        message = f"record {record.get('id')!r}, layout {r.layout.name!r}: image {source!r} {broken}"
        issues.append(Finding("bad-asset", message, record_pointer(element, "src")))
        return
    if broken:
        raise DrawFailure("bad-asset", "src", f"image {source!r} {broken}")
    image = ImagePath(path, r.root)
    if not r.dry_images:
        try:
            place_image(canvas, element, bleed_frame(r, element, box), image)
        except (OSError, ValueError) as err:  # the file is not an image reportlab can read
            raise DrawFailure("bad-asset", "src", f"image {source!r} cannot be read: {err}") from None
    r.images[source] = image


HANDLERS: dict[str, Handler] = {
    "rect": draw_rect,
    "circle": draw_circle,
    "hexagon": draw_hexagon,
    "polygon": draw_polygon,
    "line": draw_line,
    "text": draw_text,
    "stat": draw_stat,
    "stat-frame": draw_stat_frame,
    "stat-value": draw_stat_value,
    "image": draw_image,
}
