"""A sheet's templates without its drawing: what planning a sheet's outputs (which records, which
paths, which titles) needs, so `pnp check` can compute every output's digest and reuse what an
earlier check found without importing reportlab (pnp.sheets.blocks draws; its Drawer extends this).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any

from jinja2 import ChainableUndefined, nodes, pass_context
from jinja2.exceptions import TemplateError
from jinja2.runtime import Context as JinjaContext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from pnp.core.limits import current
from pnp.core.pointers import escape
from pnp.core.problems import Finding
from pnp.project.layout import template_env
from pnp.project.plaintemplates import TEMPLATE_GLOBALS, not_names
from pnp.project.refkinds import Lookup, ref_filter
from pnp.project.sandbox import bounded_render
from pnp.project.sheetfiles import SheetFile, SheetSet
from pnp.project.templatewords import install_words
from pnp.sheets.lookups import CARD, Looked, merged

Block = dict[str, Any]
Scope = dict[str, Any]
CardHook = Callable[[Any, dict[str, Any], float, float, float], bool]


def word_key(part: str) -> str:
    """A name as one part of a catalog context (JSON pointer escaping)."""
    return escape(part)


def humanize(value: Any) -> str:
    """An enum value without a label: 'core-non-city' -> 'Core non city'."""
    from pnp.project.templatewords import humanize as words_humanize

    return words_humanize(value)


def record_id(scope: Scope) -> str:
    """The innermost record being drawn: a loop item that is a record, else the document's record."""
    for key in ("__item__", "record"):
        value = scope.get(key)
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            return str(value["id"])
    return ""


def alone(node: nodes.Node) -> bool:
    """A top-level node of a sheet's `macros` that can be compiled apart from the templates that
    use it: a macro definition, or text that is only whitespace."""
    if isinstance(node, nodes.Macro):
        return True
    return isinstance(node, nodes.Output) and all(
        isinstance(part, nodes.TemplateData) and not part.data.strip() for part in node.nodes
    )


def names_in(tree: nodes.Template) -> frozenset[str]:
    """Every name a sheet's macros define or read."""
    return frozenset(n.name for n in tree.find_all(nodes.Name)) | {m.name for m in tree.find_all(nodes.Macro)}


def stored_in(tree: nodes.Template) -> frozenset[str]:
    """Every name a template sets, defines or imports (anywhere: a conservative reading)."""
    names = {n.name for n in tree.find_all(nodes.Name) if n.ctx == "store"}
    names |= {m.name for m in tree.find_all(nodes.Macro)} | {i.target for i in tree.find_all(nodes.Import)}
    for imported in tree.find_all(nodes.FromImport):
        names |= {name if isinstance(name, str) else name[1] for name in imported.names}
    return frozenset(names)


def record_scope(record: dict[str, Any], game: str, sheet: SheetFile) -> Scope:
    """What a template over one record reads: its fields, `record` itself, the game's title."""
    return {**record, "record": record, "game": game, "__sheet__": sheet.name}


PLAIN_PATH = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*\}\}")


@lru_cache(maxsize=4096)
def _plain_path(source: str) -> tuple[str, str] | None:
    match = PLAIN_PATH.fullmatch(source.strip())
    if match is None or match.group(1) in not_names() or match.group(1) in TEMPLATE_GLOBALS:
        return None
    return match.group(1), match.group(2)


def plain_text(source: str, scope: Scope) -> str | None:
    """What a sheet's `{{ card.name }}` renders, where Jinja is not needed to tell: `card` a record
    (a dict) of this scope, `name` one of its fields (not a dict method Jinja would find first)
    holding text within the template-output limit, which Jinja prints as it is. None: ask Jinja (a
    table's cells are most of a sheet's templates, and rendering them was a fifth of laying it out).
    The text is the output up to the whitespace around the template (the caller strips it)."""
    path = _plain_path(source)
    if path is None:
        return None
    owner = scope.get(path[0])
    if type(owner) is not dict or hasattr(dict, path[1]):
        return None
    value = owner.get(path[1])
    if type(value) is not str or len(value) > current().template_output:
        return None
    return value


