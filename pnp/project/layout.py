"""Layouts as data: load, validate, resolve `extends`, and read templates statically.

A layout file `layouts/<name>.json` says how the records of some kinds are drawn: card size and
shape, bleed and safe zones, and front / back elements whose text comes from Jinja2 templates
(run sandboxed). This module never imports reportlab: `pnp check` uses it to find layout
problems (`layout-error`, `layout-cycle`, `layout-unknown-kind`, `unknown-layout-field`,
`missing-layout`) without drawing anything.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import jsonschema_rs

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.pointers import escape
from pnp.core.problems import Finding
from pnp.core.units import MM
from pnp.project.plaintemplates import plain_names
from pnp.project.recordfile import YAML_SUFFIXES
from pnp.project.records import RecordFile, load_file
from pnp.project.schemas import SchemaDocs

if TYPE_CHECKING:  # Jinja is loaded by the first template that needs it (pnp.project.plaintemplates)
    from jinja2.exceptions import TemplateSyntaxError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

LAYOUT_SCHEMA = Path(__file__).resolve().parents[1] / "layout.schema.json"
UNITS = {"mm": MM, "in": 72.0, "pt": 1.0}
# Trim sizes in mm (width, height).
SIZE_PRESETS: dict[str, tuple[float, float]] = {
    "poker": (63, 88),
    "poker-us": (63.5, 88.9),
    "mini": (44, 63),
    "bridge": (57, 89),
    "tarot": (70, 120),
    "square": (70, 70),
    "token-16": (16, 16),
    "token-20": (20, 20),
    "token-25": (25, 25),
    "token-30": (30, 30),
    "token-38": (38, 38),
    "hex-30": (30 * 2 / 3**0.5, 30),  # 30 mm across flats, pointy sides left and right
    "hex-38": (38 * 2 / 3**0.5, 38),
}
TEMPLATE_KEYS = ("text", "value", "src", "label")
# Names a template may use besides record fields.
CONTEXT_NAMES = frozenset(
    {"record", "number", "shade", "palette", "copy", "face", "kind", "loop", "range", "true", "false", "none"}
)


def template_env() -> ImmutableSandboxedEnvironment:
    """The sandbox every layout template runs in: no attribute mutation, no unsafe calls, bounded work."""
    from jinja2 import pass_context

    from pnp.project.sandbox import BoundedSandbox
    from pnp.project.templatewords import install_words, label_filter

    env = BoundedSandbox(autoescape=False, keep_trailing_newline=False, extensions=["jinja2.ext.i18n"])
    install_words(env)  # `_('Home')` and `{% trans %}`: the source text until a language build
    env.filters["roman"] = _roman
    env.filters["ref"] = pass_context(_id_itself)  # the renderer's looks the record up
    env.filters["label"] = label_filter(lambda _context: {})  # the renderer's reads the kind's schema
    return env


# pass_context (in template_env): never run while compiling, so compiled code is shared (pnp.project.sandbox)
def _id_itself(context: Any, value: Any, field: str = "name", kind: str | None = None) -> Any:
    """`ref` where no records are looked up: the id itself."""
    return value


def compile_message(layout: str, error: Exception, filters: Any) -> str:
    """A template that does not compile (an unknown filter): the filter meant, or what filters there are."""
    import re

    unknown = re.search(r"No filter named '([^']+)'", str(error))
    close = difflib.get_close_matches(unknown.group(1), sorted(filters), n=1, cutoff=0.75) if unknown else []
    hint = f"did you mean {close[0]!r}? " if close else ""
    return (
        f"layout {layout!r}: template does not compile: {str(error).rstrip('.')}; "
        f"{hint}filters are Jinja2's built-in ones and pnp's ref, roman and label"
    )


def _roman(value: Any) -> str:
    number = int(value)
    numerals = [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for amount, letters in numerals:
        while number >= amount:
            out += letters
            number -= amount
    return out


@dataclass(slots=True)
class LayoutFile:
    """One layout file as written (before `extends` is resolved)."""

    name: str
    source: RecordFile
    data: dict[str, Any]


@dataclass(slots=True)
class Layout:
    """A resolved layout: its own file plus every file it extends (nearest last)."""

    name: str
    chain: list[LayoutFile]
    data: dict[str, Any]
    kinds: list[str] = field(default_factory=list)
    words: dict[str, str] = field(default_factory=dict)  # gettext msgid -> text in the language drawn
    labels: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)  # kind -> field -> value -> label

    @property
    def files(self) -> list[Path]:
        return [f.source.path for f in self.chain]

    def size_mm(self) -> tuple[float, float]:
        size = self.data.get("size", "poker")
        factor = UNITS[self.data.get("unit", "mm")] / MM
        if isinstance(size, str):
            return SIZE_PRESETS[size]
        return (size["width"] * factor, size["height"] * factor)

    @property
    def has_back(self) -> bool:
        """False for `"back": null` (or no back): fronts only."""
        return isinstance(self.data.get("back"), dict)

    @property
    def cutting(self) -> str | None:
        """The layout's own cutting style (`butted` or `gutter`), or None: the build's."""
        value = self.data.get("cutting")
        return value if isinstance(value, str) else None

    @property
    def scale(self) -> float:
        """Points per layout unit."""
        return UNITS[self.data.get("unit", "mm")]


@cache
def _layout_schema() -> dict[str, Any]:
    return json.loads(LAYOUT_SCHEMA.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def _validator() -> Any:
    return jsonschema_rs.validator_for(_layout_schema())


@cache
def _layout_docs() -> SchemaDocs:
    schema = _layout_schema()
    return SchemaDocs({schema["$id"]: schema})


class LayoutSet:
    """Every layout of a project, resolved, with the problems found on the way."""

    def __init__(self, folder: Path, display: Any, kinds: set[str], root: Path | None) -> None:
        self.root = root  # the project's: a layout that links out of it is never read
        self.files: dict[str, LayoutFile] = {}
        self.layouts: dict[str, Layout] = {}
        self.by_kind: dict[str, Layout] = {}
        self.findings: list[tuple[RecordFile, Finding]] = []
        self.broken_kinds: set[str] = set()  # kinds of layouts with errors: not "missing" a layout
        self._env: ImmutableSandboxedEnvironment | None = None
        if folder.is_dir():
            for path in layout_paths(folder):
                self._read(path, display(path))
        for name in sorted(self.files):
            layout = self._resolve(name)
            if layout is None:
                self.broken_kinds.update(_kinds_named(self.files[name].data))
            if layout is None or layout.data.get("abstract"):
                continue
            self.layouts[name] = layout
            self._assign(layout, kinds)

    @property
    def env(self) -> ImmutableSandboxedEnvironment:
        """The template sandbox (template_env), made when a template first needs Jinja."""
        if self._env is None:
            self._env = template_env()
        return self._env

    def _read(self, path: Path, display: str) -> None:
        if path.suffix in YAML_SUFFIXES:
            from pnp.project.yamlfile import load_yaml  # PyYAML: only to read a YAML file

            source: RecordFile = load_yaml(path, display, 5 * 1024 * 1024, self.root)
        else:
            source = load_file(path, display, 5 * 1024 * 1024, project=self.root)
        self.findings.extend((source, f) for f in source.findings)
        if not source.records or source.is_array:
            if source.records:
                self.findings.append((source, Finding("layout-error", "a layout file holds one JSON object")))
            return
        data = source.records[0]
        errors = list(_validator().iter_errors(data))
        for error in errors:
            for finding in _layout_docs().translate(error, ""):
                message = f"{finding.message} (see pnp/layout.schema.json)"
                self.findings.append((source, Finding("layout-error", message, finding.pointer, finding.at_key)))
        huge = _huge_numbers(data)
        self.findings.extend((source, finding) for finding in huge)
        if errors or huge:
            self.broken_kinds.update(_kinds_named(data))
            return
        if path.stem in self.files:
            other = self.files[path.stem].source.display
            self.findings.append(
                (source, Finding("layout-error", f"layout {path.stem!r} is also defined in {other}; keep one"))
            )
            return
        self.files[path.stem] = LayoutFile(path.stem, source, data)

    def _resolve(self, name: str) -> Layout | None:
        chain: list[LayoutFile] = []
        current: str | None = name
        while current is not None:
            if len(chain) > current_limits().extends_depth:
                what = f"layout {name!r} extends a chain of more than {len(chain) - 1} layouts"
                self.findings.append(
                    (chain[0].source, Finding("limit-exceeded", exceeded("extends_depth", what), "/extends"))
                )
                return None
            if any(f.name == current for f in chain):
                cycle = " -> ".join([*(f.name for f in chain), current])
                self.findings.append(
                    (
                        chain[0].source,
                        Finding(
                            "layout-cycle",
                            f"layouts extend each other in a cycle: {cycle}; remove one 'extends'",
                            "/extends",
                        ),
                    )
                )
                return None
            found = self.files.get(current)
            if found is None:
                last = chain[-1]
                close = difflib.get_close_matches(current, list(self.files), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.findings.append(
                    (
                        last.source,
                        Finding(
                            "layout-error",
                            f"extends {current!r}, which is no layout; {hint}layouts: {', '.join(sorted(self.files))}",
                            "/extends",
                        ),
                    )
                )
                return None
            chain.append(found)
            current = found.data.get("extends")
        data: dict[str, Any] = {}
        for layout_file in reversed(chain):
            data = merge(data, layout_file.data)
        data.pop("abstract", None) if not chain[0].data.get("abstract") else None
        untyped = _untyped_element(data)
        if untyped and not data.get("abstract"):
            message = (
                f"element {untyped} has no 'type' in this layout or any it extends; give it one "
                "(an element that changes one of an extended layout must use that element's name)"
            )
            self.findings.append((chain[0].source, Finding("layout-error", message)))
            return None
        return Layout(name, list(reversed(chain)), data, list(chain[0].data.get("kinds", [])))

    def _assign(self, layout: Layout, kinds: set[str]) -> None:
        own = layout.chain[-1]
        for i, kind in enumerate(layout.kinds):
            if kind not in kinds:
                close = difflib.get_close_matches(kind, sorted(kinds), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.findings.append(
                    (
                        own.source,
                        Finding(
                            "layout-unknown-kind",
                            f"layout for kind {kind!r}, which has no schema; {hint}fix the kind name",
                            f"/kinds/{i}",
                        ),
                    )
                )
                continue
            other = self.by_kind.get(kind)
            if other is not None:
                self.findings.append(
                    (
                        own.source,
                        Finding(
                            "layout-error",
                            f"kind {kind!r} already has layout {other.name!r}; one layout per kind",
                            f"/kinds/{i}",
                        ),
                    )
                )
                continue
            self.by_kind[kind] = layout


LAYOUT_NUMBER_MAX = 100_000  # mm or pt: nothing on a card comes near; from 1e21, PDF numbers fail


def _kinds_named(data: Any) -> list[str]:
    """The kinds a layout file lists (however wrong the rest of it is)."""
    kinds = data.get("kinds") if isinstance(data, dict) else None
    return [kind for kind in kinds if isinstance(kind, str)] if isinstance(kinds, list) else []


OWN_BOUNDS = frozenset({"size", "min_size"})  # text sizes: limits text-max-pt and text-min-pt


def _huge_numbers(data: dict[str, Any]) -> list[Finding]:
    """A layout-error for each measure of an element (a text's size and min_size have limits of
    their own; the card's size and bleed must fit the paper) beyond +-LAYOUT_NUMBER_MAX: a PDF
    cannot draw it."""
    found: list[Finding] = []
    stack: list[tuple[Any, str]] = [(data.get(face), f"/{face}") for face in ("front", "back")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, f"{pointer}/{escape(str(k))}") for k, v in node.items() if k not in OWN_BOUNDS)
        elif isinstance(node, list):
            stack.extend((v, f"{pointer}/{i}") for i, v in enumerate(node))
        elif isinstance(node, int | float) and not isinstance(node, bool) and abs(node) > LAYOUT_NUMBER_MAX:
            message = f"{node:g} is too large: layouts measure in mm (text in pt), at most {LAYOUT_NUMBER_MAX:,}"
            found.append(Finding("layout-error", message, pointer))
    return sorted(found, key=lambda f: f.pointer)


def layout_paths(folder: Path) -> list[Path]:
    """Layout files of a folder: *.json (but icons.json), *.yaml and *.yml, sorted."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if not p.is_dir() and (p.suffix == ".json" or p.suffix in YAML_SUFFIXES)]
    return sorted(p for p in found if p.name != "icons.json")


def face_entries(data: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every face a layout draws, as (name, JSON pointer, face data): "front", "back", and for a
    back chosen per record (`{"by": FIELD, "choices": {...}, "default": {...}}`) "back" (its
    default) and "back/VALUE" for each choice. Absent faces are left out."""
    entries = []
    front = data.get("front")
    if isinstance(front, dict):
        entries.append(("front", "/front", front))
    back = data.get("back")
    if isinstance(back, dict) and is_back_choice(back):
        if isinstance(back.get("default"), dict):
            entries.append(("back", "/back/default", back["default"]))
        for value, face in (back.get("choices") or {}).items():
            if isinstance(face, dict):
                entries.append((f"back/{value}", "/back/choices/" + escape(value), face))
    elif isinstance(back, dict):
        entries.append(("back", "/back", back))
    return entries


def is_back_choice(back: Any) -> TypeGuard[dict[str, Any]]:
    """A back chosen per record by a field (`by`), rather than one face for every record."""
    return isinstance(back, dict) and "by" in back


def choice_value(value: Any) -> str:
    """A field's value as the name of a back choice: text as it is, numbers and booleans as JSON writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def unused_back_choices(
    layouts: LayoutSet, records_of: Callable[[str], Iterable[dict[str, Any]]]
) -> Iterator[tuple[RecordFile, Finding]]:
    """A warning at each back choice that no record of the layout's kinds selects (a typo in a
    choice's name, or in the records' values, silently gives those records the default back)."""
    for layout in layouts.layouts.values():
        back = layout.data.get("back")
        if not is_back_choice(back) or not isinstance(back.get("choices"), dict):
            continue
        own = next((f for f in reversed(layout.chain) if is_back_choice(f.data.get("back"))), layout.chain[-1])
        kinds = [kind for kind in layout.kinds if layouts.by_kind.get(kind) is layout]
        values: set[str] = set()
        seen = False
        for kind in kinds:
            for record in records_of(kind):
                seen = True
                if record.get(back["by"]) is not None:
                    values.add(choice_value(record[back["by"]]))
        if not seen:
            continue
        for name in back["choices"]:
            if name in values:
                continue
            close = difflib.get_close_matches(name, sorted(values), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            shown = ", ".join(repr(v) for v in sorted(values)[:12]) or "none"
            message = (
                f"back choice {name!r} is chosen by no {', '.join(kinds)} record (their {back['by']!r}: {shown}), "
                f"so it is never printed; {hint}name the choice after a value the records hold, or remove it"
            )
            pointer = "/back/choices/" + escape(name)
            yield own.source, Finding("unused-back-choice", message, pointer, at_key=True)


def _untyped_element(data: dict[str, Any]) -> str:
    """The first element of the resolved layout that has no type ('' when all have one)."""
    for face, _, face_data in face_entries(data):
        elements = face_data.get("elements") or []
        for index, element in enumerate(elements):
            if isinstance(element, dict) and "type" not in element:
                return repr(element.get("name", f"{face}[{index}]"))
    return ""


def merge(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """Child settings over the parent's; faces merge their elements by `name`."""
    out = copy.deepcopy(base)
    for key, value in child.items():
        if key in ("extends", "abstract", "kinds"):
            out[key] = value
        elif (
            key in ("front", "back")
            and isinstance(value, dict)
            and isinstance(out.get(key), dict)
            and not is_back_choice(value)
            and not is_back_choice(out[key])
        ):  # a back chosen per record replaces the parent's back whole
            out[key] = _merge_face(out[key], value)
        elif key == "palettes" and isinstance(out.get(key), dict):
            palettes = out[key]
            for name, colors in value.items():
                palettes[name] = {**palettes.get(name, {}), **colors}
        else:
            out[key] = copy.deepcopy(value)
    return out


def _merge_face(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = {**base, **{k: v for k, v in child.items() if k != "elements"}}
    elements = list(base.get("elements", []))
    for element in child.get("elements", []):
        name = element.get("name")
        at = next((i for i, e in enumerate(elements) if name and e.get("name") == name), None)
        if at is None:
            if not element.get("remove"):
                elements.append(element)
        elif element.get("remove"):
            del elements[at]
        else:
            elements[at] = {**elements[at], **element}
    out["elements"] = elements
    return out


def iter_templates(layout_file: LayoutFile) -> Iterator[tuple[str, str, bool]]:
    """(pointer, source, is_expression) of every template in one layout file."""
    data = layout_file.data
    for _, at, face_data in face_entries(data):
        for key in ("background",):
            if isinstance(face_data.get(key), str) and "{{" in face_data[key]:
                yield f"{at}/{key}", face_data[key], False
        for i, element in enumerate(face_data.get("elements", [])):
            for key in TEMPLATE_KEYS:
                if isinstance(element.get(key), str):
                    yield f"{at}/elements/{i}/{key}", element[key], False
            for key in ("fill", "stroke", "color"):
                if isinstance(element.get(key), str) and "{{" in element[key]:
                    yield f"{at}/elements/{i}/{key}", element[key], False
            if isinstance(element.get("when"), str):
                yield f"{at}/elements/{i}/when", element["when"], True

    if isinstance(data.get("copies"), str):
        yield "/copies", data["copies"], False
    for name, spec in (data.get("expand") or {}).items():
        if isinstance(spec, dict):
            for bound in ("from", "to"):
                if isinstance(spec.get(bound), str):
                    yield f"/expand/{name}/{bound}", spec[bound], False


def fields_read(env: ImmutableSandboxedEnvironment, source: str, expression: bool) -> set[str]:
    """Record fields a template reads: free names, and `record.X` / `record['X']`."""
    from jinja2 import nodes

    ast = env.parse("{{ " + source + " }}" if expression else source)
    names: set[str] = set()
    for node in ast.find_all(nodes.Name):
        if node.ctx == "load":
            names.add(node.name)
    for getattr_node in ast.find_all(nodes.Getattr):
        if isinstance(getattr_node.node, nodes.Name) and getattr_node.node.name == "record":
            names.add(getattr_node.attr)
    for getitem in ast.find_all(nodes.Getitem):
        if (
            isinstance(getitem.node, nodes.Name)
            and getitem.node.name == "record"
            and isinstance(getitem.arg, nodes.Const)
            and isinstance(getitem.arg.value, str)
        ):
            names.add(getitem.arg.value)
    assigned = {n.name for n in ast.find_all(nodes.Name) if n.ctx in ("store", "param")}
    assigned |= {macro.name for macro in ast.find_all(nodes.Macro)}  # the template's own macros
    return names - assigned - CONTEXT_NAMES - set(env.globals)  # and Jinja's: namespace, lipsum...


def _fields_or_error(layouts: LayoutSet, source: str, expression: bool) -> set[str] | TemplateSyntaxError:
    """fields_read, or the syntax error; Jinja is asked only where plain_names cannot tell."""
    plain = plain_names(source, expression)
    if plain is not None:
        return set(plain - CONTEXT_NAMES)
    from jinja2.exceptions import TemplateSyntaxError

    try:
        return fields_read(layouts.env, source, expression)
    except TemplateSyntaxError as err:
        return err


def check_layouts(
    layouts: LayoutSet, properties_of: Any, kinds_with_records: dict[str, RecordFile]
) -> Iterator[tuple[RecordFile, Finding]]:
    """Static layout checks: template syntax and fields, and kinds with records but no layout."""
    yield from layouts.findings
    read: dict[tuple[str, bool], set[str] | TemplateSyntaxError] = {}  # layouts share templates and base files
    for layout in layouts.layouts.values():
        expand_names = set((layout.data.get("expand") or {}).keys())
        allowed: set[str] | None = None
        for kind in layout.kinds:
            props = set(properties_of(kind)) if kind in layouts.by_kind and layouts.by_kind[kind] is layout else None
            if props is not None:
                allowed = props if allowed is None else allowed & props
        if allowed is None:
            continue
        for layout_file in layout.chain:
            back = layout_file.data.get("back")
            if is_back_choice(back) and back["by"] not in allowed:
                close = difflib.get_close_matches(back["by"], sorted(allowed), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                message = (
                    f"the back is chosen by field {back['by']!r}, which {', '.join(layout.kinds)} records do not have "
                    f"(layout {layout.name!r}); {hint}fields: {', '.join(sorted(allowed))}"
                )
                yield layout_file.source, Finding("unknown-layout-field", message, "/back/by")
            for pointer, source, expression in iter_templates(layout_file):
                if (source, expression) not in read:
                    read[source, expression] = _fields_or_error(layouts, source, expression)
                used = read[source, expression]
                if not isinstance(used, set):
                    yield layout_file.source, Finding("layout-error", f"template syntax error: {used.message}", pointer)
                    continue
                for name in sorted(used - allowed - expand_names):
                    close = difflib.get_close_matches(name, sorted(allowed), n=1)
                    hint = f"did you mean {close[0]!r}? " if close else ""
                    kinds_text = ", ".join(layout.kinds)
                    yield (
                        layout_file.source,
                        Finding(
                            "unknown-layout-field",
                            f"template reads {name!r}, which {kinds_text} records do not have "
                            f"(layout {layout.name!r}); {hint}fields: {', '.join(sorted(allowed))}",
                            pointer,
                        ),
                    )
    for kind, record_file in sorted(kinds_with_records.items()):
        if kind not in layouts.by_kind and kind not in layouts.broken_kinds and not kind.endswith(".component-list"):
            yield (
                record_file,
                Finding(
                    "missing-layout",
                    f"kind {kind!r} has records but no layout, so pnp build skips it; add a layout listing it in 'kinds'",
                    record_file.pointer(0) + ("" if record_file.kind else "/kind"),
                ),
            )
