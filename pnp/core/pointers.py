"""JSON Pointer (RFC 6901) escaping: one place for `~0` and `~1`."""

from __future__ import annotations


def escape(key: str) -> str:
    """A key as one reference token: '~' -> '~0', '/' -> '~1'."""
    return key.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """A reference token back to its key (the reverse order of `escape`)."""
    return token.replace("~1", "/").replace("~0", "~")


def tokens(pointer: str) -> list[str]:
    """'/a/b~1c' -> ['a', 'b/c']; '' (the whole document) -> []."""
    return [unescape(part) for part in pointer.split("/")[1:]] if pointer else []
