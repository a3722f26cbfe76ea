"""A Diff printed: `text` (for a terminal), `json` (for tools), `github` (a Markdown summary for a
pull-request comment), and the changelog in words that opens the errata PDF.

Every list comes sorted as `compare` made it (kind, id; path), so the same two versions always
print the same report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

import orjson

from pnp.core.pointers import tokens
from pnp.core.problems import one_line
from pnp.outputs.diff.compare import ABSENT, Diff, FaceChange, FieldChange, RecordChange

SHORT = 60  # characters of a value shown in the words of a changelog or a Markdown table
REASON_WORDS = {
    "record": "its data",
    "layout": "its layout, icons or fonts",
    "files": "an image or a record it shows",
}


def value_text(value: Any, limit: int = 0) -> str:
    """A value as JSON (strings quoted), on one line, cut to `limit` characters when given."""
    if value is ABSENT:
        return "(none)"
    text = orjson.dumps(value, default=str).decode()
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return one_line(text)


def field_words(change: FieldChange) -> str:
    """`cost 2 → 3`, `text changed`, `art added`: a field change for a reader."""
    name = ".".join(tokens(change.pointer)) or "(the record)"
    if change.status == "added":
        return f"{name} added ({value_text(change.after, SHORT)})"
    if change.status == "removed":
        return f"{name} removed"
    before, after = value_text(change.before, SHORT), value_text(change.after, SHORT)
    if len(before) + len(after) > SHORT:
        return f"{name} changed"
    return f"{name} {before} → {after}"


def _counts(diff: Diff) -> str:
    def count(changes: tuple[RecordChange, ...] | tuple[FaceChange, ...], status: str) -> int:
        return sum(1 for c in changes if c.status == status)

    redrawn = sum(1 for f in diff.faces if f.status != "removed")
    changed = count(diff.records, "changed")
    return (
        f"{count(diff.records, 'added')} added, {count(diff.records, 'removed')} removed, "
        f"{changed} changed record{_s(changed)}; faces of {redrawn} record{_s(redrawn)} to print; "
        f"{len(diff.files)} project file{_s(len(diff.files))} changed"
    )


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def redrawn_only(diff: Diff) -> list[FaceChange]:
    """Faces that changed while their record did not (a layout, an icon, a font, an image)."""
    data = {(r.kind, r.id) for r in diff.records}
    return [f for f in diff.faces if (f.kind, f.id) not in data]


# --- text -------------------------------------------------------------------------------------


def report_text(diff: Diff, out: IO[str], files: bool = True) -> None:
    out.write(f"pnp diff {one_line(diff.before)} .. {one_line(diff.after)}\n")
    if not diff.changed:
        out.write("no changes\n")
        return
    signs = {"added": "+", "removed": "-", "changed": "~"}
    for change in diff.records:
        out.write(
            f"{signs[change.status]} {change.kind} {one_line(change.id)} ({change.status}) {one_line(change.place)}\n"
        )
        for field in change.fields:
            out.write(
                f"    {field.pointer or '/'}: {value_text(field.before)} -> {value_text(field.after)}\n"
                if field.status == "changed"
                else f"    {field.pointer}: {field.status} {value_text(field.after if field.status == 'added' else field.before)}\n"
            )
    for face in redrawn_only(diff):
        why = ", ".join(REASON_WORDS[r] for r in face.reasons)
        out.write(f"* {face.kind} {one_line(face.id)} redrawn (layout {one_line(face.layout)}: {why} changed)\n")
    for file in diff.files:
        out.write(f"{signs[file.status]} file {one_line(file.path)} ({file.status})\n")
    out.write(_counts(diff) + "\n")


# --- json -------------------------------------------------------------------------------------


def _field_dict(change: FieldChange) -> dict[str, Any]:
    found: dict[str, Any] = {"pointer": change.pointer, "status": change.status}
    if change.before is not ABSENT:
        found["before"] = change.before
    if change.after is not ABSENT:
        found["after"] = change.after
    return found


def diff_dict(diff: Diff) -> dict[str, Any]:
    return {
        "version": 1,
        "before": diff.before,
        "after": diff.after,
        "changed": diff.changed,
        "records": [
            {
                "kind": r.kind,
                "id": r.id,
                "status": r.status,
                "place": r.place,
                "title": r.title,
                "fields": [_field_dict(f) for f in r.fields],
            }
            for r in diff.records
        ],
        "faces": [
            {"kind": f.kind, "id": f.id, "status": f.status, "layout": f.layout, "reasons": list(f.reasons)}
            for f in diff.faces
        ],
        "files": [{"path": f.path, "status": f.status} for f in diff.files],
    }


def report_json(diff: Diff, out: IO[str], files: bool = True) -> None:
    out.write(orjson.dumps(diff_dict(diff), option=orjson.OPT_INDENT_2, default=str).decode() + "\n")


# --- github (Markdown) -----------------------------------------------------------------------


MARKDOWN_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "`": "\\`",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "@": "&#64;",  # no @mention of anyone from a card's name in a pull-request comment
    }
)


def _cell(text: str) -> str:
    """Text as Markdown shows it literally, on one line: no table break, emphasis, link, HTML or mention."""
    return one_line(text).translate(MARKDOWN_ESCAPES)


def report_github(diff: Diff, out: IO[str], files: bool = True) -> None:
    """`files`: output/diff/ was written (the summary points at it)."""
    out.write(f"### pnp diff: {_cell(diff.before)} → {_cell(diff.after)}\n\n")
    if not diff.changed:
        out.write("No changes to records, faces or project files.\n")
        return
    out.write(_counts(diff) + ".\n\n")
    if diff.records:
        out.write("| | kind | record | change |\n| --- | --- | --- | --- |\n")
        for change in diff.records:
            what = "; ".join(field_words(f) for f in change.fields) if change.fields else change.status
            out.write(f"| {change.status} | {_cell(change.kind)} | {_cell(change.title)} | {_cell(what)} |\n")
        out.write("\n")
    redrawn = redrawn_only(diff)
    if redrawn:
        out.write("Faces redrawn without a change to their record:\n\n")
        for face in redrawn:
            why = ", ".join(REASON_WORDS[r] for r in face.reasons)
            out.write(f"- {_cell(face.kind)} {_cell(face.title)} (layout {_cell(face.layout)}: {why} changed)\n")
        out.write("\n")
    if diff.files:
        out.write("Project files: " + ", ".join(f"{_cell(f.path)} ({f.status})" for f in diff.files) + "\n\n")
    if files:
        out.write("Before and after: output/diff/index.html; the sheets to reprint: output/diff/errata.pdf.\n")


REPORTERS: dict[str, Callable[[Diff, IO[str], bool], None]] = {
    "text": report_text,
    "json": report_json,
    "github": report_github,
}


# --- the errata's changelog ------------------------------------------------------------------


def changelog_lines(diff: Diff) -> list[str]:
    """The changes in words, one a line, for the first page of the errata PDF."""
    lines = []
    for change in diff.records:
        if change.status == "added":
            lines.append(f"New {change.kind}: {change.title}")
        elif change.status == "removed":
            lines.append(f"Removed {change.kind}: {change.title} (take it out of the game)")
        else:
            lines.append(f"Changed {change.kind}: {change.title}: " + "; ".join(field_words(f) for f in change.fields))
    by_layout: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    for face in redrawn_only(diff):
        by_layout.setdefault((face.kind, face.layout, face.reasons), []).append(face.title)
    for (kind, layout, reasons), titles in by_layout.items():
        why = ", ".join(REASON_WORDS[r] for r in reasons)
        lines.append(f"Redrawn {kind} ({why} changed, layout {layout}): {', '.join(titles)}")
    lines.extend(f"File {f.path}: {f.status}" for f in diff.files)
    return [one_line(line) for line in lines]
