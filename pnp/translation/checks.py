"""What `pnp check` finds in a language's catalog: missing, stale, unknown, mis-marked entries,
characters the fonts cannot draw, and (when drawing) text too long in that language.

Each problem is located at the catalog entry (its msgstr line). Stale and missing entries are
found by comparing the catalog with today's source units; markup by comparing the source's
`{icon}`, `*bold*` and `_italic_` tokens with the translation's; undrawable characters by the
character maps of the fonts each unit is drawn in; overflow by drawing the localized cards.
"""

from __future__ import annotations

import difflib
import io
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.core.markup import drawn_text, markup_signature
from pnp.core.problems import Finding
from pnp.project.config import Project
from pnp.project.loaded import read_sheet_files
from pnp.translation.catalogs import read_catalog
from pnp.translation.localize import Fallbacks, localized_as
from pnp.translation.sheetwords import cause_finding
from pnp.translation.sources import source_units
from pnp.translation.units import (
    KIND_CONTEXT,
    LABEL_CONTEXT,
    LAYOUT_CONTEXT,
    OWN_CONTEXT,
    SHEET_CONTEXT,
    CatalogFile,
    Entry,
    Face,
    Located,
    Unit,
    target_languages,
    with_moved_shared,
)

PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]")  # a `trans` block's placeholder in a gettext message

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject


def translation_findings(
    loaded: LoadedProject,
    render: bool = False,
    sheets: bool = False,
    cache: Path | None = None,
    too_tall: frozenset[tuple[str, str]] = frozenset(),
) -> list[Located]:
    """`pnp check`: every catalog's problems (and, with `render`, text that overflows in its
    language: on the cards, and with `sheets` on the sheets, laid out as `pnp build --lang` does;
    `too_tall`: (sheet file, pointer) of the blocks already too tall in the source language)."""
    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    found: list[Located] = []
    for lang in target_languages(project):
        catalog = with_moved_shared(read_catalog(project, lang), units)
        problems = list(check_catalog(loaded, catalog, units))
        found.extend(problems)
        if render and catalog.catalog is not None:
            found.extend(overflow_findings(loaded, layouts, catalog, units))
            if sheets:
                found.extend(sheet_overflow_findings(loaded, layouts, catalog, units, cache, too_tall))
    return found


def sheet_overflow_findings(
    loaded: LoadedProject,
    layouts: LayoutSet,
    catalog: CatalogFile,
    units: dict[str, Unit],
    cache: Path | None,
    too_tall: frozenset[tuple[str, str]] = frozenset(),
) -> list[Located]:
    """`pnp check`: the sheets laid out in the catalog's language; a block too tall in it, at the
    catalog entry that makes it so (else in the sheet file, the language named). Only what is too
    long, and only where the source fits (`too_tall` is reported once, in the sheet file): a
    template that fails fails in the source language too, where check reports it."""
    from pnp.drawing.miniature import token_drawer
    from pnp.sheets.build import render_findings

    localized = localized_as(loaded, layouts, [], catalog, units, Fallbacks())
    draw, _ = token_drawer(localized.loaded, localized.layouts)
    found = render_findings(
        localized.loaded, loaded.project.paper, draw, cache / catalog.lang if cache is not None else None,
        texts=localized.sheets, word=localized.word, words_key=localized.words_key,
    )  # fmt: skip
    names = {s.source.display: name for name, s in read_sheet_files(loaded.project).sheets.items()}
    out: list[Located] = []
    for where, finding in found:
        if finding.code != "text-overflow":
            continue
        problem = where.locate(finding)
        if (problem.file, problem.pointer) in too_tall:
            continue
        cause = cause_finding(catalog, names[problem.file], problem) if problem.file in names else None
        out.append(
            (catalog.file, cause) if cause else (where, replace(finding, message=f"{catalog.lang}: {finding.message}"))
        )
    return out


def check_catalog(loaded: LoadedProject, catalog: CatalogFile, units: dict[str, Unit]) -> Iterator[Located]:
    """A catalog against today's source texts: what is missing, stale, unknown, mis-marked or undrawable."""
    where = catalog.file
    lang = catalog.lang
    if catalog.error:
        yield where, Finding("catalog-error", f"{lang}: {catalog.error}", offset=catalog.error_offset)
        return
    if not catalog.exists:
        yield (
            where,
            Finding(
                "missing-translation",
                f"no catalog for language {lang!r} ([build] languages); run 'pnp translate extract' to create it",
                offset=0,
            ),
        )
        return
    entries = catalog.entries
    missing: list[tuple[Unit, Entry | None]] = []
    for key, unit in units.items():
        entry = entries.get(key)
        if entry is None and unit.override_of:
            continue  # drawn with the kind's shared entry; an override is optional
        if entry is None or not entry.msgstr:
            missing.append((unit, entry))
            continue
        if entry.msgid != unit.source or entry.fuzzy:
            change = (
                f": {word_diff(entry.msgid, unit.source)}"
                if entry.msgid != unit.source
                else f" (marked fuzzy; the source is now {_show(unit.source)})"
            )
            yield (
                where,
                Finding(
                    "stale-translation",
                    f"{lang}: the source of {unit.context} changed since it was translated{change}; "
                    "update the msgstr and remove the fuzzy flag ('pnp translate extract' updates the msgid)",
                    offset=entry.offset,
                ),
            )
        yield from _markup_findings(loaded, where, lang, unit, entry)
    yield from _missing_findings(where, lang, missing)
    for key, entry in entries.items():
        if key not in units:
            yield (
                where,
                Finding("unknown-translation", f"{lang}: {_unknown(loaded, entry, units)}", offset=entry.offset),
            )