@dataclass(slots=True)
class Templates:
    """The sheet templates' environment (filters `ref`, `label`, `resolve`; `records_of`) and the
    problems its templates met."""

    sheets: SheetSet
    lookup: Lookup
    labels: Callable[[str, str], dict[str, str]]
    records_of: Callable[[str], list[dict[str, Any]]] = lambda _kind: []
    # the reference sites of a kind's records (path, and the target field a value names: "id" or
    # another), and the kinds that have any: what `referencing` searches
    ref_sites: Callable[[str], list[tuple[tuple[str, ...], str]]] = lambda _kind: []
    kinds_with_refs: tuple[str, ...] = ()
    # a sheet word from no sheet file, by catalog context (pnp.translation.sheetwords): a language build translates it
    word: Callable[[str, str], str] = lambda _context, text: text
    problems: list[tuple[SheetFile, Finding]] = field(default_factory=list)
    env: ImmutableSandboxedEnvironment = field(default_factory=template_env)
    # what the templates looked up while tracking (`track`): records by id (with the kind a scoped
    # `ref` named, "" for none) and kinds listed whole (`records_of`); None: not tracking
    _looked_ids: set[tuple[Any, str]] | None = None
    _looked_kinds: set[str] | None = None
    _looked_files: set[str] | None = None  # files named by templates (an `image` block's `src`)
    _naming: dict[str, dict[tuple[str, Any], list[tuple[dict[str, Any], str]]]] = field(default_factory=dict)
    _compiled: dict[tuple[str, bool], Any] = field(default_factory=dict)
    _macro_templates: dict[str, tuple[Any, frozenset[str]]] = field(default_factory=dict)
    _apart_templates: dict[tuple[str, str], tuple[Any, Any] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.env.undefined = ChainableUndefined  # a missing field prints nothing and is false
        self.lookup = self._tracked_lookup(self.lookup)
        self.records_of = self._tracked_records_of(self.records_of)
        self.env.filters["ref"] = ref_filter(self.lookup)
        self.env.filters["label"] = self._label_filter()
        self.env.filters["resolve"] = self._resolve
        self.env.globals["records_of"] = self.records_of
        self.env.globals["referencing"] = self.referencing
        word = self.word  # `_('Ships')` in a sheet: the entry of this sheet file (sheet:<name>, by text)
        install_words(self.env, lambda context, text: word(f"sheet:{context.get('__sheet__', '')}", text))

    def _tracked_lookup(self, lookup: Any) -> Any:
        def looked_up(record_id: Any, kind: str | None = None) -> Any:
            if self._looked_ids is not None and isinstance(record_id, (str, int)) and not isinstance(record_id, bool):
                self._looked_ids.add((record_id, kind if isinstance(kind, str) else ""))
            return lookup(record_id, kind)

        return looked_up

    def _tracked_records_of(self, records_of: Callable[[str], list[dict[str, Any]]]) -> Any:
        def listed(kind: Any) -> list[dict[str, Any]]:
            if self._looked_kinds is not None:
                self._looked_kinds.add(str(kind))
            return records_of(kind)

        return listed

    def referencing(self, record_id: Any, kind: Any = None, field_name: Any = None) -> list[dict[str, Any]]:
        """`referencing(id)`: the records whose references name the record `id` (through any field
        its kind's schema marks `x-ref`), kind by kind (sorted), each kind's in project order; `kind`:
        of that kind only; `field_name`:
        through that top-level field only. What the looked-up ids' kinds list is tracked as
        `records_of` is: a record that starts or stops naming it rebuilds the output."""
        if isinstance(record_id, bool) or not isinstance(record_id, (str, int)):
            return []
        target = self.lookup(record_id, None)
        kinds = [str(kind)] if kind is not None else list(self.kinds_with_refs)
        found: list[dict[str, Any]] = []
        for name in kinds:
            self.records_of(name)  # noted while tracking: the answer depends on every record of the kind
            naming = self._naming_index(name)
            for by in {by for _path, by in self.ref_sites(name)}:
                value = record_id if by == "id" else (target or {}).get(by)
                for record, via in naming.get((by, value), []) if value is not None else []:
                    if (field_name is None or via == field_name) and all(record is not r for r in found):
                        found.append(record)
        return found

    def _naming_index(self, kind: str) -> dict[tuple[str, Any], list[tuple[dict[str, Any], str]]]:
        """(target field, value) -> (record, top-level field) for every reference of `kind`'s records."""
        from pnp.project.index import values_at

        index = self._naming.get(kind)
        if index is None:
            index = {}
            for record in self.records_of(kind):
                for path, by in self.ref_sites(kind):
                    for _pointer, value in values_at(record, path, ""):
                        if isinstance(value, (str, int)) and not isinstance(value, bool):
                            index.setdefault((by, value), []).append((record, path[0]))
            self._naming[kind] = index
        return index

    def track(self) -> None:
        """Start noting every record the templates look up (pnp.sheets.lookups: an output depends on
        exactly those), forgetting what was noted before."""
        self._looked_ids, self._looked_kinds, self._looked_files = set(), set(), set()

    def note_card(self, record: dict[str, Any]) -> None:
        """A record a `card` block drew (its face may show what it names), while tracking."""
        record_id = record.get("id")
        if self._looked_ids is not None and isinstance(record_id, str):
            self._looked_ids.add((record_id, CARD))

    def note_file(self, name: str) -> None:
        """A file a template named (its content is an input of the output), while tracking."""
        if self._looked_files is not None:
            self._looked_files.add(name)

    def tracked(self) -> Looked:
        """What was looked up since `track` (ids with their kind scope, kinds listed, files named),
        sorted; and stop noting."""
        looked = (tuple(self._looked_ids or ()), tuple(self._looked_kinds or ()), tuple(self._looked_files or ()))
        self._looked_ids = self._looked_kinds = self._looked_files = None
        return merged(looked)

    def _resolve(self, value: Any) -> Any:
        """`{{ unit | resolve }}`: the record an id names (lists map item by item); None for no record."""
        if isinstance(value, list):
            return [r for r in (self._resolve(v) for v in value) if r is not None]
        return self.lookup(value) if isinstance(value, str) else None

    def _label_filter(self) -> Callable[..., Any]:
        labels = self.labels

        @pass_context
        def label(context: JinjaContext, value: Any, field_name: str) -> Any:
            if isinstance(value, list):
                return [label(context, v, field_name) for v in value]
            sheet = str(context.get("__sheet__", ""))
            own = self.sheets.sheets.get(sheet)
            kinds = [r.get("kind") for r in (context.get("__item__"), context.get("record")) if isinstance(r, dict)]
            found = None
            for kind in [*kinds, *(own.kinds if own else ())]:
                found = labels(f"{sheet}\n{kind}", field_name).get(str(value))
                if found is not None:
                    break
            return found if found is not None else humanize(value)

        return label

    def _compile(self, source: str, expression: bool, macros: str = "") -> Any:
        key = (macros + source, expression)
        if key not in self._compiled:
            env = self.env
            self._compiled[key] = env.compile_expression(source) if expression else env.from_string(macros + source)
        return self._compiled[key]

    def expr(self, sheet: SheetFile, pointer: str, source: str, scope: Scope) -> Any:
        try:
            value = self._compile(source, True)(**scope)
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError, RecursionError) as err:
            self.fail(sheet, pointer, scope, f"expression {source!r} failed: {err}")
            return None
        return None if isinstance(value, ChainableUndefined) else value

    def _macros(self, macros: str) -> tuple[Any, frozenset[str]]:
        """A sheet's `macros` compiled on their own, and the names they use; (None, ...) unless
        they are macro definitions only (between them, whitespace)."""
        if macros not in self._macro_templates:
            found: tuple[Any, frozenset[str]] = (None, frozenset())
            try:
                tree = self.env.parse(macros)
                if all(alone(node) for node in tree.body):
                    found = (self._compile(macros, False), names_in(tree))
            except TemplateError:
                pass  # each template says so, compiled with them in front
            self._macro_templates[macros] = found
        return self._macro_templates[macros]

    def _apart(self, source: str, macros: str) -> tuple[Any, Any] | None:
        """(macros, template) each compiled alone, when running them one after the other in one
        context renders what they render compiled as one; else None."""
        key = (macros, source)
        if key not in self._apart_templates:
            head, used = self._macros(macros)
            found = None
            if head is not None:
                try:
                    tree = self.env.parse(source)
                    if not stored_in(tree) & used and not any(tree.find_all((nodes.Block, nodes.Extends))):
                        found = (head, self._compile(source, False))
                except TemplateError:
                    pass  # compiled with the macros in front, it fails as it always did
            self._apart_templates[key] = found
        return self._apart_templates[key]

    def _render(self, source: str, macros: str, scope: Scope) -> str:
        """`macros` then `source`, rendered. Compiling a sheet's macros in front of each of its
        templates was most of what laying out a sheet cost; instead the macros, compiled once,
        and the template, compiled alone, run one after the other in one context: the template
        finds the macros there, and the macros look their free names up there when they run,
        as they would compiled as one. Not when the template defines or sets a name the macros
        use (compiled as one, the macros would see the template's), or has blocks."""
        apart = self._apart(source, macros) if macros else None
        if apart is None:
            return str(self._compile(source, False, macros).render(**scope))
        head, body = apart
        context = body.new_context(scope)
        try:
            return bounded_render(chain(head.root_render_func(context), body.root_render_func(context)))
        except Exception:
            self.env.handle_exception()  # raises, with the template's own traceback
            raise

    def text(self, sheet: SheetFile, pointer: str, source: str, scope: Scope) -> str:
        try:
            macros = str(sheet.data.get("macros", ""))
            if not macros:
                known = plain_text(source, scope)
                if known is not None:
                    return known.strip()
            return self._render(source, macros, scope).strip()
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError, RecursionError) as err:
            self.fail(sheet, pointer, scope, f"template failed: {err}")
            return ""

    def when(self, sheet: SheetFile, pointer: str, block: Block, scope: Scope) -> bool:
        return "when" not in block or bool(self.expr(sheet, pointer + "/when", block["when"], scope))

    def fail(self, sheet: SheetFile, pointer: str, scope: Scope, message: str) -> None:
        rid = record_id(scope)
        where = f"record {rid!r}: " if rid else ""
        self.problems.append((sheet, Finding("sheet-error", where + message, pointer)))
