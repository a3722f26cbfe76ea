"""A kind's face keys per record file (pnp.drawing.faces.FaceDigests.keys_by_file), kept by the
check and the build for the next run, signed with the project's key: a file whose records did
not change takes its keys from there instead of serialising and hashing each record again. And
what else keys a kind's faces: the characters its fonts are preset with (`kind_preset`)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

CACHE_MAX_BYTES = (
    64 * 1024 * 1024
)  # a kind's caches (the check's findings, the faces' keys): far less in any real project
KEYS_FOLDER = "keys"  # beside a kind's cache: its faces' keys per record file (FaceDigests.keys_by_file)


def read_keys(path: Path | None, layout_key: str, key: bytes | None, root: Path) -> dict[str, list[str]]:
    """The faces' keys per record file the last check or build kept for this layout key, when
    their signature verifies ({} else): a build copies the face a key names, so a forged list
    could put one card's face on another; the project's key signs it (pnp.verify.keys)."""
    from pnp.core.paths import RefusedFile, read_regular

    if path is None or not key:
        return {}
    try:
        stored = orjson.loads(read_regular(path, CACHE_MAX_BYTES, root))
        payload, mac = stored["payload"], stored["mac"]
        if not isinstance(payload, str) or not isinstance(mac, str):
            return {}
        if not hmac.compare_digest(mac, _keys_mac(key, payload)):
            return {}
        inner = orjson.loads(payload)
        files = inner["files"] if inner.get("layout_key") == layout_key else {}
    except (RefusedFile, OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {
        name: entry
        for name, entry in files.items()
        if isinstance(entry, list) and len(entry) >= 4 and all(isinstance(x, str) for x in entry)
    }


def write_keys(path: Path | None, layout_key: str, files: dict[str, list[str]], key: bytes | None) -> None:
    """Keep the faces' keys per record file for the next run (`read_keys`), signed."""
    from pnp.core.output import atomic_write

    if path is None or not key or not files:
        return
    payload = orjson.dumps({"layout_key": layout_key, "files": files}).decode()
    data = orjson.dumps({"mac": _keys_mac(key, payload), "payload": payload})
    with contextlib.suppress(OSError):  # a read-only checkout: only slower next time
        atomic_write(path, lambda handle: handle.write(data))


@dataclass(frozen=True)
class KeptKeys:
    """The faces' keys per record file a build made, kept once the build has succeeded (`save`,
    as the face store is: a failed build writes nothing)."""

    path: Path
    layout_key: str
    files: dict[str, list[str]]

    def save(self, key: bytes | None) -> None:
        write_keys(self.path, self.layout_key, self.files, key)


def _keys_mac(key: bytes, payload: str) -> str:
    return hmac.new(key, b"face keys\0" + payload.encode(), hashlib.sha256).hexdigest()


def face_keys(
    loaded: Any, layout: Any, kind: str, digests: Any, kept: Path | None = None, signing_key: bytes | None = None
) -> tuple[dict[int, str], Any]:
    """id(record) -> the face digest of each record of `kind` (digests: pnp.drawing.faces.FaceDigests),
    and what keeps them per record file for the next run (a `KeptKeys` to save
    once the build succeeded; None). `kept`: where the check and the build keep them, signed with
    `signing_key` (none yet in a first build: they are kept, signed with the key it makes); a file
    whose records did not change takes its keys from there."""
    if kept is None:
        records = [record for _, _, record in loaded.records(kind)]
        return dict(zip(map(id, records), digests.record_keys(layout, kind, records), strict=True)), None
    pairs = [((f, i), r) for f, i, r in loaded.records(kind)]
    layout_key = digests.layout_key(layout, kind)
    known = read_keys(kept, layout_key, signing_key, loaded.project.root)
    keys, files = digests.keys_by_file(layout, kind, pairs, known)
    later = KeptKeys(kept, layout_key, files) if files != known else None
    return dict(zip((id(record) for _, record in pairs), keys, strict=True)), later


def kind_preset(loaded: Any, layout: Any, kind: str, name: str, digests: Any) -> str:
    """The characters a kind's fonts are preset with (pnp.drawing.stablefont); `name`: the sheets'
    label (the kind's schema title, or the kind); `digests`: the build's FaceDigests, whose
    serialised records are read (not made again)."""
    from pnp.drawing.stablefont import preset_chars_of

    return preset_chars_of(preset_parts(loaded, layout, kind, name or kind, digests))


def preset_parts(loaded: Any, layout: Any, kind: str, name: str, digests: Any) -> list[bytes]:
    """Every text a kind's faces may draw characters of, as UTF-8: its layout, its records (all
    records when its templates look others up), the icons, the sheet label. Assigned first in its
    fonts (pnp.drawing.stablefont); a character drawn that is not here only costs the reuse."""
    from pnp.drawing.faces import ref_use

    layout_text = orjson.dumps(layout.data)
    if ref_use(layout) != "none":
        records = [record for record_file in loaded.files for record in record_file.records]
    else:
        records = [record for _, _, record in loaded.records(kind)]
    icons = orjson.dumps(loaded.icons, default=str)
    return [layout_text, *digests.rare_bytes_of(records), icons, name.encode("utf-8", "surrogatepass")]