def _markup_findings(loaded: LoadedProject, where: Any, lang: str, unit: Unit, entry: Entry) -> Iterator[Located]:
    """A translation's markup and placeholders against its source's, and characters its fonts lack."""
    expected, got = markup_signature(unit.source), markup_signature(entry.msgstr)
    if expected != got:
        yield (
            where,
            Finding(
                "translation-markup",
                f"{lang}: {unit.context} has markup {_markup(got)} but the source has {_markup(expected)}; "
                "keep every {icon} token and each *bold* / _italic_ span of the source",
                offset=entry.offset,
            ),
        )
    if "%(" in unit.source or "%(" in entry.msgstr:
        wanted, written = sorted(set(PLACEHOLDER.findall(unit.source))), sorted(set(PLACEHOLDER.findall(entry.msgstr)))
        lone = wanted and "%" in PLACEHOLDER.sub("", entry.msgstr.replace("%%", ""))
        if lone:
            yield (
                where,
                Finding(
                    "translation-markup",
                    f"{lang}: {unit.context} has a % that is no placeholder; write %% for a percent sign "
                    "(the template fills in the %(name)s placeholders)",
                    offset=entry.offset,
                ),
            )
        elif wanted != written:
            yield (
                where,
                Finding(
                    "translation-markup",
                    f"{lang}: {unit.context} has placeholders {_placeholders(written)} but the source has "
                    f"{_placeholders(wanted)}; keep every %(name)s of the source (the template fills them in)",
                    offset=entry.offset,
                ),
            )
    undrawable = _undrawable(loaded.project, unit, entry.msgstr)
    if undrawable:
        chars = ", ".join(f"{c!r} U+{ord(c):04X}" for c in undrawable)
        font, _ = undrawable[next(iter(undrawable))]
        yield (
            where,
            Finding(
                "undrawable-character",
                f"{lang}: {unit.context}: {font} cannot draw {chars}; it would print as empty boxes: use a font "
                "with these characters in the layout (right-to-left and CJK text are not supported)",
                offset=entry.offset,
            ),
        )


def _missing_findings(where: Any, lang: str, missing: list[tuple[Unit, Entry | None]]) -> Iterator[Located]:
    """Texts without a translation: one line each while there is one, else one line for the language
    (at the first untranslated entry), so a half-translated catalog does not flood the report."""
    if len(missing) == 1:
        unit, entry = missing[0]
        if entry is None:
            message = (
                f"{lang}: no entry for {unit.context} ({_show(unit.source)}, {unit.location[0]}:{unit.location[1]}); "
                "run 'pnp translate extract' to add it"
            )
            yield where, Finding("missing-translation", message, offset=0)
        else:
            yield (
                where,
                Finding("missing-translation", f"{lang}: {unit.context} is not translated yet", offset=entry.offset),
            )
        return
    if not missing:
        return
    entries = [e for _, e in missing if e is not None]
    absent = sum(1 for _, e in missing if e is None)
    first = missing[0][0].context if not entries else entries[0].context
    add = f"; {absent} have no entry yet: run 'pnp translate extract'" if absent else ""
    message = (
        f"{lang}: {len(missing)} texts not yet translated into {lang}: run 'pnp translate status' "
        f"(the first: {first}{add})"
    )
    yield where, Finding("missing-translation", message, offset=entries[0].offset if entries else 0)


