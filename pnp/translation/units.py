"""What is translatable, named once for the whole translation package: catalog contexts, the
source units (one text, where it is, the fonts it is drawn in) and the languages of a project."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from pnp.core.problems import Finding
from pnp.project.config import Project
from pnp.project.records import RecordFile

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

    from pnp.project.loaded import LoadedProject

FOLDER = "translations"
TEMPLATE = "messages.pot"
LAYOUT_CONTEXT = "layout:"
SHEET_CONTEXT = "sheet:"  # sheet:<sheet name>/<pointer>: a heading or label written in a sheet file
LABEL_CONTEXT = "label:"  # label:<kind>/<field>/<value>: an enum value's printed label from the kind's schema
OWN_CONTEXT = "pnp:"  # pnp:<kind>/...: the words pnp itself writes on sheets (generic title, field headings)
KIND_CONTEXT = "kind:"  # kind:<kind>: a text several records of the kind share, translated once
NOT_RECORD_CONTEXTS = (LAYOUT_CONTEXT, SHEET_CONTEXT, LABEL_CONTEXT, OWN_CONTEXT, KIND_CONTEXT)
SHEET_CODE_KEYS = frozenset({"src", "at", "macros"})  # sheet templates that are never shown as text
FIXED_DATE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)  # catalogs are byte-identical per content
SHEET_COLUMNS = ("context", "source", "translation", "status", "location")
LETTER = re.compile(r"[^\W\d_]")

Located = tuple[RecordFile, Finding]


@dataclass(frozen=True, slots=True)
class Face:
    """A font a text may be drawn with: `family` is sans, condensed or a .ttf path in the project."""

    family: str = "sans"
    bold: bool = False
    italic: bool = False


@dataclass(frozen=True, slots=True)
class Unit:
    """One translatable source text: its catalog context, the text, where it is, its fonts."""

    context: str
    source: str
    location: tuple[str, int]
    faces: tuple[Face, ...] = (Face(),)
    locations: tuple[tuple[str, int], ...] = ()  # a shared text: every place it is (the first is `location`)
    override_of: str = ""  # a record field whose text is shared: the key of the shared entry (kind:<kind>)

    @property
    def key(self) -> str:
        return entry_key(self.context, self.source)


def keyed_by_text(context: str) -> bool:
    """A context that holds many texts (a layout's, a kind's shared texts, a sheet's gettext
    messages `sheet:<name>`): its entries are told apart by their msgid."""
    if context.startswith((LAYOUT_CONTEXT, KIND_CONTEXT)):
        return True
    return context.startswith(SHEET_CONTEXT) and "/" not in context


def entry_key(context: str, msgid: str) -> str:
    """A record field is one entry whatever its text; a layout string is one entry per text."""
    return f"{context}\x04{msgid}" if keyed_by_text(context) else context


def source_language(project: Project) -> str:
    return project.languages[0] if project.languages else "en"


def target_languages(project: Project) -> tuple[str, ...]:
    return project.languages[1:]


def catalog_path(project: Project, lang: str) -> Path:
    return project.root / FOLDER / f"{lang}.po"


def translatable_paths(loaded: LoadedProject, kind: str) -> list[tuple[str, ...]]:
    """Paths (with '*' for any item) of a kind's translatable fields, from its schema."""
    sites = loaded.schemas.sites(kind)
    excluded = {s.path for s in sites if s.what == "no-translate"}
    paths = [s.path for s in sites if s.what == "text"]
    if "name" in loaded.schemas.properties(kind):
        paths.append(("name",))
    paths += [s.path for s in sites if s.what == "translate"]
    return [p for p in dict.fromkeys(paths) if p not in excluded]


def is_static(value: Any) -> TypeGuard[str]:
    """A layout string drawn as written (no template) with a word in it: a label to translate."""
    return isinstance(value, str) and "{{" not in value and "{%" not in value and bool(LETTER.search(value))


@dataclass(frozen=True, slots=True)
class Entry:
    """One catalog entry as read, with the offset of its msgstr line for locating problems."""

    context: str
    msgid: str
    msgstr: str
    fuzzy: bool
    offset: int
    locations: tuple[tuple[str, int], ...] = ()  # its `#:` comment: where the source text was

    @property
    def key(self) -> str:
        return entry_key(self.context, self.msgid)


@dataclass(slots=True)
class CatalogFile:
    """A language's catalog: its entries by key, and the file to locate problems in."""

    lang: str
    path: Path
    file: RecordFile
    entries: dict[str, Entry] = field(default_factory=dict)
    catalog: Catalog | None = None
    exists: bool = True
    error: str = ""
    error_offset: int = 0


def with_moved_shared(catalog: CatalogFile, units: dict[str, Unit]) -> CatalogFile:
    """A shared text edited in the source on every record that has it: its entry (same kind, same
    places) is the new text's, stale, as a record field's entry is when its text changes (so
    `pnp check` says what changed and the old translation is drawn until it is updated)."""
    gone = [e for k, e in catalog.entries.items() if e.context.startswith(KIND_CONTEXT) and k not in units]
    for key, unit in units.items() if gone else ():
        if unit.context.startswith(KIND_CONTEXT) and key not in catalog.entries:
            places = set(unit.locations or (unit.location,))
            same = [e for e in gone if e.context == unit.context and set(e.locations) == places]
            if len(same) == 1:
                del catalog.entries[same[0].key]
                catalog.entries[key] = same[0]
                gone.remove(same[0])
    return catalog
