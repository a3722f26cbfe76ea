"""A digest per face: everything drawing one record's face reads, so that a change redraws the
faces it touches and nothing else (`pnp check`'s per-face cache, `pnp watch`'s preview images).

A record's faces depend on: pnp's code and the drawing options, its layout (the merged data and
every file of its `extends` chain), layouts/icons.json and the icon images, the layout's static
images and fonts, the record itself, the files it names (its `x-asset` fields and the image
`src` templates rendered for it), and, where the layout's templates show other records through
`ref`, those records (every id among the record's values that names a record). A sheet file,
another kind's layout or an unrelated record changes none of these. Files are hashed by content,
once per (path, size, mtime).
"""

from __future__ import annotations

import hashlib
import os
import re
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pnp.core.filefacts import fact
from pnp.core.paths import RefusedFile, project_files, read_regular
from pnp.project.index import values_at

if TYPE_CHECKING:
    from pnp.project.config import Project
    from pnp.project.layout import Layout
    from pnp.project.loaded import LoadedProject

REF_WORD = re.compile(r"\bref\b")  # where `ref` may be called (ref_use tells how)
PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
FILE_CAP = 256 * 1024 * 1024  # an input file hashed at most this far (pnp.core.output's INPUT_CAP)
Record = dict[str, Any]


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)


def every_record_digest(loaded: LoadedProject) -> bytes:
    """The digest of every record of the project: what a face (or a sheet drawing one) whose
    layout may show any record depends on (`ref_use` "any")."""
    hasher = hashlib.sha256()
    for record_file in loaded.files:
        hasher.update(_dumps(record_file.records))
    return hasher.digest()


class FileDigests:
    """Content digests of files, made once while a file is unchanged (pnp.core.filefacts): a round
    of `pnp watch`, or a check that keeps its facts, hashes only the files that changed since."""

    def __init__(self, root: Path) -> None:
        self.root = root  # a link out of the project is never read (pnp.core.paths)

    def of(self, path: Path) -> str:
        name = str(path)
        try:
            os.stat(name)
        except (OSError, ValueError):
            return "missing"
        return fact(name, f"sha256 {self.root}", lambda: self._digest(name))

    def _digest(self, name: str) -> str:
        try:
            return hashlib.sha256(read_regular(name, FILE_CAP, self.root)).hexdigest()
        except RefusedFile as err:  # why, too: a link out and a pipe in its place are found otherwise
            return f"refused:{err.code}:{err.message}"