def word_diff(old: str, new: str, context: int = 3) -> str:
    """What changed between two texts, word by word: `[-removed-]` and `{+added+}`, with up to
    `context` unchanged words around each change and '...' for the rest."""
    a, b = old.split(), new.split()
    if len(a) * len(b) > 250_000:  # a diff of long texts is not worth its time: say both
        return f"was {_show(old)}, now {_show(new)}"
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            words = a[i1:i2]
            head = words if i1 == 0 else words[:context]
            tail = words if i2 == len(a) else words[-context:]
            if i1 == 0 and i2 == len(a):
                parts += words
            elif i1 == 0:
                parts += ["...", *tail] if len(words) > context else words
            elif i2 == len(a):
                parts += [*head, "..."] if len(words) > context else words
            else:
                parts += [*head, "...", *tail] if len(words) > 2 * context else words
            continue
        if i2 > i1:
            parts.append("[-" + _clip(" ".join(a[i1:i2])) + "-]")
        if j2 > j1:
            parts.append("{+" + _clip(" ".join(b[j1:j2])) + "+}")
    return repr(" ".join(parts))


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def overflow_findings(
    loaded: LoadedProject, layouts: LayoutSet, catalog: CatalogFile, units: dict[str, Unit]
) -> list[Located]:
    """`pnp check`: draw the translated cards as `pnp build --lang` does; text that does not fit,
    located at its msgstr (the same relocation the build uses)."""
    from pnp.drawing.findings import render_kind
    from pnp.drawing.impose import SheetSpec, parse_paper

    localized = localized_as(loaded, layouts, [], catalog, units, Fallbacks())
    width, height = parse_paper(loaded.project.paper)
    spec = SheetSpec(width, height, duplex="long")
    found: dict[Finding, Located] = {}  # one problem per entry and element (a label shows on every card)
    for kind in localized.loaded.kinds_to_build((), localized.layouts):
        drawn = render_kind(localized.loaded, localized.layouts.by_kind[kind], kind, spec, io.BytesIO(), kind)
        for where, finding in localized.relocate(drawn, kind):
            if where is catalog.file:
                found.setdefault(finding, (where, finding))
    return list(found.values())


def _unknown(loaded: LoadedProject, entry: Entry, units: dict[str, Unit]) -> str:
    fix = "run 'pnp translate extract' to mark it obsolete, or fix the msgctxt"
    if entry.context.startswith(SHEET_CONTEXT):
        name, slash, pointer = entry.context[len(SHEET_CONTEXT) :].partition("/")
        if not slash:
            return f"sheet {name!r} no longer asks to translate {_show(entry.msgid)} (msgctxt {entry.context!r}); {fix}"
        return f"sheet {name!r} has no fixed text at /{pointer} (msgctxt {entry.context!r}); {fix}"
    if entry.context.startswith(KIND_CONTEXT):
        kind = entry.context[len(KIND_CONTEXT) :]
        return f"no two records of {kind!r} share the text {_show(entry.msgid)} any more; {fix}"
    if entry.context.startswith((LABEL_CONTEXT, OWN_CONTEXT)):
        return f"no kind with records has the sheet word {entry.context!r} in its schema; {fix}"
    if entry.context.startswith(LAYOUT_CONTEXT):
        name = entry.context[len(LAYOUT_CONTEXT) :]
        if not any(u.context == entry.context for u in units.values()):
            return f"no layout {name!r} has text to translate (msgctxt {entry.context!r}); {fix}"
        return f"layout {name!r} no longer shows {_show(entry.msgid)}; {fix}"
    rid, _, pointer = entry.context.partition("/")
    if not rid:
        return f"an entry without a msgctxt ({_show(entry.msgid)}); keep the 'record-id/pointer' or 'layout:NAME' context that extract wrote"
    if rid not in loaded.index.first:
        close = difflib.get_close_matches(rid, sorted(loaded.index.first), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"no record has id {rid!r}{hint} (msgctxt {entry.context!r}); {fix}"
    known = sorted(u.context.partition("/")[2] for u in units.values() if u.context.startswith(rid + "/"))
    return f"record {rid!r} has no translatable text at /{pointer}; it has: /{', /'.join(known)}; {fix}"


def _show(text: str) -> str:
    text = text.replace("\n", "\\n")
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _placeholders(names: list[str]) -> str:
    return " ".join(f"%({name})s" for name in names) if names else "none"


def _markup(signature: list[str]) -> str:
    return " ".join(signature) if signature else "none"


def _font_file(project: Project, face: Face) -> tuple[str, Path]:
    from pnp.drawing.fonts import BUNDLED, FAMILIES, FONT_DIR

    family = FAMILIES.get(face.family)
    if family is None:
        return face.family, project.root / face.family
    name = family.pick(face.bold, face.italic)
    return name, FONT_DIR / BUNDLED[name]


@cache
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    try:
        with TTFont(str(path), lazy=True) as font:
            return frozenset(font.getBestCmap() or {})
    except Exception:  # noqa: BLE001 - a bad font file is reported as bad-asset by the record checks
        return frozenset()


def _undrawable(project: Project, unit: Unit, text: str) -> dict[str, tuple[str, Path]]:
    """Characters of `text` some font that draws it lacks, with that font (markup styles included)."""
    drawn = drawn_text(text)
    faces = list(unit.faces)
    if "*" in text:
        faces += [replace(f, bold=True) for f in unit.faces]
    if "_" in text:
        faces += [replace(f, italic=True) for f in unit.faces]
    missing: dict[str, tuple[str, Path]] = {}
    for face in dict.fromkeys(faces):
        name, path = _font_file(project, face)
        resolved = path.resolve()
        if not resolved.is_relative_to(project.root) and not resolved.is_relative_to(
            _font_file(project, Face())[1].parent
        ):
            continue
        if not resolved.is_file():
            continue
        cmap = _cmap(resolved)
        if not cmap:
            continue
        for char in drawn:
            if not char.isspace() and ord(char) not in cmap:
                missing.setdefault(char, (name, resolved))
    return missing
