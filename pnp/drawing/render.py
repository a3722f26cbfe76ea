"""Draw one face of one record into a trim box on a reportlab canvas.

Knows nothing of pages: `impose` decides where the box is, `pdf` owns the canvas. Each layout
is prepared once (templates compiled, lengths converted to points); drawing a card is then a
loop over its elements. Text is set with our own greedy wrapper (word widths cached at unit
size), which is what makes shrink-to-fit cheap enough for 10,000 cards.
"""

from __future__ import annotations

import collections
import io
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Template
from jinja2.exceptions import TemplateError
from reportlab.lib.colors import Color, HexColor
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.markup import MARKUP
from pnp.core.paths import image_problem, read_regular
from pnp.core.problems import Finding
from pnp.core.units import MM
from pnp.drawing.fonts import FAMILIES, SANS, Family, FontError, missing_characters, register_bundled, register_file
from pnp.drawing.impose import Box
from pnp.project.layout import Layout, choice_value, compile_message, face_entries, is_back_choice, template_env
from pnp.project.layout import ref_filter as _ref_filter

Context = dict[str, Any]


class DrawFailure(Exception):
    """A user's layout value that cannot be drawn (a template that fails, a bad colour or font).

    Raised only around user-supplied values; `key` is the element key at fault. Anything else
    raised while drawing is a bug in pnp, and is not blamed on the layout.
    """

    def __init__(self, code: str, key: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.key = key
        self.message = message


@dataclass(frozen=True, slots=True)
class Icon:
    label: str
    color: Color
    image: str | None = None


@dataclass(slots=True)
class Element:
    """One layout element, prepared: lengths in points from the trim's top-left, templates compiled."""

    kind: str
    name: str
    pointer: str  # in the layout's merged data: /front/elements/3
    spec: dict[str, Any]
    x: float
    y: float
    w: float
    h: float
    templates: dict[str, Template] = field(default_factory=dict)
    when: Any = None
    plain: dict[str, str] = field(default_factory=dict)  # key -> field, for templates that are just {{ field }}
    parts: tuple[Element, Element] | None = None  # a stat's label and value, prepared once


@lru_cache(maxsize=65536)
def _unit_width(text: str, font: str) -> float:
    return float(stringWidth(text, font, 1.0))


@lru_cache(maxsize=1024)
def _color(value: str) -> Color:
    return HexColor(value)


# What a layout template can raise on odd data: reported as template-error. Only template calls
# (`_run`, `when`, `copies`) are wrapped: a bug in pnp's own drawing is not the template's fault.
ICON_SVG_MAX_BYTES = 5 * 1024 * 1024  # an icon is a few kilobytes of paths
TEMPLATE_FAILURES = (TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError)
PLAIN_FIELD = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
MARKUP_CHARS = frozenset("*_{\n")


@dataclass(frozen=True, slots=True)
class Run:
    text: str
    bold: bool
    italic: bool
    icon: Icon | None = None


def parse_markup(text: str, icons: dict[str, Icon], bold: bool = False, italic: bool = False) -> list[Run]:
    """*bold*, _italic_ and {icon} tokens; everything else is plain text."""
    runs: list[Run] = []
    for part in MARKUP.split(text):
        if not part:
            continue
        if part.startswith("*") and part.endswith("*") and len(part) > 2:
            runs.append(Run(part[1:-1], True, italic))
        elif part.startswith("_") and part.endswith("_") and len(part) > 2:
            runs.append(Run(part[1:-1], bold, True))
        elif part.startswith("{") and part[1:-1] in icons:
            runs.append(Run(part, bold, italic, icons[part[1:-1]]))
        else:
            runs.append(Run(part, bold, italic))
    return runs


class TextSetter:
    """PDF text operators for one document's embedded fonts: each (font, word) encoded once.

    reportlab's text object re-encodes every string it shows (the font's subset mapping, then
    PDF escaping); a word met again costs a dictionary look-up here. The cache is bounded.
    """

    LIMIT = 200_000

    def __init__(self, canvas: Canvas) -> None:
        self.doc = canvas._doc
        self.escape = canvas._escape
        self.words: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self.names: dict[tuple[str, int], str] = {}

    def add(self, pieces: list[tuple[str, int, str]], font: str, text: str) -> None:
        """Append `text` in `font` to a line's pieces, joining it to the last piece when it can."""
        chunks = self.words.get((font, text))
        if chunks is None:
            if len(self.words) >= self.LIMIT:
                self.words.clear()
            face = getFont(font)
            chunks = [(subset, self.escape(data)) for subset, data in face.splitString(text, self.doc)]
            self.words[(font, text)] = chunks
        for subset, escaped in chunks:
            if pieces and pieces[-1][0] == font and pieces[-1][1] == subset:
                pieces[-1] = (font, subset, pieces[-1][2] + escaped)
            else:
                pieces.append((font, subset, escaped))

    def emit(
        self, ops: list[str], pieces: list[tuple[str, int, str]], current: tuple[str, int], size: str
    ) -> tuple[str, int]:
        """Show the pieces, setting a font (subset) only when it changes; the font in use after."""
        for font, subset, escaped in pieces:
            if (font, subset) != current:
                name = self.names.get((font, subset))
                if name is None:
                    name = self.names[(font, subset)] = getFont(font).getSubsetInternalName(subset, self.doc)
                ops.append(f"{name} {size} Tf")
                current = (font, subset)
            ops.append(f"({escaped}) Tj")
        return current


@lru_cache(maxsize=1024)
def _fill_op(color: Color) -> str:
    """The operator setting a fill colour (as canvas.setFillColor writes it for an RGB colour)."""
    return f"{fp_str(color.red, color.green, color.blue)} rg"


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    font: str
    width1: float  # width at size 1
    space_before: bool
    icon: Icon | None = None


def _words(runs: list[Run], family: Family) -> list[list[Word]]:
    """Paragraphs of words (explicit newlines split paragraphs)."""
    paragraphs: list[list[Word]] = [[]]
    pending_space = False
    for run in runs:
        font = family.pick(run.bold, run.italic)
        if run.icon is not None:
            paragraphs[-1].append(Word(run.text, font, 1.25, pending_space, run.icon))
            pending_space = False
            continue
        for i, line in enumerate(run.text.split("\n")):
            if i > 0:
                paragraphs.append([])
                pending_space = False
            pieces = line.split(" ")
            for j, piece in enumerate(pieces):
                if j > 0:
                    pending_space = True
                if piece:
                    paragraphs[-1].append(Word(piece, font, _unit_width(piece, font), pending_space))
                    pending_space = False
    return paragraphs


def wrap(paragraphs: list[list[Word]], width: float, size: float, wrap_lines: bool) -> list[list[Word]] | None:
    """Greedy line breaking at `size`; None when a single word is wider than the box."""
    lines: list[list[Word]] = []
    for words in paragraphs:
        line: list[Word] = []
        used = 0.0
        for word in words:
            w = word.width1 * size
            extra = w + (_unit_width(" ", word.font) * size if (line and word.space_before) else 0.0)
            if line and wrap_lines and used + extra > width + 0.01:
                lines.append(line)
                line, used = [word], w
            else:
                line.append(word)
                used += extra
            if w > width + 0.01:
                return None
        lines.append(line)
    if not wrap_lines and any(_line_width(line, size) > width + 0.01 for line in lines):
        return None
    return lines


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


def _line_width(line: list[Word], size: float) -> float:
    """Width of a line: each space in the font of the word after it, as it is drawn."""
    return sum(
        w.width1 * size + (_unit_width(" ", w.font) * size if (i and w.space_before) else 0.0)
        for i, w in enumerate(line)
    )


# Faces drawn in this process, per layout name: tests show that a build draws each card once.
FACES_DRAWN: collections.Counter[str] = collections.Counter()


class Renderer:
    """Draws the faces of one layout. Make one per layout per build."""

    def __init__(
        self,
        layout: Layout,
        root: Path,
        icons: dict[str, dict[str, Any]],
        lookup: Callable[[str], dict[str, Any] | None] | None = None,
    ) -> None:
        register_bundled()
        self.layout = layout
        self.root = root.resolve()
        self.env = template_env()
        self.env.filters["ref"] = _ref_filter(lookup or (lambda _id: None))
        self.scale = layout.scale
        self.palettes: dict[str, dict[str, str]] = layout.data.get("palettes", {})
        self.findings: list[Finding] = []  # found while preparing: templates that do not compile
        self.icons = make_icons(icons)
        width_mm, height_mm = layout.size_mm()
        mm = MM
        self.width = width_mm * mm
        self.height = height_mm * mm
        self.bleed = float(layout.data.get("bleed", 3)) * self.scale
        self.safe = float(layout.data.get("safe", 3)) * self.scale
        self.shape = layout.data.get("shape", "rect")
        self.corner = float(layout.data.get("corner_radius", 3 if self.shape == "rounded" else 0)) * self.scale
        # every face drawn: "front", "back" and, for a back chosen per record, "back/VALUE" (pnp.project.layout.face_entries)
        entries = face_entries(layout.data)
        self.faces: dict[str, tuple[Any, list[Element]]] = {"front": (None, []), "back": (None, [])}
        self.faces.update({face: self._prepare(data, at) for face, at, data in entries})
        self.face_pointers = {"front": "/front", "back": "/back", **{face: at for face, at, _ in entries}}
        self.layers = {
            face: _layers(self.face_pointers[face], *prepared, self.width, self.height)
            for face, prepared in self.faces.items()
        }
        back = layout.data.get("back")
        self.back_by: str | None = back["by"] if is_back_choice(back) else None
        self.has_back = layout.has_back
        self._family_cache: dict[str, str] = {}
        self._families: dict[tuple[tuple[str, str], ...], Family] = {}
        self.images: dict[str, ImagePath] = {}
        self.icon_art: dict[str, Any] = {}  # icons.json images, loaded once: an SVG drawing or an image path
        # per canvas: (face, layer index) -> form name, or None when the layer must be drawn per card
        self._setters: weakref.WeakKeyDictionary[Canvas, TextSetter] = weakref.WeakKeyDictionary()
        self._forms: weakref.WeakKeyDictionary[Canvas, dict[tuple[str, int], str | None]] = weakref.WeakKeyDictionary()

    def face_for(self, face: str, record: dict[str, Any]) -> str:
        """The face to draw: for a back chosen per record, the choice its field names, else the default."""
        if face != "back" or self.back_by is None:
            return face
        value = record.get(self.back_by)
        chosen = f"back/{choice_value(value)}"
        return chosen if value is not None and chosen in self.faces else "back"

    def _prepare(self, data: dict[str, Any], at: str) -> tuple[Any, list[Element]]:
        face = at[1:]  # elements are named and located by their pointer: "back/choices/red/elements/0"
        background = data.get("background")
        if isinstance(background, str) and "{{" in background:
            background = self._compile(background, f"/{face}/background", False)
        elements = []
        s = self.scale
        for i, spec in enumerate(data.get("elements", [])):
            element = Element(
                spec["type"],
                spec.get("name", f"{face}[{i}]"),
                f"/{face}/elements/{i}",
                spec,
                float(spec.get("x", 0)) * s,
                float(spec.get("y", 0)) * s,
                float(spec.get("w", 0)) * s,
                float(spec.get("h", 0)) * s,
            )
            for key in ("text", "value", "src", "label", "fill", "stroke", "color"):
                value = spec.get(key)
                if isinstance(value, str) and ("{{" in value or "{%" in value):
                    simple = PLAIN_FIELD.fullmatch(value.strip())
                    if simple is not None and key in ("text", "value", "src", "label"):
                        element.plain[key] = simple.group(1)
                    else:
                        template = self._compile(value, f"{element.pointer}/{key}", False)
                        if template is None:
                            break
                        element.templates[key] = template
            else:
                if spec["type"] == "stat":
                    element.parts = _stat_parts(element)
                if isinstance(spec.get("when"), str):
                    element.when = self._compile(spec["when"], f"{element.pointer}/when", True)
                    if element.when is None:
                        continue
                elements.append(element)
        return background, elements

    def _compile(self, source: str, pointer: str, expression: bool) -> Any:
        """A compiled template, or None (and a finding) when it does not compile (an unknown filter)."""
        try:
            return self.env.compile_expression(source) if expression else self.env.from_string(source)
        except TemplateError as err:
            self.findings.append(
                Finding(
                    "template-error",
                    compile_message(self.layout.name, err, self.env.filters),
                    pointer,
                    in_layout=True,
                )
            )
            return None

    # --- values ---------------------------------------------------------------------

    def _text(self, element: Element, key: str, context: Context) -> str:
        plain = element.plain.get(key)
        if plain is not None:
            value = context.get(plain)
            return "" if value is None or isinstance(value, (dict, list)) and not value else str(value).strip()
        template = element.templates.get(key)
        if template is not None:
            return str(_run(template, context, key))
        value = element.spec.get(key, "")
        return str(value)

    def _paint(self, value: Any, context: Context, template: Template | None = None, key: str = "") -> Color | None:
        if template is not None:
            value = _run(template, context, key)
        if value is None or value == "" or value == "none":
            return None
        if isinstance(value, dict):
            palette = self.palettes.get(value["palette"], {})  # an unknown palette: pnp check says so
            chosen = palette.get(str(context.get(value["by"])), value.get("default"))
            return _color(chosen) if chosen else None
        try:
            return _color(str(value))
        except ValueError:
            raise DrawFailure("bad-colour", key, f"colour {str(value)!r} is not #rrggbb (such as #1e5aa8)") from None

    # --- drawing --------------------------------------------------------------------

    def draw(
        self,
        canvas: Canvas,
        face: str,
        record: dict[str, Any],
        box: Box,
        extra: Context | None = None,
        clip: Box | None = None,
    ) -> list[Finding]:
        """Draw `face` of `record` with its trim at `box`, painting only inside `clip` (default: the bleed).

        Returns what could not be drawn faithfully: findings in the record (`pointer` relative to
        the record) or, with `in_layout`, in the layout's merged data.
        """
        FACES_DRAWN[self.layout.name] += 1
        context: Context = {**record, "record": record, "palette": self.palettes, **(extra or {})}
        issues: list[Finding] = []
        face = self.face_for(face, record)
        background = self.faces[face][0]
        local = Box(0.0, 0.0, box.width, box.height)
        canvas.saveState()
        canvas.translate(box.x, box.y)  # card-relative coordinates: every card's content reads alike
        canvas.saveState()
        self._clip(
            canvas, local, None if clip is None else Box(clip.x - box.x, clip.y - box.y, clip.width, clip.height)
        )
        if isinstance(background, (Template, dict)):
            try:
                fill = self._paint(
                    background if not isinstance(background, Template) else None,
                    context,
                    background if isinstance(background, Template) else None,
                )
            except DrawFailure as failure:
                issues.append(
                    self._failure(failure, f"{self.face_pointers[face]}/background", "the background", record)
                )
                fill = None
            if fill is not None:
                self._fill_bleed(canvas, local, fill)
        for index, (static, elements) in enumerate(self.layers[face]):
            form = self._form(canvas, face, index, elements, local) if static else None
            if form is not None:
                canvas.doForm(form)
                continue
            for element in elements:
                self._draw_checked(canvas, face, element, context, local, issues, record)
        canvas.restoreState()
        if self.shape in ("round", "hex"):
            self._cut_guide(canvas, local)
        canvas.restoreState()
        return issues

    def _draw_checked(
        self,
        canvas: Canvas,
        face: str,
        element: Element,
        context: Context,
        box: Box,
        issues: list[Finding],
        record: dict[str, Any],
    ) -> None:
        """One element; a user's value that cannot be drawn becomes a layout finding."""
        try:
            if element.kind == "background":
                fill = self._paint(element.spec.get("fill"), context, None, "")
                if fill is not None:
                    self._fill_bleed(canvas, box, fill)
                return
            if element.when is not None and not _run(element.when, context, "when", expression=True):
                return
            HANDLERS[element.kind](Drawing(self, canvas, context, box, issues, record), element)
        except DrawFailure as failure:
            if element.kind == "background":
                issues.append(
                    self._failure(failure, f"{self.face_pointers[face]}/background", "the background", record)
                )
                return
            where = f"{element.pointer}/{failure.key}" if failure.key else element.pointer
            issues.append(self._failure(failure, where, f"element {element.name!r}", record))

    def _fill_bleed(self, canvas: Canvas, box: Box, fill: Color) -> None:
        canvas.setFillColor(fill)
        b = self.bleed
        canvas.rect(box.x - b, box.y - b, box.width + 2 * b, box.height + 2 * b, stroke=0, fill=1)

    def _form(self, canvas: Canvas, face: str, index: int, elements: list[Element], box: Box) -> str | None:
        """The form XObject drawing a static layer on this canvas, made on first use.

        None when drawing the layer found a problem: it is then drawn card by card, so that each
        card's problems are reported as before (a static text that overflows, a missing image).
        """
        forms = self._forms.setdefault(canvas, {})
        key = (face, index)
        if key in forms:
            return forms[key]
        number = getattr(canvas, "_pnp_forms", 0) + 1
        canvas._pnp_forms = number  # unique, deterministic form names per document
        name = f"pnp{number}"
        b = self.bleed
        issues: list[Finding] = []
        canvas.beginForm(name, -b, -b, box.width + b, box.height + b)
        context: Context = {"record": {}, "palette": self.palettes}
        for element in elements:
            self._draw_checked(canvas, face, element, context, box, issues, {})
        canvas.endForm()
        forms[key] = None if issues else name
        return forms[key]

    def _failure(self, failure: DrawFailure, pointer: str, what: str, record: dict[str, Any]) -> Finding:
        """A layout finding; the record is named since a template may fail on some records only."""
        message = f"layout {self.layout.name!r}, {what}: {failure.message} (first met on record {record.get('id')!r})"
        return Finding(failure.code, message, pointer, in_layout=True)

    def _clip(self, canvas: Canvas, box: Box, clip: Box | None) -> None:
        b = self.bleed
        path = canvas.beginPath()
        if clip is None:
            path.rect(box.x - b, box.y - b, box.width + 2 * b, box.height + 2 * b)
        else:
            path.rect(clip.x, clip.y, clip.width, clip.height)
        canvas.clipPath(path, stroke=0, fill=0)

    def _cut_guide(self, canvas: Canvas, box: Box) -> None:
        """A hairline on the cut for round and hex tokens (the crop marks frame their square)."""
        canvas.saveState()
        canvas.setStrokeColor(_color("#9a9a9a"))
        canvas.setLineWidth(0.25)
        if self.shape == "round":
            canvas.circle(
                box.x + box.width / 2, box.y + box.height / 2, min(box.width, box.height) / 2, stroke=1, fill=0
            )
        else:
            self._hex_path(canvas, box.x, box.y, box.width, box.height, stroke=1, fill=0)
        canvas.restoreState()

    def _frame(self, element: Element, box: Box) -> tuple[float, float, float, float]:
        """Element box in page points: lower-left x, y, width, height."""
        width = element.w or (box.width - element.x)
        height = element.h or (box.height - element.y)
        return box.x + element.x, box.y + box.height - element.y - height, width, height

    def _stroke_fill(self, canvas: Canvas, element: Element, context: Context) -> tuple[int, int]:
        spec = element.spec
        fill = self._paint(spec.get("fill"), context, element.templates.get("fill"), "fill")
        stroke = self._paint(spec.get("stroke"), context, element.templates.get("stroke"), "stroke")
        if fill is not None:
            canvas.setFillColor(fill)
        if stroke is not None:
            canvas.setStrokeColor(stroke)
            canvas.setLineWidth(float(spec.get("stroke_width", 0.75)))
        return (1 if stroke is not None else 0), (1 if fill is not None else 0)

    def _hex_path(self, canvas: Canvas, x: float, y: float, w: float, h: float, stroke: int, fill: int) -> None:
        path = canvas.beginPath()
        cy = y + h / 2
        points = [(x, cy), (x + w / 4, y + h), (x + 3 * w / 4, y + h), (x + w, cy), (x + 3 * w / 4, y), (x + w / 4, y)]
        path.moveTo(*points[0])
        for point in points[1:]:
            path.lineTo(*point)
        path.close()
        canvas.drawPath(path, stroke=stroke, fill=fill)

    def family(self, font: str | dict[str, str] | None) -> Family:
        """The faces of a layout font: sans, condensed, a .ttf of the project, or {"regular": ..., "bold": ...}."""
        if not font:
            return SANS
        if isinstance(font, dict):
            key = tuple(sorted((str(k), str(v)) for k, v in font.items()))
            known = self._families.get(key)
            if known is not None:
                return known
            faces = {style: self._face(path) for style, path in font.items()}
            regular = faces.get("regular") or SANS.regular
            bold, italic = faces.get("bold", regular), faces.get("italic", regular)
            family = Family(regular, bold, italic, faces.get("bold_italic", bold if bold != regular else italic))
            self._families[key] = family  # only a family whose files all registered
            return family
        if font in FAMILIES:
            return FAMILIES[font]
        name = self._face(font)
        return Family(name, name, name, name)

    def _face(self, font: str) -> str:
        """The registered name of a project TrueType file (registered once)."""
        cached = self._family_cache.get(font)
        if cached is None:
            path = (self.root / font).resolve()
            if not path.is_relative_to(self.root):
                raise DrawFailure("asset-outside-project", "font", f"font {font!r} is outside the project")
            if not path.is_file():
                raise DrawFailure(
                    "missing-asset", "font", f"font {font!r} does not exist; name a .ttf file of the project, or sans"
                )
            try:
                name = register_file(path)
            except FontError as err:
                raise DrawFailure("bad-asset", "font", str(err).replace(str(path), repr(font))) from None
            cached = self._family_cache[font] = name
        return cached

    def set_text(
        self,
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
        if rotate in (90, 270):
            w, h = h, w
        family = self.family(spec.get("font"))
        if MARKUP_CHARS.isdisjoint(text):
            font = family.pick(bool(spec.get("bold")), bool(spec.get("italic")))
            paragraphs = [[Word(piece, font, _unit_width(piece, font), True) for piece in text.split(" ") if piece]]
        else:
            runs = parse_markup(text, self.icons, bool(spec.get("bold")), bool(spec.get("italic")))
            paragraphs = _words(runs, family)
            self._check_styles(runs, family, element, issues)
        self._check_glyphs(paragraphs, element, issues, record)
        size = float(size or spec.get("size", 9))
        min_size = float(min_size if min_size is not None else spec.get("min_size", size))
        leading = float(spec.get("leading", 1.18))
        wrap_lines = bool(spec.get("wrap", True))
        over = _text_size_over_limit(size, min_size)
        if over:  # shrink-to-fit tries every half point from size down to min_size: keep that bounded
            issues.append(
                Finding(
                    "limit-exceeded",
                    f"layout {self.layout.name!r}: {over}",
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
                        f"record {record.get('id')!r}, layout {self.layout.name!r}: text of element "
                        f"{element.name!r} ({_field_of(element)}) does not fit its "
                        f"{w / MM:.1f} x {h / MM:.1f} mm box even at {min_size:g} pt; "
                        "shorten the text or enlarge the box / lower min_size",
                        _record_pointer(element),
                        element=element.name,
                    )
                )
                lines = lines or [[word for para in paragraphs for word in para]]
                break
            size -= 0.5
        color = self._paint(spec.get("color", "#111111"), context, element.templates.get("color"), "color")
        color = color or _color("#111111")
        if not rotate:
            self._draw_lines(canvas, lines, x, y, w, h, size, leading, spec, color)
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
        self._draw_lines(canvas, lines, x, y, w, h, size, leading, spec, color)
        canvas.restoreState()

    def _check_glyphs(
        self, paragraphs: list[list[Word]], element: Element, issues: list[Finding], record: dict[str, Any]
    ) -> None:
        """A warning naming the characters the element's font has no glyph for (drawn as boxes)."""
        missing: dict[str, list[str]] = {}
        for words in paragraphs:
            for word in words:
                if word.icon is None:
                    for char in missing_characters(word.text, word.font):
                        missing.setdefault(char, []).append(word.font)
        if missing:
            chars = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in missing)
            fonts = ", ".join(sorted({f.removeprefix("pnp-") for fs in missing.values() for f in fs}))
            issues.append(
                Finding(
                    "missing-glyph",
                    f"record {record.get('id')!r}, layout {self.layout.name!r}: font {fonts} cannot draw {chars} "
                    f"in element {element.name!r} ({_field_of(element)}); change the text or use a font with them",
                    _record_pointer(element),
                )
            )

    def _check_styles(self, runs: list[Run], family: Family, element: Element, issues: list[Finding]) -> None:
        """A warning (once per layout) when *bold* or _italic_ text falls back to the regular face."""
        used = {"bold": any(r.bold for r in runs), "italic": any(r.italic for r in runs)}
        faces = {"bold": family.bold, "italic": family.italic}
        missing = [style for style in ("bold", "italic") if used[style] and faces[style] == family.regular]
        if missing:
            styles = " or ".join(missing)
            example = ", ".join(f'"{style}": ...' for style in missing)
            issues.append(
                Finding(
                    "missing-font-style",
                    f"layout {self.layout.name!r}: font {element.spec.get('font')!r} of element {element.name!r} has "
                    f"no {styles} face, so {styles} text is drawn in the regular face; give font as "
                    f'{{"regular": ..., {example}}} or use sans',
                    f"{element.pointer}/font",
                    in_layout=True,
                )
            )

    def _draw_lines(
        self,
        canvas: Canvas,
        lines: list[list[Word]],
        x: float,
        y: float,
        w: float,
        h: float,
        size: float,
        leading: float,
        spec: dict[str, Any],
        color: Color,
    ) -> None:
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
        setter = self._setters.get(canvas)
        if setter is None:
            setter = self._setters[canvas] = TextSetter(canvas)
        ops = ["BT", _fill_op(color)]
        icons: list[tuple[Icon, float, float]] = []
        current: tuple[str, int] = ("", -1)  # font and subset in use
        size_op = fp_str(size)
        origin = 0.0  # x where the current line starts (the text line matrix)
        first = True
        for line in lines:
            width = _line_width(line, size)
            if align == "center":
                start = x + (w - width) / 2
            elif align == "right":
                start = x + w - width
            else:
                start = x
            ops.append(f"{fp_str(start, baseline)} Td" if first else f"{fp_str(start - origin, -line_height)} Td")
            first = False
            origin = cursor = start
            pieces: list[tuple[str, int, str]] = []  # (font, subset, escaped bytes), same font joined
            for i, word in enumerate(line):
                space = bool(i and word.space_before)
                if word.icon is not None:
                    current = setter.emit(ops, pieces, current, size_op)
                    pieces = []
                    cursor += _unit_width(" ", word.font) * size if space else 0.0
                    icons.append((word.icon, cursor, baseline))
                    cursor += word.width1 * size
                    ops.append(f"{fp_str(cursor - origin, 0)} Td")
                    origin = cursor
                    continue
                if space:
                    setter.add(pieces, word.font, " ")
                    cursor += _unit_width(" ", word.font) * size
                setter.add(pieces, word.font, word.text)
                cursor += word.width1 * size
            current = setter.emit(ops, pieces, current, size_op)
            baseline -= line_height
        ops.append("ET")
        canvas._code.append(" ".join(ops))
        for icon, at, line_baseline in icons:
            self._draw_icon(canvas, icon, at, line_baseline, size)

    def _draw_icon(self, canvas: Canvas, icon: Icon, x: float, baseline: float, size: float) -> None:
        radius = size * 0.6
        cx, cy = x + size * 0.625, baseline + size * 0.32
        if icon.image and draw_icon_image(canvas, self.root, self.icon_art, icon.image, cx, cy, 2 * radius):
            return
        canvas.setFillColor(icon.color)
        canvas.circle(cx, cy, radius, stroke=0, fill=1)
        label_size = size * (0.55 if len(icon.label) <= 2 else 0.42)
        canvas.setFillColor(_color("#ffffff"))
        canvas.setFont(SANS.bold, label_size)
        canvas.drawCentredString(cx, cy - label_size * 0.35, icon.label)


def draw_icon_image(
    canvas: Canvas, root: Path, cache: dict[str, Any], source: str, cx: float, cy: float, side: float
) -> bool:
    """An icons.json `image` inline at text size, centred at (cx, cy) in a `side` square: an SVG as
    vector paths (svglib), a PNG or JPEG as an image. False when the file is not in the project or
    cannot be read (the coloured disc is drawn instead)."""
    art = cache.get(source)
    if art is None:
        path = (root / source).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return False
        try:
            if path.suffix.lower() == ".svg":
                from svglib.svglib import svg2rlg

                # from its bytes, not its name: svglib then follows no <image>/<use> reference
                # to another file (which may lie outside the project), and reads a bounded file
                art = svg2rlg(io.BytesIO(read_regular(path, ICON_SVG_MAX_BYTES, root)))
                if art is not None:  # reportlab's drawing default is Helvetica, which is never embedded
                    art.initialFontName = SANS.regular
            elif image_problem(path):  # a decompression bomb, or no image: the disc stands in
                art = None
            else:
                art = ImagePath(path, root)
                _image_size(str(path))  # fails here, not halfway through a page, if it is no image
        except Exception:  # noqa: BLE001 - svglib and PIL raise many kinds; the disc stands in
            art = None
        cache[source] = art or False
    if not art:
        return False
    if isinstance(art, ImagePath):
        canvas.drawImage(
            art, cx - side / 2, cy - side / 2, side, side, preserveAspectRatio=True, anchor="c", mask="auto"
        )
        return True
    from reportlab.graphics import renderPDF

    scale = side / max(art.width, art.height, 1e-6)
    canvas.saveState()
    canvas.translate(cx - art.width * scale / 2, cy - art.height * scale / 2)
    canvas.scale(scale, scale)
    renderPDF.draw(art, canvas, 0, 0)
    canvas.restoreState()
    return True


class ImagePath(str):
    """A file path whose str() is its project-relative name.

    reportlab names an image XObject after str(path); with absolute paths the same project
    built in two folders would differ byte-wise. The characters are still the real path.
    """

    key: str

    real: Path

    def __new__(cls, path: Path, root: Path) -> ImagePath:
        made = super().__new__(cls, str(path))
        made.key = path.relative_to(root).as_posix()
        made.real = path
        return made

    def __str__(self) -> str:
        return self.key


def _layers(
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


def _run(template: Any, context: Context, key: str, expression: bool = False) -> Any:
    """Run a user's template: its failures become a DrawFailure naming the key."""
    try:
        return template(**context) if expression else template.render(context).strip()
    except TEMPLATE_FAILURES as err:
        raise DrawFailure("template-error", key, f"template failed: {type(err).__name__}: {err}") from None


def make_icons(specs: dict[str, Any]) -> dict[str, Icon]:
    """icons.json entries as drawn inline (cards and sheets alike)."""
    return {
        name: Icon(str(spec.get("label", name)), _safe_color(spec.get("color")), spec.get("image"))
        for name, spec in specs.items()
        if isinstance(spec, dict)
    }


def _safe_color(value: Any) -> Color:
    """An icon's colour; a wrong one is reported by pnp check (icons.json schema), drawn grey."""
    try:
        return _color(str(value)) if isinstance(value, str) else _color("#444444")
    except ValueError:
        return _color("#444444")


def _record_pointer(element: Element, key: str = "text") -> str:
    """Where in the record an element's text comes from: the one field it shows, or the record itself."""
    plain = element.plain.get(key) or element.plain.get("value")
    if plain:
        return f"/{plain}"
    names = _fields_shown(element, key)
    return f"/{names[0]}" if len(names) == 1 else ""


def _fields_shown(element: Element, key: str) -> list[str]:
    return list(_fields_of_template(str(element.spec.get(key) or element.spec.get("value") or "")))


@lru_cache(maxsize=1024)
def _fields_of_template(source: str) -> tuple[str, ...]:
    """Record fields a template reads, sorted (for messages and locations only)."""
    from pnp.project.layout import fields_read

    try:
        return tuple(sorted(fields_read(template_env(), source, False)))
    except Exception:  # noqa: BLE001 - only a message
        return ()


def _field_of(element: Element, key: str = "text") -> str:
    """Which record field an element's text shows, for messages ('static text' when none)."""
    names = _fields_shown(element, key)
    return f"field {names[0]!r}" if names else "static text"


# --- one handler per element type ------------------------------------------------------


@dataclass(slots=True)
class Drawing:
    """One face being drawn: what every element handler needs besides the element."""

    renderer: Renderer
    canvas: Canvas
    context: Context
    box: Box
    issues: list[Finding]
    record: dict[str, Any]


Handler = Callable[[Drawing, Element], None]


def bleed_frame(r: Renderer, element: Element, box: Box) -> tuple[float, float, float, float]:
    """The element's frame in page points; with `bleed: true`, grown into the bleed on every side
    where it touches the trim edge."""
    x, y, w, h = r._frame(element, box)
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
    stroke, fill = r._stroke_fill(canvas, element, context)
    radius = float(element.spec.get("radius", 0)) * r.scale
    if radius:
        canvas.roundRect(x, y, w, h, radius, stroke=stroke, fill=fill)
    else:
        canvas.rect(x, y, w, h, stroke=stroke, fill=fill)


def draw_circle(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    x, y, w, h = r._frame(element, box)
    stroke, fill = r._stroke_fill(canvas, element, context)
    canvas.circle(x + w / 2, y + h / 2, min(w, h) / 2, stroke=stroke, fill=fill)


def draw_hexagon(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    x, y, w, h = r._frame(element, box)
    stroke, fill = r._stroke_fill(canvas, element, context)
    r._hex_path(canvas, x, y, w, h, stroke, fill)


def draw_polygon(d: Drawing, element: Element) -> None:
    r, canvas, context, box = d.renderer, d.canvas, d.context, d.box
    stroke, fill = r._stroke_fill(canvas, element, context)
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
    r._stroke_fill(canvas, element, context)
    x2 = float(spec.get("x2", 0)) * r.scale
    y2 = float(spec.get("y2", 0)) * r.scale
    canvas.line(box.x + element.x, box.y + box.height - element.y, box.x + x2, box.y + box.height - y2)


def draw_text(d: Drawing, element: Element) -> None:
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    text = r._text(element, "text", context)
    if text:
        r.set_text(canvas, text, element, r._frame(element, box), context, issues, record)


def draw_stat(d: Drawing, element: Element) -> None:
    """A labelled box: small label on top, the value large in the middle (empty when absent)."""
    draw_stat_frame(d, element)
    draw_stat_value(d, element)


def draw_stat_frame(d: Drawing, element: Element) -> None:
    """A stat's rounded box and its label (static for most layouts: drawn once per PDF)."""
    r, canvas, context, box, issues, record = d.renderer, d.canvas, d.context, d.box, d.issues, d.record
    x, y, w, h = r._frame(element, box)
    stroke, fill = r._stroke_fill(canvas, element, context)
    if not stroke and not fill:
        canvas.setStrokeColor(_color("#333333"))
        canvas.setLineWidth(0.6)
        stroke = 1
    canvas.roundRect(x, y, w, h, min(w, h) * 0.15, stroke=stroke, fill=fill)
    label = r._text(element, "label", context)
    label_h = h * 0.32 if label else 0.0
    label_element = (element.parts or _stat_parts(element))[0]
    if label:
        label_size = min(float(element.spec.get("size", 12)) * 0.45, label_h * 0.8)
        inset = min(w, h) * 0.1
        r.set_text(
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
    x, y, w, h = r._frame(element, box)
    label_h = h * 0.32 if r._text(element, "label", context) else 0.0
    value = r._text(element, "value", context)
    if value:
        value_element = (element.parts or _stat_parts(element))[1]
        r.set_text(canvas, value, value_element, (x + 1, y + 0.5, w - 2, h - label_h - 1), context, issues, record)


def _stat_parts(element: Element) -> tuple[Element, Element]:
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
    source = r._text(element, "src", context)
    if not source:
        return
    image = r.images.get(source)
    if image is not None:
        _place_image(canvas, element, bleed_frame(r, element, box), image)
        return
    path = (r.root / source).resolve()
    problem = "is outside the project" if not path.is_relative_to(r.root) else None
    if problem is None and not path.is_file():
        problem = "does not exist"
    if problem is not None:
        code = "missing-asset" if problem == "does not exist" else "asset-outside-project"
        if "src" in element.templates or "src" in element.plain:  # the record names the file
            message = f"record {record.get('id')!r}, layout {r.layout.name!r}: image {source!r} {problem}"
            issues.append(Finding(code, message, _record_pointer(element, "src")))
        else:  # the layout names it: once, at the layout line
            message = f"layout {r.layout.name!r}: image {source!r} of element {element.name!r} {problem}"
            issues.append(Finding(code, message, f"{element.pointer}/src", in_layout=True))
        return
    broken = image_problem(path)  # a decompression bomb or a corrupt file: never handed to the decoder
    if broken:
        raise DrawFailure("bad-asset", "src", f"image {source!r} {broken}")
    image = ImagePath(path, r.root)
    try:
        _place_image(canvas, element, bleed_frame(r, element, box), image)
    except (OSError, ValueError) as err:  # the file is not an image reportlab can read
        raise DrawFailure("bad-asset", "src", f"image {source!r} cannot be read: {err}") from None
    r.images[source] = image


def _place_image(canvas: Canvas, element: Element, frame: tuple[float, float, float, float], image: ImagePath) -> None:
    x, y, w, h = frame
    if element.spec.get("fit", "contain") == "cover":
        iw, ih = _image_size(str(image.real))
        scale = max(w / iw, h / ih)
        dw, dh = iw * scale, ih * scale
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(x, y, w, h)
        canvas.clipPath(clip, stroke=0, fill=0)
        canvas.drawImage(image, x + (w - dw) / 2, y + (h - dh) / 2, dw, dh, mask="auto")
        canvas.restoreState()
    else:
        canvas.drawImage(image, x, y, w, h, preserveAspectRatio=True, anchor="c", mask="auto")


@lru_cache(maxsize=256)
def _image_size(path: str) -> tuple[int, int]:
    from reportlab.lib.utils import ImageReader

    width, height = ImageReader(path).getSize()
    return int(width), int(height)


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
