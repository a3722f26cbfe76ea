"""The catalog files, translations/<lang>.po: read into entries, and written from source units.

Babel reads and writes the gettext format; this module turns a file into a `CatalogFile` whose
entries know the offset of their msgstr line (so every problem found in a catalog is located),
and turns source units plus an old catalog into the new one `pnp translate extract` and
`pnp translate import` write: translations kept, fuzzy where the source changed, byte-identical
for the same content (fixed dates, no wrapping).
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from pnp.project.config import Project
from pnp.project.records import RecordFile
from pnp.translation.units import (
    FIXED_DATE,
    KIND_CONTEXT,
    NOT_RECORD_CONTEXTS,
    CatalogFile,
    Entry,
    Unit,
    catalog_path,
    entry_key,
)

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message


def read_catalog(project: Project, lang: str) -> CatalogFile:
    """Read translations/<lang>.po; a problem reading it becomes `error` (at the line Babel names)."""
    path = catalog_path(project, lang)
    display = project.display(path)
    empty = CatalogFile(lang, path, RecordFile(path, display, b"", [], False), exists=False)
    if not path.exists() and not path.is_symlink():
        return empty
    if not path.resolve().is_relative_to(project.root) or not path.is_file():
        empty.error = "not a regular file inside the project"
        return empty
    if path.stat().st_size > project.max_file_bytes:
        empty.error = f"over the {project.max_file_bytes // 1048576} MB limit (max-file-mb in pnp.toml)"
        return empty
    from pnp.core.paths import RefusedFile, read_regular

    try:  # what was checked above may have changed since: read it as a regular file, bounded
        raw = read_regular(path, project.max_file_bytes, project.root)
    except RefusedFile as err:
        empty.error = err.message
        return empty
    found = CatalogFile(lang, path, RecordFile(path, display, raw, [], False))
    text = found.file.text
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    try:
        raw.decode("utf-8")
        found.catalog = _parse_po(raw)
    except UnicodeDecodeError as err:
        found.error = f"not UTF-8 (byte {err.start}); save the catalog as UTF-8"
        return found
    except Exception as err:  # noqa: BLE001 - Babel raises many kinds; each is the file's fault
        line = getattr(err, "lineno", None)
        if isinstance(line, int) and 0 <= line < len(starts):
            found.error_offset = starts[line]
            reason = re.sub(r" on \d+$", "", str(err.args[0]) if err.args else "")
            if reason.startswith("Unknown or misformatted keyword"):
                reason = f"{getattr(err, 'line', '')!r} is no msgctxt, msgid or msgstr line"
            found.error = f"not a gettext catalog here: {reason}"
        else:
            found.error = f"not a readable gettext catalog: {err}"
        return found
    lines = text.split("\n")
    for message in found.catalog:
        if not message.id or not isinstance(message.id, str):
            continue
        line = max(0, (message.lineno or 1) - 1)
        while line < len(lines) - 1 and not lines[line].startswith("msgstr"):
            line += 1
        string = message.string if isinstance(message.string, str) else ""
        places = tuple((str(f), int(n)) for f, n in message.locations if str(n).isdigit())
        entry = Entry(
            message.context or "",
            message.id,
            string,
            "fuzzy" in message.flags,
            starts[min(line, len(starts) - 1)],
            places,
        )
        found.entries.setdefault(entry.key, entry)
    return found


def _parse_po(raw: bytes) -> Catalog:
    from babel.messages.pofile import read_po

    return read_po(io.BytesIO(raw), abort_invalid=True, charset="utf-8")


def _new_catalog(project: Project, lang: str | None, old: Catalog | None) -> Catalog:
    from babel.messages.catalog import Catalog

    language = lang or "Template"
    catalog = Catalog(
        locale=lang or None,
        project=project.name,
        header_comment=f"# {language} texts of {project.name}. Update with: pnp translate extract",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        fuzzy=False,
    )
    if old is not None:
        catalog.last_translator = old.last_translator
        catalog.language_team = old.language_team
    return catalog


def merged_catalog(
    project: Project, lang: str, units: dict[str, Unit], old: Catalog | None, overrides: dict[str, tuple[str, bool]]
) -> Catalog:
    """The catalog for `units`, keeping `old` translations (fuzzy where the source changed) and
    taking `overrides` (key -> text, fuzzy) over them; entries no longer in the source become obsolete.

    A text several records of a kind share is one entry (`kind:<kind>`): when it was translated per
    record, the first translation becomes the shared one. A record field's own entry for a shared
    text is kept as an override while its translation differs from the shared one."""
    catalog = _new_catalog(project, lang, old)
    previous: dict[str, Message] = {}
    if old is not None:
        for message in old:
            if message.id and isinstance(message.id, str):
                previous.setdefault(entry_key(message.context or "", message.id), message)
    shared_from = _shared_sources(units, previous)
    before = dict(previous)
    for key, unit in units.items():
        prior: Message | None = previous.pop(key, None)
        if unit.override_of and key not in overrides:
            shared = _string(before.get(unit.override_of)) or _string(shared_from.get(unit.override_of))
            if not _string(prior) or _string(prior) == shared or (prior is not None and prior.id != unit.source):
                continue  # drawn with the shared entry (an override of this very text is kept while it differs)
        if prior is None and key in shared_from:
            prior = shared_from[key]
        string = _string(prior)
        flags = {f for f in (prior.flags if prior is not None else ()) if f == "fuzzy"}
        previous_id: Any = ()
        if prior is not None and prior.id != unit.source:
            flags.add("fuzzy")
            previous_id = prior.id
        if key in overrides:
            string, fuzzy = overrides[key]
            flags = {"fuzzy"} if fuzzy else set()
        if not string:
            flags.discard("fuzzy")
        catalog.add(
            unit.source,
            string,
            locations=list(unit.locations or (unit.location,)),
            flags=sorted(flags),
            user_comments=list(prior.user_comments) if prior is not None else [],
            previous_id=previous_id,
            context=unit.context,
        )
    taken = {id(m) for m in shared_from.values()}
    for message in previous.values():
        if message.string and id(message) not in taken:
            catalog.obsolete[catalog._key_for(message.id, message.context)] = message
    if old is not None:
        for obsolete_key, message in old.obsolete.items():
            if entry_key(message.context or "", str(message.id)) not in units:
                catalog.obsolete.setdefault(obsolete_key, message)
    return catalog


def _string(message: Message | None) -> str:
    return message.string if message is not None and isinstance(message.string, str) else ""


def _shared_sources(units: dict[str, Unit], previous: dict[str, Message]) -> dict[str, Message]:
    """Translations to start an entry from when a text moved between one record's entry and its
    kind's shared entry (a second card got the same sentence, or all but one lost it)."""
    by_text: dict[str, Message] = {}
    for message in previous.values():
        context = message.context or ""
        if _string(message) and not message.fuzzy and isinstance(message.id, str) and context.startswith(KIND_CONTEXT):
            by_text.setdefault(message.id, message)
    out: dict[str, Message] = {}
    for key, unit in units.items():
        if unit.context.startswith(KIND_CONTEXT) and key not in previous:  # edited on every record
            places = set(unit.locations)
            same = [
                m for k, m in previous.items()
                if k not in units and m.context == unit.context and {(f, int(n)) for f, n in m.locations} == places
            ]  # fmt: skip
            if len(same) == 1:
                out[key] = same[0]
        if unit.override_of and unit.override_of not in previous:
            prior = previous.get(key)
            if prior is not None and _string(prior) and prior.id == unit.source and not prior.fuzzy:
                out.setdefault(unit.override_of, prior)  # per-record translations: the first is shared
        elif unit.source in by_text and key not in previous and not unit.context.startswith(NOT_RECORD_CONTEXTS):
            out[key] = by_text[unit.source]  # a once-shared text now on one record
    return out


def po_bytes(catalog: Catalog) -> bytes:
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, include_previous=True, sort_output=False)
    return buffer.getvalue()
