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
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pnp.core.markup import drawn_text, markup_signature
from pnp.core.problems import Finding
from pnp.project.config import Project
from pnp.translation.catalogs import read_catalog
from pnp.translation.localize import Fallbacks, localized_as
from pnp.translation.sources import source_units
from pnp.translation.units import (
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
)

if TYPE_CHECKING:
    from pnp.project.layout import LayoutSet
    from pnp.project.loaded import LoadedProject


def translation_findings(loaded: LoadedProject, render: bool = False) -> list[Located]:
    """`pnp check`: every catalog's problems (and, with `render`, text that overflows in its language)."""
    project = loaded.project
    layouts = loaded.layouts
    units = source_units(loaded, layouts)
    found: list[Located] = []
    for lang in target_languages(project):
        catalog = read_catalog(project, lang)
        problems = list(check_catalog(loaded, catalog, units))
        found.extend(problems)
        if render and catalog.catalog is not None:
            found.extend(overflow_findings(loaded, layouts, catalog, units))
    return found


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
    for key, unit in units.items():
        entry = entries.get(key)
        if entry is None:
            yield (
                where,
                Finding(
                    "missing-translation",
                    f"{lang}: no entry for {unit.context} ({_show(unit.source)}, {unit.location[0]}:{unit.location[1]}); "
                    "run 'pnp translate extract' to add it",
                    offset=0,
                ),
            )
            continue
        if not entry.msgstr:
            yield (
                where,
                Finding("missing-translation", f"{lang}: {unit.context} is not translated yet", offset=entry.offset),
            )
            continue
        if entry.msgid != unit.source or entry.fuzzy:
            was = (
                f"was {_show(entry.msgid)}, now " if entry.msgid != unit.source else "marked fuzzy; the source is now "
            )
            yield (
                where,
                Finding(
                    "stale-translation",
                    f"{lang}: the source of {unit.context} changed since it was translated ({was}{_show(unit.source)}); "
                    "update the msgstr and remove the fuzzy flag ('pnp translate extract' updates the msgid)",
                    offset=entry.offset,
                ),
            )
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
        missing = _undrawable(loaded.project, unit, entry.msgstr)
        if missing:
            chars = ", ".join(f"{c!r} U+{ord(c):04X}" for c in missing)
            font, _ = missing[next(iter(missing))]
            yield (
                where,
                Finding(
                    "undrawable-character",
                    f"{lang}: {unit.context}: {font} cannot draw {chars}; it would print as empty boxes: use a font "
                    "with these characters in the layout (right-to-left and CJK text are not supported)",
                    offset=entry.offset,
                ),
            )
    for key, entry in entries.items():
        if key not in units:
            yield (
                where,
                Finding("unknown-translation", f"{lang}: {_unknown(loaded, entry, units)}", offset=entry.offset),
            )


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
        name, _, pointer = entry.context[len(SHEET_CONTEXT) :].partition("/")
        return f"sheet {name!r} has no fixed text at /{pointer} (msgctxt {entry.context!r}); {fix}"
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
