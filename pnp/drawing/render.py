"""Draw one face of one record into a trim box on a reportlab canvas.

Knows nothing of pages: `impose` decides where the box is, `pdf` owns the canvas. Each layout
is prepared once (templates compiled, lengths converted to points); drawing a card is then a
loop over its elements. Text is set with our own greedy wrapper (word widths cached at unit
size), which is what makes shrink-to-fit cheap enough for 10,000 cards.

The Renderer is here; what it draws with has its own modules: pnp.drawing.elements (the prepared
element, colours, templates), pnp.drawing.layers (static layers drawn once per PDF),
pnp.drawing.handlers (one function per element type), pnp.drawing.textbox and pnp.drawing.words
(setting text), pnp.drawing.images (image files and icon art).
"""

from __future__ import annotations

import collections
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from pnp.core.paths import asset_code, project_file
from pnp.core.problems import Finding
from pnp.core.units import MM
from pnp.drawing.elements import PLAIN_FIELD, Context, DrawFailure, Element, hex_color, run_template
from pnp.drawing.elements import Icon as Icon
from pnp.drawing.elements import make_icons as make_icons
from pnp.drawing.fonts import FAMILIES, SANS, Family, FontError, register_bundled, register_file
from pnp.drawing.handlers import HANDLERS, Drawing, stat_parts
from pnp.drawing.images import ImagePath
from pnp.drawing.impose import Box
from pnp.drawing.layers import group_layers
from pnp.drawing.words import TextSetter
from pnp.drawing.words import parse_markup as parse_markup
from pnp.project.layout import (
    Layout,
    choice_value,
    compile_message,
    face_entries,
    is_back_choice,
    template_env,
)
from pnp.project.refkinds import Lookup, no_lookup

if TYPE_CHECKING:  # Jinja loads when a template first needs it (pnp.project.plaintemplates)
    from jinja2 import Template
    from jinja2.sandbox import ImmutableSandboxedEnvironment

# Faces drawn in this process, per layout name: tests show that a build draws each card once.
FACES_DRAWN: collections.Counter[str] = collections.Counter()