class FaceDigests:
    """Digests of the faces of a loaded project's records, per layout and per record."""

    def __init__(self, loaded: LoadedProject, *options: Any, files: FileDigests | None = None) -> None:
        self.loaded = loaded
        self.options = options
        self.files = files or FileDigests(loaded.project.root)
        self._layouts: dict[str, tuple[str, str, list[Any], tuple[tuple[str, ...], ...]]] = {}
        self._all: bytes | None = None
        self._icons: list[Path] | None = None  # layouts/icons.json's images: the same for every layout
        self._records: dict[int, bytes] = {}  # id(record) -> its content digest (the loaded project holds it)
        self._rare: dict[int, bytes] = {}  # id(record) -> its serialised bytes outside printable ASCII, if any
        self._rare_known: set[int] = set()  # id(record): its `_rare` known (digested, or taken with its file's)
        self._keys: dict[tuple[str, str], dict[int, str]] = {}  # (layout, kind) -> id(record) -> record_keys's

    def sharing(self, *options: Any) -> FaceDigests:
        """Digests of the same loaded project under other options (a build's and `pnp check`'s),
        reading each file and the icons' paths, and serialising each record, once for both."""
        other = FaceDigests(self.loaded, *options, files=self.files)
        other._icons = self.icons()
        other._records, other._rare, other._rare_known = self._records, self._rare, self._rare_known
        return other

    def record_digest(self, record: Record) -> bytes:
        """The SHA-256 of the record serialised (sorted keys), made once for every digest. (Only
        the digest is kept: 10,000 serialisations kept alive cost three times their making.)"""
        known = self._records.get(id(record))
        if known is None:
            known = self._record_digests([record])[0]
        return known

    def _record_digests(self, records: list[Record]) -> list[bytes]:
        """`record_digest` of each of `records`, those not made yet made in one loop (a third
        faster than a call each at 10,000 records: the edited check's and build's cost)."""
        made, rare_of, sha256 = self._records, self._rare, hashlib.sha256
        for record in records:
            if id(record) in made:
                continue
            dumped = _dumps(record)
            made[id(record)] = sha256(dumped).digest()
            if not dumped.isascii() or b"\x7f" in dumped:  # else nothing outside printable ASCII
                rare_of[id(record)] = dumped.translate(None, PRINTABLE_ASCII)
            self._rare_known.add(id(record))
        return [made[id(record)] for record in records]

    def rare_bytes(self, record: Record) -> bytes:
        """The record's serialised bytes outside printable ASCII (UTF-8 sequences whole): what its
        text adds to the characters its fonts are preset with (pnp.drawing.facekeys.kind_preset).
        For a file whose keys `keys_by_file` took from the last run, its first record has what all
        of its records have (the preset is a set of characters), the others nothing."""
        if id(record) not in self._rare_known:
            self.record_digest(record)
        return self._rare.get(id(record), b"")

    def rare_bytes_of(self, records: list[Record]) -> list[bytes]:
        """`rare_bytes` of those of `records` that have any (most records have none), in one loop."""
        known, rare = self._rare_known, self._rare
        self._record_digests([record for record in records if id(record) not in known])
        return [rare[i] for i in map(id, records) if i in rare]

    def icons(self) -> list[Path]:
        """layouts/icons.json's image files (icon_files), worked out once for this loaded project."""
        if self._icons is None:
            self._icons = icon_files(self.loaded.project, self.loaded.icons)  # as the faces draw them
        return self._icons

    def layout_key(self, layout: Layout, kind: str) -> str:
        """What every face of `kind` drawn with `layout` reads (no record): its own digest."""
        return self._layout(layout, kind)[0]

    def record_keys(self, layout: Layout, kind: str, records: list[Record]) -> list[str]:
        """`record_key` of each of `records`: for most layouts (the record alone) in one loop, and
        once (a build asks for its kinds' keys again for the check's findings)."""
        made = self._keys.setdefault((layout.name, kind), {})
        try:
            return [made[id(record)] for record in records]
        except KeyError:
            keys = self._record_keys(layout, kind, records)
        made.update(zip(map(id, records), keys, strict=True))
        return keys

    def keys_by_file(
        self, layout: Layout, kind: str, records: list[tuple[Any, Record]], known: dict[str, list[str]]
    ) -> tuple[list[str], dict[str, list[str]]]:
        """`record_keys` of `records` (((record file, index), record), a kind's records in file
        order), and what lets the next run take them back, per file (by its display name): the
        digest of its records, the files they show (their names; the digest of their contents),
        their bytes outside printable ASCII (hex: the fonts' preset), then their keys. A file whose
        records serialise as `known` has it and whose shown files are unchanged takes its keys
        from there: after an edit of one card, one file's records are keyed one by one, not every
        record. Not for a layout whose faces read records through `ref`; `known` must come from the
        same layout key (pnp.drawing.facecache keeps both)."""
        _, uses_refs, sources, asset_paths = self._layout(layout, kind)
        if uses_refs == "fields":
            return self.record_keys(layout, kind, [record for _, record in records]), {}
        made = self._keys.setdefault((layout.name, kind), {})
        keys: list[str] = []
        files: dict[str, list[str]] = {}
        for _, members in groupby(records, key=lambda item: id(item[0][0])):
            group = list(members)
            name = group[0][0][0].display
            own = [record for _, record in group]
            digest = hashlib.sha256(_dumps(own)).hexdigest()
            stored = known.get(name)
            same = stored is not None and len(stored) == len(own) + 4 and stored[0] == digest
            contents = self._shown_digest(stored[1]) if stored is not None and same else None
            if stored is not None and same and stored[2] == contents and _is_hex(stored[3]):
                shown, rare, found = stored[1], stored[3], stored[4:]
                made.update(zip(map(id, own), found, strict=True))
                self._rare_known.update(map(id, own))
                if rare:
                    self._rare[id(own[0])] = bytes.fromhex(rare)
            else:
                found = self.record_keys(layout, kind, own)
                shown = "\0".join(sorted({n for record in own for n in self._shown(record, sources, asset_paths)}))
                contents = self._shown_digest(shown)
                rare = b"".join(self.rare_bytes(record) for record in own).hex()
            files[name] = [digest, shown, contents or "", rare, *found]
            keys += found
        return keys, files

    def _shown(self, record: Record, sources: list[Any], asset_paths: tuple[tuple[str, ...], ...]) -> list[str]:
        """The names of the files a record's faces show: its asset fields, its `src` templates."""
        names: list[str] = []
        for path in asset_paths:
            if len(path) == 1 and path[0] != "*":  # a top-level field (values_at's answer, without its walk)
                value = record.get(path[0])
                if isinstance(value, str):
                    names.append(str(value))
            else:
                names += [str(v) for _, v in values_at(record, path, "") if isinstance(v, str)]
        if sources:
            context = {**record, "record": record}
            for template in sources:
                try:
                    names.append(template.render(context).strip())
                except Exception:  # noqa: BLE001 - a template failing on a record is drawing's to report
                    continue
        return [name for name in names if name]

    def _shown_digest(self, shown: str) -> str:
        """The digest of the contents of the files named in `shown` ("\0"-joined)."""
        if not shown:
            return ""
        hasher = hashlib.sha256()
        for name in shown.split("\0"):
            hasher.update(self.files.of(self.loaded.project.root / name).encode() + b"\0")
        return hasher.hexdigest()

    def _record_keys(self, layout: Layout, kind: str, records: list[Record]) -> list[str]:
        key, uses_refs, sources, asset_paths = self._layout(layout, kind)
        prefix, sha256 = key.encode(), hashlib.sha256
        digests = self._record_digests(records)
        if not asset_paths and not sources and uses_refs != "fields":  # the record alone (most layouts)
            return [sha256(prefix + digest).hexdigest() for digest in digests]
        named: dict[str, bytes] = {}  # a file's name -> what a key takes of it: one stat a name, not a record
        return [
            self._key_with_files(prefix, record, digest, (uses_refs, sources, asset_paths), named)
            for record, digest in zip(records, digests, strict=True)
        ]

    def record_key(self, layout: Layout, kind: str, record: Record) -> str:
        """The digest of every face of `record` (its copies and expansions share it)."""
        return self._record_keys(layout, kind, [record])[0]

    def _key_with_files(
        self,
        prefix: bytes,
        record: Record,
        digest: bytes,
        reads: tuple[str, list[Any], tuple[tuple[str, ...], ...]],
        named: dict[str, bytes],
    ) -> str:
        """A record's key where its faces show files it names (`reads`: the layout's use of `ref`,
        its `src` templates and the schema's asset paths) or records it references."""
        uses_refs, sources, asset_paths = reads
        hasher = hashlib.sha256(prefix)
        hasher.update(digest)
        for name in sorted(set(self._shown(record, sources, asset_paths))):
            if name:
                part = named.get(name)
                if part is None:
                    found = self.files.of(self.loaded.project.root / name)
                    part = named[name] = name.encode(errors="surrogatepass") + b"\0" + found.encode()
                hasher.update(part)
        if uses_refs == "fields":
            for rid, other in self.loaded.referenced((record,)):
                hasher.update(rid.encode(errors="surrogatepass") + b"\0" + self.record_digest(other))
        return hasher.hexdigest()

    def _all_records(self) -> bytes:
        if self._all is None:
            self._all = every_record_digest(self.loaded)
        return self._all

    def _layout(self, layout: Layout, kind: str) -> tuple[str, str, list[Any], tuple[tuple[str, ...], ...]]:
        cache_key = f"{layout.name}\0{kind}"
        known = self._layouts.get(cache_key)
        if known is not None:
            return known
        project = self.loaded.project
        files = sorted({*layout.files, project.layouts / "icons.json", *static_files(project.root, layout)})
        files += self.icons()
        hasher = hashlib.sha256(_dumps([self.options, layout.name, layout.data, layout.words, layout.labels]))
        for path in files:  # named from the project's root: a copy elsewhere (pnp diff) has the same digests
            name = path.relative_to(project.root).as_posix() if path.is_relative_to(project.root) else str(path)
            hasher.update(name.encode(errors="surrogatepass") + b"\0" + self.files.of(path).encode())
        uses_refs = ref_use(layout)
        if uses_refs == "any":  # a template looks up an id it makes itself: every record may show
            hasher.update(self._all_records())
        assets = tuple(site.path for site in self.loaded.schemas.sites(kind) if site.what == "asset")
        known = (hasher.hexdigest(), uses_refs, src_templates(layout), assets)
        self._layouts[cache_key] = known
        return known


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def ref_use(layout: Layout) -> str:
    """How the layout's templates use `ref`: "none"; "fields" (only on values of the record, so a
    face reads the records whose ids are among its record's values); "any" (on a value a template
    makes, such as a constant id, or anywhere its use cannot be told: any record may be shown).
    `ref` is found however it is called: `x | ref`, `xs | map('ref')`, `{% filter ref %}`, or its
    name handed on as a string."""
    text = _dumps(layout.data).decode()
    if REF_WORD.search(text) is None:
        return "none"
    known = _REF_USES.get(text)
    if known is None:
        if len(_REF_USES) >= 256:  # a long `pnp watch` sees many versions of a layout
            _REF_USES.clear()
        known = _REF_USES[text] = _ref_use_of(layout)
    return known


