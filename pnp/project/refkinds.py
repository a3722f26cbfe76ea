"""`ref` in templates: a referenced record's field, looked up by id (in one kind when named).

Kinds declared in pnp.toml [kinds] have ids of their own, so a template may name the kind it
means: `{{ pack_code | ref("name", kind="nr.pack") }}`. `pnp check` reports a kind no record has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from pnp.core.problems import Finding

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.records import RecordFile


class Lookup(Protocol):
    """The record an id names, in `kind` when given (`pnp.project.loaded.LoadedProject.lookup`)."""

    def __call__(self, record_id: Any, kind: str | None = None) -> dict[str, Any] | None: ...


def no_lookup(record_id: Any, kind: str | None = None) -> dict[str, Any] | None:
    """A lookup that finds nothing: `ref` then prints the id itself."""
    return None


def ref_filter(lookup: Lookup) -> Callable[..., Any]:
    """`{{ faction | ref }}`: the referenced record's name (or another field); lists map item by
    item. `ref("name", kind="nr.pack")` looks in one kind: kinds declared in pnp.toml [kinds]
    have ids of their own, so a pack `core` and a cycle `core` are told apart."""

    from jinja2 import pass_context

    def find(value: Any, field: str = "name", kind: str | None = None) -> Any:
        if isinstance(value, list):
            return [find(item, field, kind) for item in value]
        if not isinstance(value, str) and not (kind is not None and type(value) is int):
            return value
        target = lookup(value, kind if isinstance(kind, str) else None)
        return target.get(field, value) if target else value

    @pass_context  # never run while compiling (on a constant id): the code is shared (pnp.project.sandbox)
    def ref(context: Any, value: Any, field: str = "name", kind: str | None = None) -> Any:
        return find(value, field, kind)

    return ref


def unknown_ref_kinds(layouts: LayoutSet, kinds: set[str]) -> Iterator[tuple[RecordFile, Finding]]:
    """`ref(kind="...")` naming a kind no schema or record has: the lookup would find nothing
    and print the id itself, so the mistake would only show on the printed card."""
    import difflib

    from pnp.project.layout import iter_templates

    for layout in layouts.layouts.values():
        for layout_file in layout.chain:
            for pointer, source, expression in iter_templates(layout_file):
                if "ref" not in source or "kind" not in source:
                    continue
                from jinja2 import TemplateSyntaxError, nodes  # only for a template naming a kind

                try:
                    parsed = layouts.env.parse("{{ " + source + " }}" if expression else source)
                except TemplateSyntaxError:
                    continue  # reported where the layout's fields are checked
                for node in parsed.find_all(nodes.Filter):
                    named = [kw.value for kw in node.kwargs if node.name == "ref" and kw.key == "kind"]
                    for value in named:
                        if isinstance(value, nodes.Const) and isinstance(value.value, str) and value.value not in kinds:
                            close = difflib.get_close_matches(value.value, sorted(kinds), n=1)
                            hint = f"did you mean {close[0]!r}? " if close else ""
                            message = (
                                f"ref names kind {value.value!r}, which no schema or record has "
                                f"(layout {layout.name!r}); {hint}kinds: {', '.join(sorted(kinds))}"
                            )
                            yield layout_file.source, Finding("layout-unknown-kind", message, pointer)