class Renderer:
    """Draws the faces of one layout. Make one per layout per build."""

    def __init__(
        self,
        layout: Layout,
        root: Path,
        icons: dict[str, dict[str, Any]],
        lookup: Lookup | None = None,
    ) -> None:
        register_bundled()
        self.layout = layout
        self.root = root.resolve()
        self.lookup = lookup or no_lookup
        self._env: ImmutableSandboxedEnvironment | None = None
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
            face: group_layers(self.face_pointers[face], *prepared, self.width, self.height)
            for face, prepared in self.faces.items()
        }
        back = layout.data.get("back")
        self.back_by: str | None = back["by"] if is_back_choice(back) else None
        self.has_back = layout.has_back
        self._family_cache: dict[str, str] = {}
        self._families: dict[tuple[tuple[str, str], ...], Family] = {}
        self.images: dict[str, ImagePath] = {}
        # images checked (image_problem: they decode) but not put in the PDF: a check draws on a
        # throwaway PDF, where encoding every card's art again cost 25 ms an image (pnp.drawing.facecache)
        self.dry_images = False
        self.counting: dict[str, Template] = {}  # `copies` and `expand` templates (pnp.drawing.pdf)
        self.icon_art: dict[str, Any] = {}  # icons.json images, loaded once: an SVG drawing or an image path
        # per canvas: (face, layer index) -> form name, or None when the layer must be drawn per card
        self.text_setters: weakref.WeakKeyDictionary[Canvas, TextSetter] = weakref.WeakKeyDictionary()
        self._forms: weakref.WeakKeyDictionary[Canvas, dict[tuple[str, int], str | None]] = weakref.WeakKeyDictionary()

    def face_for(self, face: str, record: dict[str, Any]) -> str:
        """The face to draw: for a back chosen per record, the choice its field names, else the default."""
        if face != "back" or self.back_by is None:
            return face
        value = record.get(self.back_by)
        chosen = f"back/{choice_value(value)}"
        return chosen if value is not None and chosen in self.faces else "back"

    def alike_faces(self) -> frozenset[str]:
        """The faces (as `face_for` names them) that every record draws alike: a background that is
        no template and only static layers (pnp.drawing.layers), such as a deck's common back. The
        face store keeps one drawing of such a face for all its cards (pnp.drawing.facestore)."""
        return frozenset(
            face
            for face, (background, _) in self.faces.items()
            if _compiled(background) is None
            and not isinstance(background, dict)
            and all(static for static, _ in self.layers[face])
        )

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
                    element.parts = stat_parts(element)
                if isinstance(spec.get("when"), str):
                    element.when = self._compile(spec["when"], f"{element.pointer}/when", True)
                    if element.when is None:
                        continue
                elements.append(element)
        return background, elements

    @property
    def env(self) -> ImmutableSandboxedEnvironment:
        """The layout's template sandbox with the renderer's `ref`, words and labels; made by the
        first template that is not plain field text (a layout of `{{ field }}`s never loads Jinja)."""
        if self._env is None:
            from pnp.project.refkinds import ref_filter
            from pnp.project.templatewords import install_words, label_filter

            env = template_env()
            env.filters["ref"] = ref_filter(self.lookup)
            words, labels = self.layout.words, self.layout.labels  # in the language drawn (pnp.translation.localize)
            install_words(env, (lambda _context, text: words.get(text) or text) if words else None)
            env.filters["label"] = label_filter(lambda context: labels.get(str(context.get("kind")), {}))
            self._env = env
        return self._env

    def _compile(self, source: str, pointer: str, expression: bool) -> Any:
        """A compiled template, or None (and a finding) when it does not compile (an unknown filter)."""
        from jinja2.exceptions import TemplateError

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

    def text_of(self, element: Element, key: str, context: Context) -> str:
        plain = element.plain.get(key)
        if plain is not None:
            value = context.get(plain)
            return "" if value is None or isinstance(value, (dict, list)) and not value else str(value).strip()
        template = element.templates.get(key)
        if template is not None:
            return str(run_template(template, context, key))
        value = element.spec.get(key, "")
        return str(value)

    def paint(self, value: Any, context: Context, template: Template | None = None, key: str = "") -> Color | None:
        if template is not None:
            value = run_template(template, context, key)
        if value is None or value == "" or value == "none":
            return None
        if isinstance(value, dict):
            palette = self.palettes.get(value["palette"], {})  # an unknown palette: pnp check says so
            chosen = palette.get(str(context.get(value["by"])), value.get("default"))
            return hex_color(chosen) if chosen else None
        try:
            return hex_color(str(value))
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
        self.open_face(canvas, box, clip)
        return self.draw_body(canvas, face, record, box, extra)

    def open_face(self, canvas: Canvas, box: Box, clip: Box | None = None) -> None:
        """Move to the face's trim box and clip: all that depends on where the face is (its slot).
        What `draw_body` draws after it reads alike wherever the face is (pnp.drawing.facestore)."""
        local = Box(0.0, 0.0, box.width, box.height)
        canvas.saveState()
        canvas.translate(box.x, box.y)  # card-relative coordinates: every card's content reads alike
        canvas.saveState()
        self._clip(
            canvas, local, None if clip is None else Box(clip.x - box.x, clip.y - box.y, clip.width, clip.height)
        )

    def draw_body(
        self, canvas: Canvas, face: str, record: dict[str, Any], box: Box, extra: Context | None = None
    ) -> list[Finding]:
        """The face itself, after `open_face`; closes what it opened."""
        FACES_DRAWN[self.layout.name] += 1
        context: Context = {**record, "record": record, "palette": self.palettes, **(extra or {})}
        issues: list[Finding] = []
        face = self.face_for(face, record)
        background = self.faces[face][0]
        local = Box(0.0, 0.0, box.width, box.height)
        template = _compiled(background)
        if template is not None or isinstance(background, dict):
            try:
                fill = self.paint(background if template is None else None, context, template)
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
                fill = self.paint(element.spec.get("fill"), context, None, "")
                if fill is not None:
                    self._fill_bleed(canvas, box, fill)
                return
            if element.when is not None and not run_template(element.when, context, "when", expression=True):
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

    def prime_forms(self, canvas: Canvas, faces: list[str]) -> None:
        """Make the static layers' forms of these faces now, in a fixed order, rather than on their
        first card: a kept face's drawing (pnp.drawing.facestore) then names the forms it shows
        the same way in every build."""
        for face in sorted(set(faces)):
            for index, (static, elements) in enumerate(self.layers[face]):
                if static:
                    self._form(canvas, face, index, elements, Box(0.0, 0.0, self.width, self.height))

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
        canvas.setStrokeColor(hex_color("#9a9a9a"))
        canvas.setLineWidth(0.25)
        if self.shape == "round":
            canvas.circle(
                box.x + box.width / 2, box.y + box.height / 2, min(box.width, box.height) / 2, stroke=1, fill=0
            )
        else:
            self.hex_path(canvas, box.x, box.y, box.width, box.height, stroke=1, fill=0)
        canvas.restoreState()

    def frame(self, element: Element, box: Box) -> tuple[float, float, float, float]:
        """Element box in page points: lower-left x, y, width, height."""
        width = element.w or (box.width - element.x)
        height = element.h or (box.height - element.y)
        return box.x + element.x, box.y + box.height - element.y - height, width, height

    def stroke_fill(self, canvas: Canvas, element: Element, context: Context) -> tuple[int, int]:
        spec = element.spec
        fill = self.paint(spec.get("fill"), context, element.templates.get("fill"), "fill")
        stroke = self.paint(spec.get("stroke"), context, element.templates.get("stroke"), "stroke")
        if fill is not None:
            canvas.setFillColor(fill)
        if stroke is not None:
            canvas.setStrokeColor(stroke)
            canvas.setLineWidth(float(spec.get("stroke_width", 0.75)))
        return (1 if stroke is not None else 0), (1 if fill is not None else 0)

    def hex_path(self, canvas: Canvas, x: float, y: float, w: float, h: float, stroke: int, fill: int) -> None:
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
            path, problem = project_file(self.root, font)
            if problem or path is None:
                hint = "; name a .ttf file of the project, or sans" if problem != "is outside the project" else ""
                raise DrawFailure(asset_code(problem), "font", f"font {font!r} {problem}{hint}")
            try:
                name = register_file(path)
            except FontError as err:
                raise DrawFailure("bad-asset", "font", str(err).replace(str(path), repr(font))) from None
            cached = self._family_cache[font] = name
        return cached


def _compiled(value: Any) -> Template | None:
    """`value` when it is a compiled template (a background with `{{`), else None."""
    if value is None or isinstance(value, (str, dict)):
        return None  # no template was compiled for it: Jinja need not be loaded to tell
    from jinja2 import Template

    return value if isinstance(value, Template) else None