_REF_USES: dict[str, str] = {}  # a layout's text -> ref_use: the build, its faces' keys and exports each ask


def _ref_use_of(layout: Layout) -> str:
    from jinja2 import TemplateSyntaxError, nodes

    from pnp.project.layout import template_env

    env = template_env()
    found = False
    for source in _strings(layout.data):
        if REF_WORD.search(source) is None:
            continue
        try:
            parsed = env.parse(source if "{" in source else "{{ " + source + " }}")
        except TemplateSyntaxError:
            if "{" in source:
                return "any"  # reported by the drawing; assume the worst here
            continue  # plain text, no expression: it calls nothing
        except Exception:  # noqa: BLE001 - reported by the drawing; assume the worst here
            return "any"
        filters = list(parsed.find_all(nodes.Filter))
        refs = [node for node in filters if node.name == "ref"]
        maps = [
            node
            for node in filters
            if node.name == "map"
            and node.args
            and isinstance(node.args[0], nodes.Const)
            and node.args[0].value == "ref"
        ]
        named = sum(1 for node in parsed.find_all(nodes.Const) if node.value == "ref")
        if named > len(maps):
            return "any"  # the filter's name handed on (`select('ref')`, a macro): applied to anything
        if not refs and not maps:
            continue
        found = True
        made = _made_names(parsed)
        for node in [*refs, *maps]:
            target = _root(node.node)
            if not isinstance(target, nodes.Name):
                return "any"  # on a value the template makes, or a `{% filter ref %}` block
            if target.name in made:
                return "any"  # a name the template binds itself (set, a macro's parameter) may hold any id
    return "fields" if found else "none"


