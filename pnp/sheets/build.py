"""Plan and build every sheet file's PDFs, and a generic reference sheet for uncovered kinds.

Files are written atomically, skipped when their inputs (pnp/sheets/inputs.py: the sheet files
they use, the records they read, icons, the card layouts they draw, pnp, the paper) are unchanged,
and byte-identical for identical input (reportlab's invariant mode). Text taller than a page is an error located at
the sheet block, naming the record and field; that file is not written.
"""

from __future__ import annotations

import collections
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.output import Manifest, atomic_write
from pnp.core.problems import Finding, Problem
from pnp.core.units import parse_paper
from pnp.drawing import fonts
from pnp.project.index import values_at
from pnp.project.loaded import read_sheet_files
from pnp.project.records import RecordFile
from pnp.project.sheetfiles import SheetFile, SheetSet, schema_labels
from pnp.sheets.inputs import Inputs
from pnp.sheets.lookups import NOTHING, Looked, compose, looked_files, looked_records, merged, parse
from pnp.sheets.templates import CardHook, Scope, Templates, humanize, record_id, record_scope, word_key

if TYPE_CHECKING:  # drawing (reportlab) is imported only to draw: pnp check plans without it
    from pnp.drawing.render import Icon
    from pnp.project.loaded import LoadedProject
    from pnp.sheets.blocks import Drawer
    from pnp.sheets.page import Where

MAX_OUTPUTS = 10_000


@dataclass(frozen=True, slots=True)
class SheetResult:
    """One output file: where, whether it was (re)written, and the located problems met."""

    path: Path
    written: bool
    problems: tuple[Problem, ...] = ()
    title: str = ""  # as printed on its first page (the read-me page lists the file by it)
    subtitle: str = ""


@dataclass(frozen=True, slots=True)
class Output:
    """One PDF to make: the sheet, the scope its templates read, the records it depends on."""

    path: Path
    relative: str  # the path inside the output folder (part of the digest)
    sheet: SheetFile
    scope: Scope
    records: tuple[dict[str, Any], ...]
    title: str
    footer: str
    looked: Looked = NOTHING  # what its title and footer looked up (pnp.sheets.lookups)


def paper_size(paper: str) -> tuple[float, float]:
    """'a4' or 'letter' (and whatever else `pnp build` accepts: a3, legal, 210x297mm)."""
    try:
        width, height = parse_paper(paper)
    except Exception as err:  # ImpositionError: its message says what is accepted
        raise ValueError(str(err)) from None
    return float(width), float(height)


def generic_sheet(kind: str, title: str, word: Callable[[str, str], str] = lambda _c, text: text) -> SheetFile:
    """Every record of a kind, every field, references by name: for a kind with no sheet file.
    `word`: its title and subtitle in a language (pnp.translation.sheetwords; they are templates, so escaped)."""
    subtitle = generic_subtitle(title)
    data: dict[str, Any] = {
        "document": "collection",
        "kinds": [kind],
        "output": "{game}/sheets/" + kind + ".pdf",
        "title": _literal(word(f"pnp:{kind}/title", title)),
        "subtitle": _literal(word(f"pnp:{kind}/subtitle", subtitle)),
        "blocks": [
            {"type": "repeat", "over": "records", "as": "item", "blocks": [
                {"type": "heading", "level": 3, "text": "{{ item.name or item.id }}"},
                {"type": "fields", "record": "item"},
            ]},
        ],
    }  # fmt: skip
    source = RecordFile(Path(f"<generic sheet for {kind}>"), f"<generic sheet for {kind}>", b"", [data], False)
    return SheetFile(f"generic-{kind}", source, data)


def generic_subtitle(title: str) -> str:
    """A generic sheet's subtitle: its kind by the schema's title (the key only when there is none)."""
    return f"Every record of {title} (generic reference sheet: add a sheet file to lay it out)"


def _literal(text: str) -> str:
    """Text shown as written by a template (a translator's braces are not template code)."""
    return text if "{{" not in text and "{%" not in text and "{#" not in text else "{% raw %}" + text + "{% endraw %}"


