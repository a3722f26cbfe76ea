"""Where drawing's findings belong: a layout finding at the file of the `extends` chain that
sets the key (once per layout), a record finding at the record's field (once per record)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pnp.core.problems import Finding
from pnp.project.records import RecordFile

if TYPE_CHECKING:
    from pnp.project.layout import Layout, LayoutFile

Located = tuple[RecordFile, Finding]


def layout_site(layout: Layout, pointer: str) -> tuple[LayoutFile, str]:
    """The file of the layout's `extends` chain that sets `pointer` (into the merged data), and where.

    Elements merge by name, so an element's index in a file differs from its merged index.
    """
    parts = pointer.split("/")[1:]
    own_first = list(reversed(layout.chain))
    if len(parts) >= 3 and parts[0] in ("front", "back") and parts[1] == "elements":
        face, index, rest = parts[0], int(parts[2]), parts[3:]
        merged = ((layout.data.get(face) or {}).get("elements") or [])[index]
        name = merged.get("name")
        for layout_file in own_first:
            elements = (layout_file.data.get(face) or {}).get("elements") or []
            for i, element in enumerate(elements):
                same = element.get("name") == name if name else element == merged
                if same and (not rest or rest[0] in element):
                    return layout_file, "/".join(["", face, "elements", str(i), *rest])
        return own_first[0], f"/{face}"
    for layout_file in own_first:
        node: Any = layout_file.data
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            return layout_file, pointer
    return own_first[0], ""


def place(
    layout: Layout, layout_findings: Iterable[Finding], record_findings: list[tuple[Any, Finding]]
) -> list[Located]:
    """File-absolute findings, each once: layout ones at their layout file, record ones at the record field."""
    placed: dict[tuple[int, str, str, str], Located] = {}
    layout_findings = [*layout_findings, *(f for _, f in record_findings if f.in_layout)]
    for finding in layout_findings:
        layout_file, pointer = layout_site(layout, finding.pointer)
        key = (id(layout_file.source), pointer, finding.code, "")  # once per layout, whatever the record
        placed.setdefault(key, (layout_file.source, replace(finding, pointer=pointer, in_layout=False)))
    for origin, finding in record_findings:
        if finding.in_layout:
            continue
        record_file, index = origin
        field = finding.pointer[1:]
        pointer = record_file.pointer(index) + (
            finding.pointer if field and field in record_file.records[index] else ""
        )
        key = (id(record_file), pointer, finding.code, finding.message)  # copies of a record: once
        placed.setdefault(key, (record_file, replace(finding, pointer=pointer)))
    return list(placed.values())