# filters whose items are their input's (a subset, in some order), when their arguments are constants
KEEPS_ITEMS = frozenset(
    {"default", "sort", "reverse", "list", "unique", "select", "reject", "selectattr", "rejectattr"}
)


def _root(node: Any) -> Any:
    """The name an attribute or item chain starts from (`l.units[0]` -> `l`), through filters that
    only pick or order its items (`levels | default([]) | sort` -> `levels`)."""
    from jinja2 import nodes

    while True:
        if isinstance(node, (nodes.Getattr, nodes.Getitem)):
            node = node.node
        elif isinstance(node, nodes.Filter) and node.name in KEEPS_ITEMS and node.node is not None:
            arguments = [*node.args, *(keyword.value for keyword in node.kwargs)]
            if node.name == "default":  # its argument is a value, not a criterion: only an empty one
                arguments = [a for a in arguments if not (isinstance(a, nodes.Const) and a.value in (None, "", False))]
                if any(not (isinstance(a, (nodes.List, nodes.Dict)) and not a.items) for a in arguments):
                    return node  # `default('some-id')`: an id the template writes
            elif not all(_inert(argument) for argument in arguments):
                return node
            node = node.node
        else:
            return node


def _inert(node: Any) -> bool:
    """A constant that brings no id of its own: a string, number or boolean, an empty list or map."""
    from jinja2 import nodes

    if isinstance(node, nodes.Const):
        return True
    return isinstance(node, (nodes.List, nodes.Dict)) and not node.items


