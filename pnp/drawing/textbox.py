"""Setting one text element in its box: shrink to fit, warn of what cannot be drawn, write the text.

Text is the costly part of a card and the one with the most ways to go wrong (too long for its
box, a character the font lacks, *bold* in a font without a bold face), so it has its own module.
The words and their caches are pnp.drawing.words'; this module decides the size, the lines and
their places, writes one PDF text object per element, and draws the inline icons after it.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.problems import Finding
from pnp.core.units import MM
from pnp.drawing.elements import Context, Element, Icon, field_of, hex_color, record_pointer
from pnp.drawing.fonts import SANS, Family, missing_characters
from pnp.drawing.images import draw_icon_image
from pnp.drawing.renderer_view import RendererView
from pnp.drawing.words import (
    Run,
    TextSetter,
    Word,
    fill_op,
    is_plain,
    line_width,
    paragraph_words,
    parse_markup,
    plain_word,
    unit_width,
    wrap,
)


def set_text(
    r: RendererView,
    canvas: Canvas,
    text: str,
    element: Element,
    frame: tuple[float, float, float, float],
    context: Context,
    issues: list[Finding],
    record: dict[str, Any],
    size: float | None = None,
    min_size: float | None = None,
) -> None:
    """Wrap, shrink to fit, align and draw `text` inside `frame` (rotated when asked)."""
    spec = element.spec
    x, y, w, h = frame
    rotate = int(spec.get("rotate", 0))
    setter = r.text_setters.get(canvas)
    if setter is None:
        setter = r.text_setters[canvas] = TextSetter(canvas)
    color_spec = spec.get("color", "#111111")
    # A block whose drawing depends on nothing but its text and where it goes: drawn once per
    # document, its operators copied when the same text comes again (a stat's value on every card).
    block_key = None
    if (
        not rotate
        and isinstance(color_spec, str)
        and "color" not in element.templates
        and len(text) <= setter.BLOCK_TEXT
    ):
        block_key = (id(element), text, frame, size, min_size)
        kept = setter.block(block_key, element)
        if kept is not None:
            canvas._code.append(kept)
            return
    found = len(issues)
    if rotate in (90, 270):
        w, h = h, w
    family = r.family(spec.get("font"))
    plain = is_plain(text)
    if plain:
        font = family.pick(bool(spec.get("bold")), bool(spec.get("italic")))
        paragraphs = [[plain_word(piece, font) for piece in text.split(" ") if piece]]
        missing = missing_characters(text, font)  # every word in one font: the text's characters at once
        if missing:
            _missing_glyphs(r, {char: [font] for char in missing}, element, issues, record)
    else:
        runs = parse_markup(text, r.icons, bool(spec.get("bold")), bool(spec.get("italic")))
        paragraphs = paragraph_words(runs, family)
        _check_styles(r, runs, family, element, issues)
        _check_glyphs(r, paragraphs, element, issues, record)
    size = float(size or spec.get("size", 9))
    min_size = float(min_size if min_size is not None else spec.get("min_size", size))
    leading = float(spec.get("leading", 1.18))
    wrap_lines = bool(spec.get("wrap", True))
    over = _text_size_over_limit(size, min_size)
    if over:  # shrink-to-fit tries every half point from size down to min_size: keep that bounded
        issues.append(
            Finding(
                "limit-exceeded",
                f"layout {r.layout.name!r}: {over}",
                f"{element.pointer}/{'size' if size > current_limits().text_max_pt else 'min_size'}",
                in_layout=True,
                element=element.name,
            )
        )
        return
    lines = None
    while True:
        lines = wrap(paragraphs, w, size, wrap_lines)
        if lines is not None and len(lines) * size * leading <= h + 0.01:
            break
        if size - 0.5 < min_size - 1e-9:
            issues.append(
                Finding(
                    "text-overflow",
                    f"record {record.get('id')!r}, layout {r.layout.name!r}: text of element "
                    f"{element.name!r} ({field_of(element)}) does not fit its "
                    f"{w / MM:.1f} x {h / MM:.1f} mm box even at {min_size:g} pt; "
                    "shorten the text or enlarge the box / lower min_size",
                    record_pointer(element),
                    element=element.name,
                )
            )
            lines = lines or [[word for para in paragraphs for word in para]]
            break
        size -= 0.5
    color = r.paint(color_spec, context, element.templates.get("color"), "color")
    color = color or hex_color("#111111")
    if not rotate:
        named: set[tuple[str, int]] = set()
        icons = _draw_lines(r, canvas, setter, lines, x, y, w, h, size, leading, spec, color, named, plain)
        if block_key is not None and not icons and len(issues) == found:
            setter.keep(block_key, element, canvas._code[-1], named)
        return
    canvas.saveState()
    if rotate:
        canvas.translate(*frame[:2])
        fw, fh = frame[2], frame[3]
        if rotate == 90:
            canvas.translate(fw, 0)
        elif rotate == 180:
            canvas.translate(fw, fh)
        elif rotate == 270:
            canvas.translate(0, fh)
        canvas.rotate(rotate)
        x, y = 0.0, 0.0
    _draw_lines(r, canvas, setter, lines, x, y, w, h, size, leading, spec, color, None, plain)
    canvas.restoreState()


def _text_size_over_limit(size: float, min_size: float) -> str:
    """The limit-exceeded message when a text size is out of bounds, else ""."""
    limits = current_limits()
    if size > limits.text_max_pt:
        return exceeded("text_max_pt", f"text size {size:g} pt")
    if min_size < limits.text_min_pt:
        return exceeded("text_min_pt", f"minimum text size {min_size:g} pt").replace(
            "over the limit", "under the limit"
        )
    return ""


def _check_glyphs(
    r: RendererView, paragraphs: list[list[Word]], element: Element, issues: list[Finding], record: dict[str, Any]
) -> None:
    """A warning naming the characters the element's font has no glyph for (drawn as boxes)."""
    missing: dict[str, list[str]] = {}
    for words in paragraphs:
        for word in words:
            if word.icon is None:
                for char in missing_characters(word.text, word.font):
                    missing.setdefault(char, []).append(word.font)
    if missing:
        _missing_glyphs(r, missing, element, issues, record)


