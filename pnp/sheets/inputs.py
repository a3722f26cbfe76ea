"""What one sheet output is made from, as one digest: `pnp build` skips an output whose digest is
unchanged, and `pnp check` reuses what laying it out found (output/.pnp-cache/sheets/).

An output depends on its sheet file and the sheets it includes (transitively), the records it
prints and those its templates look up, the schemas of their kinds (labels), the icons, the card
layouts (and their images and fonts) of the records a card block may draw, the static images its
image blocks show, the paper, and pnp's code. Nothing else: editing one sheet file rebuilds only
the outputs that use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pnp.project.sheetfiles import SHEET_SCHEMA, SheetFile, SheetSet, walk_blocks

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject

PACKAGE = Path(__file__).resolve().parents[1]


def used_sheets(sheet: SheetFile, sheets: SheetSet) -> list[SheetFile]:
    """The sheet and every sheet it includes, transitively (each once, in a stable order)."""
    seen: dict[str, SheetFile] = {}
    todo = [sheet]
    while todo:
        current = todo.pop()
        if current.name in seen:
            continue
        seen[current.name] = current
        for _pointer, block in walk_blocks(current.data.get("blocks"), "/blocks"):
            target = sheets.sheets.get(str(block.get("sheet"))) if block.get("type") == "include" else None
            if target is not None:
                todo.append(target)
    return sorted(seen.values(), key=lambda s: s.name)


def _blocks_of(used: list[SheetFile], kind: str) -> list[dict[str, Any]]:
    return [b for s in used for _p, b in walk_blocks(s.data.get("blocks"), "/blocks") if b.get("type") == kind]


class Inputs:
    """Digests of sheet outputs over one loaded project (per-kind work is done once)."""

    def __init__(self, loaded: LoadedProject, sheets: SheetSet, paper: str) -> None:
        from pnp.drawing.findings import code_digest

        self.loaded = loaded
        self.sheets = sheets
        self.paper = paper
        self.code = code_digest()
        from pnp.drawing.findings import icon_files

        self.files = [
            *sorted(PACKAGE.glob("sheets/*.py")),
            PACKAGE / "project" / "sheetfiles.py",
            SHEET_SCHEMA,
            loaded.project.layouts / "icons.json",
        ]
        self.files += icon_files(loaded.project)  # text of a sheet draws them too
        self._layouts: LayoutSet | None = None
        self._drawn: dict[str, list[Path]] = {}
        self._any: dict[str, bool] = {}
        self._every: str | None = None

    def layouts(self) -> LayoutSet:
        if self._layouts is None:
            self._layouts = self.loaded.layouts
        return self._layouts

    def shows_any_record(self, kind: str) -> bool:
        """Whether a kind's card may show any record: its layout looks up ids its templates make
        (pnp.drawing.faces.ref_use), so a card drawn on a sheet depends on every record."""
        if kind not in self._any:
            from pnp.drawing.faces import ref_use

            layout = self.layouts().by_kind.get(kind)
            self._any[kind] = layout is not None and ref_use(layout) == "any"
        return self._any[kind]

    def every_record(self) -> str:
        """The digest of every record of the project (made once)."""
        if self._every is None:
            from pnp.drawing.faces import every_record_digest

            self._every = every_record_digest(self.loaded).hex()
        return self._every

    def drawn_with(self, kind: str) -> list[Path]:
        """A kind's card layout files and the static images and fonts it draws (none: no layout)."""
        if kind not in self._drawn:
            from pnp.drawing.findings import asset_files

            layout = self.layouts().by_kind.get(kind)
            self._drawn[kind] = [] if layout is None else [*layout.files, *asset_files(self.loaded, layout, kind)]
        return self._drawn[kind]

    def digest(
        self,
        sheet: SheetFile,
        relative: str,
        records: tuple[dict[str, Any], ...],
        named: list[Path] | None = None,
        unusable: list[str] | None = None,
        drawn: tuple[str, ...] = (),
    ) -> str:
        """The digest of one output (`relative`: its path inside the output folder); `named`: files
        its templates named (an image's templated `src`), `unusable`: such names that are no file;
        `drawn`: the kinds of the records its `card` blocks drew when it was laid out."""
        from pnp.core.output import digest

        used = used_sheets(sheet, self.sheets) if sheet.name in self.sheets.sheets else [sheet]
        kinds = sorted({str(r.get("kind")) for r in records} | set(sheet.kinds) | set(drawn))
        schemas = self.loaded.schemas
        docs = [schemas.docs[schemas.kind_uri[k]] for k in kinds if k in schemas.kind_uri]
        files = [s.source.path for s in used if s.source.raw]
        every = ""
        if _blocks_of(used, "card"):
            files += [path for kind in kinds for path in self.drawn_with(kind)]
            if any(self.shows_any_record(kind) for kind in kinds):
                every = self.every_record()
        root = self.loaded.project.root
        files += [root / str(b["src"]) for b in _blocks_of(used, "image") if "{" not in str(b.get("src", "{"))]
        files += named or []
        return digest(
            "sheets", self.code, self.paper, relative, [s.data for s in used], orjson.dumps(records).decode(),
            docs, unusable or [], every, files=[*self.files, *files], root=self.loaded.project.root,
        )  # fmt: skip