def _made_names(parsed: Any) -> set[str]:
    """The names a template binds to values it may make itself: every name it sets or takes as a
    parameter, and each `for` loop's names unless the loop runs over the record's own values (a
    field, or a loop's item over one: `{% for l in levels %}`), whose items are the record's too."""
    from jinja2 import nodes

    loops = list(parsed.find_all(nodes.For))
    in_loops = {id(name) for loop in loops for name in _names_in(loop.target)}
    made = {
        name.name for name in parsed.find_all(nodes.Name) if name.ctx in ("store", "param") and id(name) not in in_loops
    }
    looped = {name.name for loop in loops for name in _names_in(loop.target)}
    of_record: set[str] = set()
    for _ in loops:  # a loop over another loop's items: as many passes as loops at most
        for loop in loops:
            source = _root(loop.iter)
            over_record = isinstance(source, nodes.Name) and source.name not in made
            if over_record and (source.name not in looped or source.name in of_record):
                of_record |= {name.name for name in _names_in(loop.target)}
    return made | (looped - of_record)


def _names_in(target: Any) -> list[Any]:
    from jinja2 import nodes

    return [target] if isinstance(target, nodes.Name) else list(target.find_all(nodes.Name))


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def src_templates(layout: Layout) -> list[Any]:
    """The compiled `src` templates of the layout's image elements (`{{ art }}`)."""
    from pnp.project.layout import template_env

    sources = [
        element["src"]
        for face in ("front", "back")
        for element in (layout.data.get(face) or {}).get("elements", [])
        if isinstance(element, dict) and isinstance(element.get("src"), str) and "{" in element["src"]
    ]
    if not sources:
        return []
    from pnp.project.plaintemplates import plain_field

    env: Any = None
    compiled = []
    for source in sources:
        plain = plain_field(source, lambda text: template_env().from_string(text))
        if plain is not None:  # `{{ art }}`: no Jinja unless a record's value needs it
            compiled.append(plain)
            continue
        env = env or template_env()
        try:
            compiled.append(env.from_string(source))
        except Exception:  # noqa: BLE001 - a template that does not compile is reported by the drawing
            continue
    return compiled


def static_files(root: Path, layout: Layout) -> list[Path]:
    """The files a layout draws on every face: static image `src`s and font files."""
    from pnp.project.layout import face_entries

    files: list[Path] = []
    for _, _, face_data in face_entries(layout.data):
        for element in face_data.get("elements", []):
            src = element.get("src")
            if isinstance(src, str) and "{" not in src:
                files.append(root / src)
            font = element.get("font")
            fonts = font.values() if isinstance(font, dict) else [font]
            files.extend(root / f for f in fonts if isinstance(f, str) and f.endswith((".ttf", ".otf")))
    return files


def icon_files(project: Project, specs: dict[str, Any] | None = None) -> list[Path]:
    """The image files of layouts/icons.json (inside the project): text anywhere may draw them.
    `specs`: the file as read already (LoadedProject.icons), else it is read here."""
    from pnp.project.loaded import load_icon_specs

    root = project.root
    specs = load_icon_specs(project) if specs is None else specs
    images = [spec.get("image") for spec in specs.values() if isinstance(spec, dict)]
    paths = project_files(root, [image for image in images if isinstance(image, str) and image])
    return sorted({path for path, problem in paths if path is not None and not problem})
