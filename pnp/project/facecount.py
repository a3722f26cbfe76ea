"""How many items of the box one record stands for: what component lists count.

Where the kind's layout has `expand`, the faces it makes of the record, as
pnp.drawing.pdf.expand_faces makes them: the layout's `copies` (a number or a template; without
it, the record's `copies`, else 1) times the length of each `expand` axis (a list of values, or a
`{from, to}` range whose ends are numbers or templates). Templates run in the project's template
sandbox, so the rules stage counts without drawing anything. Without `expand`, the record's
`copies`: a layout's `copies` alone is a printing choice (0 for a component recorded as this kind
but printed elsewhere), not a count of the box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pnp.project.jsonfile import whole_number

if TYPE_CHECKING:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from pnp.project.layout import LayoutSet
    from pnp.project.refkinds import Lookup

Record = dict[str, Any]
FAILURES = (TypeError, ValueError, ArithmeticError, LookupError, AttributeError, RecursionError)


def record_copies(record: Record) -> int:
    """The record's own `copies` (2.0 is 2, as the schema's integer), else 1."""
    copies = whole_number(record.get("copies", 1))
    return copies if copies is not None else 1


class FaceCounter:
    """faces(kind, record): the faces the kind's layout makes of the record where it has `expand`;
    otherwise the record's `copies`. A template that fails (reported where the layout is checked
    and drawn) counts the record's `copies` too."""

    def __init__(self, layouts: LayoutSet, lookup: Lookup | None = None) -> None:
        self.layouts = layouts
        self.lookup = lookup
        self._env: ImmutableSandboxedEnvironment | None = None

    def expands(self, kind: str) -> bool:
        """Whether the kind's layout sets `expand` (counts may differ from the records' copies)."""
        layout = self.layouts.by_kind.get(kind)
        return layout is not None and bool(layout.data.get("expand"))

    def __call__(self, kind: str, record: Record) -> int:
        layout = self.layouts.by_kind.get(kind)
        data = layout.data if layout is not None else {}
        expand = data.get("expand")
        if not expand or not isinstance(expand, dict):
            return record_copies(record)
        copies_spec = data.get("copies")
        from jinja2 import TemplateError  # only where a layout counts (a plain check loads no jinja2)

        context = {**record, "record": record}
        try:
            total = max(record_copies(record) if copies_spec is None else self._number(copies_spec, context), 0)
            for spec in expand.values():
                if isinstance(spec, dict):
                    start, stop = self._number(spec["from"], context), self._number(spec["to"], context)
                    total *= max(stop - start + 1, 0)
                elif isinstance(spec, list):
                    total *= len(spec)
        except (TemplateError, *FAILURES):
            return record_copies(record)
        return total

    def _number(self, spec: Any, context: Record) -> int:
        if isinstance(spec, bool) or not isinstance(spec, (int, str)):
            raise ValueError(f"{spec!r} is no whole number")
        if isinstance(spec, int):
            return spec
        return int(self._template_env().from_string(spec).render(context).strip())

    def _template_env(self) -> ImmutableSandboxedEnvironment:
        if self._env is None:
            from pnp.project.layout import template_env
            from pnp.project.refkinds import ref_filter

            self._env = template_env()
            if self.lookup is not None:
                self._env.filters["ref"] = ref_filter(self.lookup)
        return self._env