class Planner:
    """Turns sheet files into outputs: which records, which paths, which titles."""

    def __init__(self, loaded: LoadedProject, sheets: SheetSet, out_dir: Path, drawer: Templates) -> None:
        self.loaded = loaded
        self.sheets = sheets
        self.out_dir = out_dir
        self.drawer = drawer
        self.problems: list[tuple[SheetFile, Finding]] = []

    def records(self, sheet: SheetFile, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
        found = [r for kind in kinds for _f, _i, r in self.loaded.records(kind) if isinstance(r, dict)]
        data = sheet.data
        if "where" in data:
            found = [r for r in found if self.drawer.expr(sheet, "/where", data["where"], record_scope(r, "", sheet))]
        sort = data.get("sort")
        keys = [sort] if isinstance(sort, str) else list(sort or [])
        for key in reversed(keys):
            name, descending = key.lstrip("-"), key.startswith("-")
            present = [r for r in found if r.get(name) is not None]
            present.sort(key=_field_key(name), reverse=descending)
            found = present + [r for r in found if r.get(name) is None]
        return found

    def plan(self, sheet: SheetFile) -> list[Output]:
        data = sheet.data
        kinds = sheet.kinds
        if not all(kind in self.loaded.schemas.kind_uri for kind in kinds):
            return []  # pnp check reports the unknown kind
        project = self.loaded.project
        game = project.game(str(data.get("game") or kinds[0]) + ".")
        found = self.records(sheet, kinds)
        outputs: list[Output] = []
        if data["document"] == "collection":
            if not found:
                return []
            scope: Scope = {"records": found, "game": game.title, "__sheet__": sheet.name}
            outputs.append(self.output(sheet, scope, found, {"game": game.folder, "name": sheet.name, "id": sheet.name,
                                                              "kind": kinds[0]}, game.title))  # fmt: skip
            return outputs
        for record in found[:MAX_OUTPUTS]:
            scope = record_scope(record, game.title, sheet)
            listed: list[dict[str, Any]] = []
            if data["document"] == "record-with-list":
                ids = record.get(str(data["list"])) or []
                listed = [r for r in (self.drawer.lookup(i) for i in ids if isinstance(i, str)) if r is not None]
                scope["items"] = listed
            outputs.append(
                self.output(sheet, scope, [record, *listed],
                            {"game": game.folder, "id": str(record.get("id")), "name": sheet.name,
                             "kind": str(record.get("kind"))}, game.title)
            )  # fmt: skip
        return outputs

    def output(
        self, sheet: SheetFile, scope: Scope, records: list[dict[str, Any]], names: dict[str, str], game: str
    ) -> Output:
        template = str(sheet.data.get("output", "{game}/sheets/{name}/{id}.pdf"))
        relative = re.sub(r"\{(game|id|kind|name)\}", lambda m: names[m.group(1)], template)
        path = (self.out_dir / relative).resolve()
        if not path.is_relative_to(self.out_dir.resolve()) or ".." in Path(relative).parts:
            relative = f"sheets/{sheet.name}-{names['id']}.pdf"
            path = self.out_dir / relative
            message = f"output {template!r} leads outside the output folder; written to {path.name} instead"
            self.problems.append((sheet, Finding("sheet-error", message, "/output")))
        self.drawer.track()
        title = self.drawer.text(sheet, "/title", sheet.data["title"], scope)
        footer = self.drawer.text(sheet, "/footer", sheet.data["footer"], scope) if "footer" in sheet.data else game
        looked = self.drawer.tracked()
        # what the templates look up besides (records_of, ref on an id they make) is in the key too:
        # noted when the output is laid out (pnp.sheets.lookups, output_key)
        depends = tuple(_dependencies(self.drawer.lookup, records))
        return Output(path, Path(relative).as_posix(), sheet, scope, depends, title, footer, looked)


def output_key(inputs: Inputs, drawer: Templates, output: Output, looked: Looked, extra: str = "") -> str:
    """An output's key: the digest of its inputs, the records `looked` gives now among them (and
    the records the cards it drew name: a card's face may show them), then `looked` itself."""
    found = looked_records(looked, drawer.lookup, drawer.records_of)
    drawn = [e["record"] for e in found if "drawn" in e and isinstance(e["record"], dict)]
    named = _dependencies(drawer.lookup, drawn)
    files, missing = looked_files(looked, inputs.loaded.project.root)
    kinds = tuple(sorted({str(record.get("kind")) for record in drawn}))
    digest = inputs.digest(output.sheet, output.relative, (*output.records, *found, *named), files, missing, kinds)
    return compose(digest + extra, looked)


def _field_key(name: str) -> Callable[[dict[str, Any]], tuple[int, Any]]:
    return lambda record: _sort_key(record.get(name))


def _sort_key(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, (int, float)):
        return (0, value)
    return (1, str(value))


def _dependencies(lookup: Callable[[str], dict[str, Any] | None], records: list[dict[str, Any]]) -> list[Any]:
    """The records and every record any of their string values names (names, codes drawn from them)."""
    out: list[Any] = []
    seen: set[str] = set()

    def strings(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [s for v in node.values() for s in strings(v)]
        if isinstance(node, list):
            return [s for v in node for s in strings(v)]
        return []

    for record in records:
        rid = str(record.get("id"))
        if rid not in seen:
            seen.add(rid)
            out.append(record)
        for value in strings(record):
            if value in seen:
                continue
            target = lookup(value)
            if target is not None:
                seen.add(value)
                out.append(target)
    return out


def _icons(loaded: LoadedProject) -> dict[str, Icon]:
    from pnp.drawing.render import make_icons

    return make_icons(loaded.icons)


def make_templates(loaded: LoadedProject, sheets: SheetSet, word: Callable[[str, str], str] | None = None) -> Templates:
    """The sheets' templates alone: enough to plan every output and compute its digest."""
    return Templates(sheets=sheets, **_template_parts(loaded, sheets, word))


def make_drawer(
    loaded: LoadedProject,
    sheets: SheetSet,
    pagesize: tuple[float, float],
    hook: CardHook | None,
    word: Callable[[str, str], str] | None = None,
) -> Drawer:
    from pnp.sheets.blocks import Drawer
    from pnp.sheets.page import MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, make_styles

    schemas = loaded.schemas
    parts = _template_parts(loaded, sheets, word)

    def refs(record: dict[str, Any]) -> set[str]:
        kind = record.get("kind")
        if not isinstance(kind, str) or kind not in schemas.kind_uri:
            return set()
        return {p for site in schemas.sites(kind) if site.what == "ref" for p, _v in values_at(record, site.path, "")}

    icons = _icons(loaded)
    return Drawer(
        sheets=sheets, styles=make_styles(), width=pagesize[0] - 2 * MARGIN_X,
        height=pagesize[1] - MARGIN_TOP - MARGIN_BOTTOM, icons=icons,
        root=loaded.project.root.resolve(), draw_card=hook, refs=refs, **parts,
    )  # fmt: skip


def _template_parts(loaded: LoadedProject, sheets: SheetSet, word: Callable[[str, str], str] | None) -> dict[str, Any]:
    """What the templates read: records by id, labels (schema, sheet file, language), records by kind."""
    schemas = loaded.schemas
    lookup = loaded.lookup

    from_schema: dict[str, dict[str, dict[str, str]]] = {}

    def labels(where: str, field_name: str) -> dict[str, str]:
        sheet_name, kind = where.split("\n", 1)
        out: dict[str, str] = {}
        if kind in schemas.kind_uri:
            if kind not in from_schema:
                from_schema[kind] = schema_labels(schemas, kind)
                if word is not None:  # a language build: labels from the catalog (pnp.translation.sheetwords)
                    from_schema[kind] = {
                        name: {v: word(f"label:{kind}/{word_key(name)}/{word_key(v)}", t) for v, t in by_value.items()}
                        for name, by_value in from_schema[kind].items()
                    }
            out.update(from_schema[kind].get(field_name, {}))
        sheet = sheets.sheets.get(sheet_name)
        if sheet is not None:
            out.update((sheet.data.get("labels") or {}).get(field_name, {}))
        return out

    def records_of(kind: str) -> list[dict[str, Any]]:
        return [r for _f, _i, r in loaded.records(str(kind))] if kind in schemas.kind_uri else []

    def ref_sites(kind: str) -> list[tuple[tuple[str, ...], str]]:
        return (
            [(site.path, site.by) for site in schemas.sites(kind) if site.what == "ref"]
            if kind in schemas.kind_uri
            else []
        )

    with_refs = tuple(kind for kind in sorted(schemas.kind_uri) if ref_sites(kind))
    parts: dict[str, Any] = {
        "lookup": lookup, "labels": labels, "records_of": records_of, "ref_sites": ref_sites, "kinds_with_refs": with_refs,
    }  # fmt: skip
    if word is not None:  # a language build (pnp.translation.sheetwords)
        parts["word"] = word
    return parts


def plan_all(loaded: LoadedProject, sheets: SheetSet, out_dir: Path, drawer: Templates) -> tuple[list[Output], Planner]:
    """Outputs of every sheet file, then a generic sheet for each x-card false kind no sheet covers."""
    planner = Planner(loaded, sheets, out_dir, drawer)
    outputs: list[Output] = []
    covered: set[str] = set()
    for sheet in sheets.sheets.values():
        covered.update(sheet.kinds)
        if not sheet.data.get("part"):
            outputs.extend(planner.plan(sheet))
    for kind in uncovered_kinds(loaded, covered):
        title = str(loaded.schemas.docs[loaded.schemas.kind_uri[kind]].get("title") or kind)
        generic = generic_sheet(kind, title, drawer.word)
        sheets.sheets[generic.name] = generic
        outputs.extend(planner.plan(generic))
    return outputs, planner


def uncovered_kinds(loaded: LoadedProject, covered: set[str]) -> list[str]:
    """Kinds printed on sheets ("x-card": false), with records, that no sheet file lists."""
    schemas = loaded.schemas
    return [
        kind
        for kind in sorted(loaded.index.files_by_kind)
        if kind in schemas.kind_uri and not schemas.is_card(kind) and kind not in covered
    ]


def build_one(drawer: Drawer, output: Output, pagesize: tuple[float, float]) -> bytes | None:
    """Lay out one output; None when a block is taller than a page (a problem is recorded)."""
    from pnp.sheets.page import Mark, TooTall, render_pdf

    sheet = output.sheet
    drawer.sections = 0
    drawer.problems.clear()
    header = drawer.text(sheet, "/header", sheet.data["header"], output.scope) if "header" in sheet.data else None
    if sheet.data.get("print_title", True):
        subtitle = drawer.text(sheet, "/subtitle", sheet.data.get("subtitle", ""), output.scope)
        start = drawer.section(output.title, subtitle, False, _where(output), True)
        if header:
            start[0].header = header
    else:  # the sections print their own titles; the first starts on page 1
        start = [Mark(header=header or output.title, where=_where(output))]
        drawer.fresh = True
    flow = start + drawer.blocks(sheet, sheet.data["blocks"], "/blocks", output.scope)
    if any(f.code == "text-overflow" for _s, f in drawer.problems):
        return None
    found = list(drawer.problems)
    try:
        data = render_pdf(
            flow, pagesize, output.title, output.footer,
            per_section=sheet.data.get("numbering", "sheet") == "sheet", toc=drawer.toc,
        )  # fmt: skip
    except TooTall as err:
        where = err.where
        rid = where.rid if where else record_id(output.scope)
        drawer.problems[:] = found
        drawer.problems.append(
            (sheet, Finding("text-overflow", f"record {rid!r}: a block of this sheet is taller than a page and "
                            "cannot be split; shorten the text", where.pointer if where else "/blocks"))
        )  # fmt: skip
        return None
    finally:
        drawer.toc = False
    return data


def _subtitle(drawer: Templates, output: Output) -> str:
    """The subtitle printed under the output's title ("" for none); a template that fails is
    reported where the sheet is drawn, not here."""
    source = output.sheet.data.get("subtitle")
    if not isinstance(source, str) or not source or not output.sheet.data.get("print_title", True):
        return ""
    kept = list(drawer.problems)
    text = drawer.text(output.sheet, "/subtitle", source, output.scope)
    drawer.problems[:] = kept
    return text


def _where(output: Output) -> Where:
    from pnp.sheets.page import Where

    return Where("/title", record_id(output.scope))


def build_sheets(
    loaded: LoadedProject, out_dir: Path, paper: str, manifest: Manifest, **options: Any
) -> list[SheetResult]:
    """Build every sheet file's PDFs (and generic sheets) into `out_dir`; see the module docstring.
    `options`: those of `lay_out_sheets` (force, draw_card, texts, word, words_key, check_cache);
    the outputs are laid out, then written (`write_sheets`)."""
    laid = lay_out_sheets(loaded, out_dir, paper, manifest, **options)
    return write_sheets(laid, manifest, loaded.project.root)


LAID_OUT: collections.Counter[str] = collections.Counter()  # outputs laid out in this process, by sheet file (tests)


@dataclass(frozen=True, slots=True)
class LaidOut:
    """One output file laid out (nothing written yet): its PDF (None: up to date, or not made)
    and what laying it out found."""

    result: SheetResult  # `written`: to be written now (its data is here)
    key: str
    data: bytes | None = None
    cache: Path | None = None  # pnp check's findings file for it, and what goes in it (by record file)
    found: tuple[tuple[Path, Finding], ...] = ()


def lay_out_sheets(
    loaded: LoadedProject,
    out_dir: Path,
    paper: str,
    manifest: Manifest,
    force: bool = False,
    draw_card: CardHook | None = None,
    texts: Callable[[SheetSet], None] | None = None,
    word: Callable[[str, str], str] | None = None,
    words_key: str = "",
    check_cache: Path | None = None,
) -> list[LaidOut]:
    """Every output laid out into bytes, which the caller writes with `write_sheets` (pnp.outputs.build
    lays them out in a child while it draws the kinds). Reads the manifest, writes nothing.
    `texts` rewrites the sheets' fixed strings before anything is planned (a translation);
    `word` gives the words from no sheet file (enum labels, pnp's headings) in that language, and
    `words_key` (the catalog's digest) is part of every output's digest, so a new word rebuilds.
    `check_cache`: `pnp check`'s folder of sheet findings (render_findings), filled with what each
    output laid out here found, so that a check after the build lays out nothing again."""
    pagesize = paper_size(paper)  # an unknown paper is refused before anything is written
    if not loaded.sheets.sheets and not uncovered_kinds(loaded, set()):
        return []  # nothing to lay out: reportlab's platypus is not even imported
    fonts.register_bundled()
    fonts.pdf_settings()
    sheets = loaded.sheets
    if texts is not None:  # a translation rewrites the texts: a copy of its own
        sheets = read_sheet_files(loaded.project)
        texts(sheets)
    drawer = make_drawer(loaded, sheets, pagesize, draw_card, word)
    inputs = Inputs(loaded, sheets, paper)
    outputs, planner = plan_all(loaded, sheets, out_dir, drawer)
    laid: list[LaidOut] = []
    setup_problems = [_locate(loaded, s, f) for s, f in planner.problems]
    for output in outputs:
        named = {"title": output.title, "subtitle": _subtitle(drawer, output)}
        stored = parse(manifest.stored(output.path))  # what it looked up when laid out (None: not known)
        if not force and stored is not None:
            key = output_key(inputs, drawer, output, merged(output.looked, stored), words_key)
            if manifest.fresh(output.path, key):
                laid.append(LaidOut(SheetResult(output.path, False, (), **named), key))
                continue
        drawer.problems.clear()
        drawer.track()
        data = build_one(drawer, output, pagesize)
        key = output_key(inputs, drawer, output, merged(output.looked, drawer.tracked()), words_key)
        LAID_OUT[output.sheet.name] += 1
        cache = None if check_cache is None else check_cache / _cache_name(output.relative)
        placed = (place(loaded, s, f) for s, f in drawer.problems) if cache is not None else ()
        found = tuple((record_file.path, finding) for record_file, finding in placed)
        problems = tuple(dict.fromkeys(_locate(loaded, s, f) for s, f in drawer.problems))
        if data is None or any(p.severity == "error" for p in problems):  # the previous file stays
            laid.append(LaidOut(SheetResult(output.path, False, problems, **named), key, None, cache, found))
            continue
        laid.append(LaidOut(SheetResult(output.path, True, problems, **named), key, data, cache, found))
    if setup_problems and laid:
        first = laid[0]
        result = first.result
        with_setup = SheetResult(
            result.path, result.written, (*result.problems, *setup_problems), result.title, result.subtitle
        )
        laid[0] = LaidOut(with_setup, first.key, first.data, first.cache, first.found)
    return laid


def write_sheets(laid: list[LaidOut], manifest: Manifest, root: Path) -> list[SheetResult]:
    """Write what `lay_out_sheets` laid out (and pnp check's findings of it); the results."""
    from pnp.drawing.findings import write_found

    for item in laid:
        if item.cache is not None:
            write_found(item.cache, item.key, list(item.found), root)
        if item.result.written and item.data is not None:
            atomic_write(item.result.path, lambda handle, data=item.data: handle.write(data))  # type: ignore[misc]
            if not item.result.problems:
                manifest.record(item.result.path, item.key)
    manifest.save()
    return [item.result for item in laid]


def render_findings(
    loaded: LoadedProject,
    paper: str,
    draw_card: CardHook | None = None,
    cache: Path | None = None,
    texts: Callable[[SheetSet], None] | None = None,
    word: Callable[[str, str], str] | None = None,
    words_key: str = "",
) -> list[tuple[RecordFile, Finding]]:
    """`pnp check`: lay out every sheet in memory; what `pnp build` would report.

    With a `cache` folder, what an output's layout found is kept there under its digest (the one
    `pnp build` skips by), and reused while that digest holds. Outputs are planned and digested
    with the templates alone: reportlab is imported only when some output must be laid out.
    """
    from pnp.drawing.findings import read_cache_keyed, write_cache

    pagesize = paper_size(paper)
    project = loaded.project
    sheets = loaded.sheets
    if texts is not None:  # a language (as build_sheets): its own copy of the sheet files
        sheets = read_sheet_files(project)
        texts(sheets)
    templates = make_templates(loaded, sheets, word)
    outputs, planner = plan_all(loaded, sheets, Path("/nonexistent-output"), templates)
    drawer: Drawer | None = None
    inputs = Inputs(loaded, sheets, paper)
    files = {f.path: f for f in loaded.files}
    files.update({s.source.path: s.source for s in sheets.sheets.values()})
    root = project.root
    found = [place(loaded, s, f) for s, f in planner.problems]
    for output in outputs:
        name = _cache_name(output.relative)
        stored = read_cache_keyed(cache / name, files, root) if cache is not None else None
        looked = None if stored is None else parse(stored[0])  # what it looked up when laid out
        cached = None
        key = "" if looked is None else output_key(inputs, templates, output, merged(output.looked, looked), words_key)
        if stored is not None and stored[0] == key:
            cached = stored[1]
        if cached is None:
            if drawer is None:  # the first output not in the cache: now draw
                fonts.register_bundled()
                fonts.pdf_settings()
                drawer = make_drawer(loaded, sheets, pagesize, draw_card, word)
            drawer.problems.clear()
            drawer.track()
            build_one(drawer, output, pagesize)
            laid_looked = drawer.tracked()
            LAID_OUT[output.sheet.name] += 1
            cached = [place(loaded, s, f) for s, f in drawer.problems]
            if cache is not None:
                key = output_key(inputs, templates, output, merged(output.looked, laid_looked), words_key)
                write_cache(cache / name, key, cached, root)
        found.extend(cached)
    unique: dict[tuple[int, Finding], tuple[RecordFile, Finding]] = {(id(f), x): (f, x) for f, x in found}
    return list(unique.values())


def _cache_name(relative: str) -> str:
    """The file of one output's findings in `pnp check`'s sheet cache."""
    return hashlib.sha256(relative.encode()).hexdigest()[:24] + ".json"


def place(loaded: LoadedProject, sheet: SheetFile, finding: Finding) -> tuple[RecordFile, Finding]:
    """Where a problem is to be fixed: the sheet file, or for a generic sheet (no file) the record
    it names (else the first record of the kind), in its record file."""
    if sheet.source.raw:
        return sheet.source, finding
    named = re.match(r"record '([^']+)'", finding.message)
    entry = loaded.index.first.get(named.group(1)) if named else None
    if entry is not None:
        return entry[1], replace(finding, pointer=entry[1].pointer(entry[2]))
    record_file = loaded.index.files_by_kind[sheet.kinds[0]][0]
    return record_file, replace(finding, pointer=record_file.pointer(0))


def _locate(loaded: LoadedProject, sheet: SheetFile, finding: Finding) -> Problem:
    record_file, placed = place(loaded, sheet, finding)
    return record_file.locate(placed)


__all__ = ["SheetResult", "build_sheets", "humanize", "paper_size"]