def _missing_glyphs(
    r: RendererView, missing: dict[str, list[str]], element: Element, issues: list[Finding], record: dict[str, Any]
) -> None:
    """The warning for `missing`: each character the fonts lack (in the order met), with its fonts."""
    if missing:
        chars = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in missing)
        fonts = ", ".join(sorted({f.removeprefix("pnp-") for fs in missing.values() for f in fs}))
        issues.append(
            Finding(
                "missing-glyph",
                f"record {record.get('id')!r}, layout {r.layout.name!r}: font {fonts} cannot draw {chars} "
                f"in element {element.name!r} ({field_of(element)}); change the text or use a font with them",
                record_pointer(element),
            )
        )


def _check_styles(r: RendererView, runs: list[Run], family: Family, element: Element, issues: list[Finding]) -> None:
    """A warning (once per layout) when *bold* or _italic_ text falls back to the regular face."""
    used = {"bold": any(run.bold for run in runs), "italic": any(run.italic for run in runs)}
    faces = {"bold": family.bold, "italic": family.italic}
    missing = [style for style in ("bold", "italic") if used[style] and faces[style] == family.regular]
    if missing:
        styles = " or ".join(missing)
        example = ", ".join(f'"{style}": ...' for style in missing)
        issues.append(
            Finding(
                "missing-font-style",
                f"layout {r.layout.name!r}: font {element.spec.get('font')!r} of element {element.name!r} has "
                f"no {styles} face, so {styles} text is drawn in the regular face; give font as "
                f'{{"regular": ..., {example}}} or use sans',
                f"{element.pointer}/font",
                in_layout=True,
            )
        )


def _draw_lines(
    r: RendererView,
    canvas: Canvas,
    setter: TextSetter,
    lines: list[list[Word]],
    x: float,
    y: float,
    w: float,
    h: float,
    size: float,
    leading: float,
    spec: dict[str, Any],
    color: Color,
    named: set[tuple[str, int]] | None = None,
    plain: bool = False,
) -> int:
    """Write the lines as one text object, then their inline icons; how many icons. `named`
    collects the fonts (subsets) the text object sets; `plain`: text without markup (no icons)."""
    align = spec.get("align", "left")
    valign = spec.get("valign", "top")
    line_height = size * leading
    block = len(lines) * line_height
    if valign == "middle":
        top = y + (h + block) / 2
    elif valign == "bottom":
        top = y + block
    else:
        top = y + h
    baseline = top - size * 0.93
    # One text object for the paragraph: the first line placed, later lines moved relative to
    # the one before; a font is set only when it changes; icons are drawn after the text.
    ops = ["BT", fill_op(color)]
    icons: list[tuple[Icon, float, float]] = []
    current: tuple[str, int] = ("", -1)  # font and subset in use
    size_op = fp_str(size)
    origin = 0.0  # x where the current line starts (the text line matrix)
    first = True
    for line in lines:
        width = line_width(line, size)
        if align == "center":
            start = x + (w - width) / 2
        elif align == "right":
            start = x + w - width
        else:
            start = x
        ops.append(f"{fp_str(start, baseline)} Td" if first else f"{fp_str(start - origin, -line_height)} Td")
        first = False
        origin = start
        if plain or all(word.icon is None for word in line):
            current = setter.emit(ops, setter.line(line), current, size_op, named)
            baseline -= line_height
            continue
        cursor = start
        pieces: list[tuple[str, int, str]] = []  # (font, subset, escaped bytes), same font joined
        for i, word in enumerate(line):
            space = bool(i and word.space_before)
            if word.icon is not None:
                current = setter.emit(ops, pieces, current, size_op, named)
                pieces = []
                cursor += unit_width(" ", word.font) * size if space else 0.0
                icons.append((word.icon, cursor, baseline))
                cursor += word.width1 * size
                ops.append(f"{fp_str(cursor - origin, 0)} Td")
                origin = cursor
                continue
            if space:
                setter.add(pieces, word.font, " ")
                cursor += unit_width(" ", word.font) * size
            setter.add(pieces, word.font, word.text)
            cursor += word.width1 * size
        current = setter.emit(ops, pieces, current, size_op, named)
        baseline -= line_height
    ops.append("ET")
    canvas._code.append(" ".join(ops))
    for icon, at, line_baseline in icons:
        _draw_icon(r, canvas, icon, at, line_baseline, size)
    return len(icons)


def _draw_icon(r: RendererView, canvas: Canvas, icon: Icon, x: float, baseline: float, size: float) -> None:
    radius = size * 0.6
    cx, cy = x + size * 0.625, baseline + size * 0.32
    if icon.image and draw_icon_image(canvas, r.root, r.icon_art, icon.image, cx, cy, 2 * radius):
        return
    canvas.setFillColor(icon.color)
    canvas.circle(cx, cy, radius, stroke=0, fill=1)
    label_size = size * (0.55 if len(icon.label) <= 2 else 0.42)
    canvas.setFillColor(hex_color("#ffffff"))
    canvas.setFont(SANS.bold, label_size)
    canvas.drawCentredString(cx, cy - label_size * 0.35, icon.label)
