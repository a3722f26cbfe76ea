"""`pnp stats`: records per game and kind, against the component lists."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from pnp.project.config import Project
from pnp.project.facecount import FaceCounter, record_copies
from pnp.project.index import Index
from pnp.project.loaded import has_layouts, load_project_records
from pnp.rules import xrefs


@dataclass(frozen=True, slots=True)
class KindStats:
    game: str
    kind: str
    records: int
    copies: int
    expected: int | None
    transcription: str  # complete / partial / "" (no component line)
    status: str


def collect_stats(project: Project) -> list[KindStats]:
    loaded = load_project_records(project)
    index = loaded.index
    # a layout's `expand` makes several faces of one record (pnp.project.facecount)
    faces = FaceCounter(loaded.layouts, loaded.lookup) if has_layouts(project) else None
    lines: dict[str, list[dict[str, object]]] = {}
    for _, _, _, component in xrefs.component_lines(index):
        lines.setdefault(str(component["kind"]), []).append(component)
    rows: list[KindStats] = []
    for kind in loaded.schemas.kinds:
        records = [r for _, _, r in index.records_of(kind)]
        copies = sum(faces(kind, r) if faces else record_copies(r) for r in records)
        own = lines.get(kind, [])
        whole = [c for c in own if not c.get("where")]
        # a whole-kind line; else the broadest subset lines (fewest conditions), whose counts add up
        broadest = min((len(c.get("where") or {}) for c in own), default=0)  # type: ignore[arg-type]
        counted = whole or [c for c in own if len(c.get("where") or {}) == broadest]  # type: ignore[arg-type]
        expected: int | None = None
        transcription = ""
        status = "no component line" if records else "no records"
        if counted:
            expected = sum(int(c["count"]) for c in counted if isinstance(c.get("count"), int))  # type: ignore[call-overload]
            transcription = "partial" if any(c.get("transcription") == "partial" for c in counted) else "complete"
            statuses = [s for s in (_line_status(index, c, faces) for c in counted) if s != "ok"]
            status = "; ".join(statuses) if statuses else "ok"
        rows.append(KindStats(project.game(kind).folder, kind, len(records), copies, expected, transcription, status))
    return rows


def _line_status(index: Index, line: dict[str, object], faces: FaceCounter | None = None) -> str:
    expected = line.get("count")
    present = xrefs.count_present(index, line, faces)
    where = line.get("where") or {}
    subset = " with " + ", ".join(f"{k}={v}" for k, v in where.items()) if where else ""  # type: ignore[attr-defined]
    if present == expected:
        return "ok"
    if line.get("transcription") == "partial" and isinstance(expected, int) and present < expected:
        return f"partial: {present} of {expected}{subset} (the line is marked partial)"
    return f"MISMATCH: {present} of {expected}{subset}"


def render_stats(rows: list[KindStats], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2) + "\n"
    out: list[str] = []
    for game in sorted({r.game for r in rows}):
        game_rows = [r for r in rows if r.game == game]
        out.append(f"{game}")
        header = ("kind", "records", "copies", "expected", "status")
        table = [header] + [
            (r.kind, str(r.records), str(r.copies), "" if r.expected is None else str(r.expected), r.status)
            for r in game_rows
        ]
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]
        for row in table:
            out.append(
                "  "
                + "  ".join(
                    cell.ljust(widths[i]) if i in (0, 4) else cell.rjust(widths[i]) for i, cell in enumerate(row)
                ).rstrip()
            )
        out.append("")
    return "\n".join(out)
