"""Read JSON files fast, and explain precisely what is wrong with the ones that fail.

The fast path is orjson. Duplicate keys (which orjson, like every parser, silently merges) are
detected without a Python-level walk: every key is followed by a ':' outside strings and
re-serialising keeps every string, so a parsed document has as many ':' as its source exactly
when no key was dropped. Any file that fails the fast path is re-read by the slow, exact path
(`diagnose`), which finds every problem with its line and column.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from json.decoder import JSONDecodeError
from typing import Any

import orjson

from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding

scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 - in CPython, missing from the stubs

BOM = b"\xef\xbb\xbf"
TOO_DEEP = "JSON nested too deeply to read; records need only a few levels: check the brackets"


@dataclass(frozen=True, slots=True)
class Parsed:
    """The outcome of reading one JSON file: its data (None when unusable) and findings."""

    data: Any
    text: str | None
    findings: tuple[Finding, ...]
    ok: bool


def parse_bytes(raw: bytes, check_duplicates: bool = True) -> Parsed:
    """Parse `raw`; fast when the file is clean, exact when it is not."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        return diagnose(raw, strict=err)
    try:
        # a colon written \u003a would count in `again` only: such a file takes the slow path
        # (looked for only where there is a backslash at all: memchr, ten times faster)
        escaped_colon = b"\\" in raw and b"\\u003" in raw
        again = orjson.dumps(data) if check_duplicates and not escaped_colon else b""
    except TypeError:  # nested deeper than 255 levels: no record needs that, later stages recurse
        return Parsed(None, None, (Finding("json-syntax", TOO_DEEP, offset=0),), False)
    if not check_duplicates or (again and raw.count(b":") == again.count(b":")):
        return Parsed(data, None, (), True)
    return diagnose(raw)


def diagnose(raw: bytes, strict: orjson.JSONDecodeError | None = None) -> Parsed:
    """The slow path: every problem in the file, located by character offset.

    `strict` is orjson's objection, used when the lenient reader finds nothing wrong (a lone
    surrogate such as \\ud800, an integer beyond 64 bits): such text breaks later stages.
    """
    findings: list[Finding] = []
    if not raw.strip():
        msg = "file is empty; a record file holds one record object or an array of records"
        return Parsed(None, "", (Finding("empty-file", msg, offset=0),), False)
    if raw.startswith(BOM):
        findings.append(
            Finding(
                "byte-order-mark",
                "file starts with a UTF-8 byte-order mark; save it as UTF-8 without BOM",
                offset=0,
            )
        )
        raw = raw[len(BOM) :]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        findings.append(
            Finding(
                "invalid-encoding",
                "file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8",
                offset=0,
            )
        )
        return Parsed(None, "", tuple(findings), False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        good = raw[: err.start].decode("utf-8", errors="replace")
        bad = raw[err.start : err.start + 1].hex()
        findings.append(
            Finding(
                "invalid-encoding",
                f"byte 0x{bad} is not valid UTF-8; re-save the file with UTF-8 encoding",
                offset=len(good),
            )
        )
        return Parsed(None, good, tuple(findings), False)
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except _NonFinite:
        data = None
    except JSONDecodeError as err:
        findings.append(Finding("json-syntax", _explain_syntax(text, err), offset=err.pos))
        return Parsed(None, text, tuple(findings), False)
    except RecursionError:
        findings.append(
            Finding(
                "json-syntax",
                TOO_DEEP,
                offset=0,
            )
        )
        return Parsed(None, text, tuple(findings), False)
    except ValueError as err:  # e.g. an integer of thousands of digits
        at = re.search(r"-?\d{1000,}", text)
        detail = str(err).split(";")[0]
        findings.append(
            Finding(
                "json-syntax",
                f"a number too long to read ({detail}); check for a paste error",
                offset=at.start() if at else 0,
            )
        )
        return Parsed(None, text, tuple(findings), False)
    findings.extend(scan_tokens(text))
    if strict is not None and not findings:
        reason = str(strict.msg if hasattr(strict, "msg") else strict)
        offset = max(0, min(len(text), int(getattr(strict, "pos", 0))))
        findings.append(
            Finding("json-syntax", f"{reason}; JSON text must be valid Unicode with ordinary numbers", offset=offset)
        )
        return Parsed(None, text, tuple(findings), False)
    usable = data is not None and not any(f.code == "non-finite-number" for f in findings)
    return Parsed(data if usable else None, text, tuple(findings), usable)


class _NonFinite(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFinite(name)


def _explain_syntax(text: str, err: JSONDecodeError) -> str:
    """Turn the json module's terse message into one that says what to do."""
    before = text[: err.pos].rstrip()
    here = text[err.pos : err.pos + 1]
    if err.pos >= len(text.rstrip()):
        return f"unexpected end of file ({err.msg}); the file looks truncated: close every {{ and ["
    if before.endswith(",") and here in "]}":
        return f"trailing comma before '{here}'; remove the comma"
    if err.msg.startswith("Expecting property name"):
        return 'expected a property name in double quotes; JSON keys need "quotes"'
    if err.msg.startswith("Extra data"):
        return "extra data after the JSON value; a file holds one record or one array of records"
    if err.msg.startswith("Invalid control character"):
        return "control character inside a string; write newlines as \\n and tabs as \\t"
    if here == "'":
        return "single quote; JSON strings use double quotes"
    if err.msg.startswith("Unterminated string"):
        return 'a string that never ends (no closing "); close it, or escape a " inside it as \\"'
    return f"{err.msg.lower()}; fix the JSON syntax here"


_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"'
    r"|[{}\[\]:,]"
    r"|-?Infinity|NaN"
    r"|[^\s{}\[\]:,\"]+",
    re.DOTALL,
)


def scan_tokens(text: str) -> list[Finding]:
    """Find duplicate keys and non-finite numbers with their positions (text parses as JSON)."""
    findings: list[Finding] = []
    # stack of (container type, keys seen as {key: offset}, pointer, expecting key?)
    stack: list[list[Any]] = []
    pending_key: str | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        top = stack[-1] if stack else None
        if token in "{[":
            pointer = _child_pointer(top, pending_key)
            stack.append(["{", {}, pointer, True, 0] if token == "{" else ["[", None, pointer, False, 0])
            pending_key = None
            continue
        if token in "}]":
            stack.pop()
            _advance(stack)
            continue
        if token == ",":
            if top is not None and top[0] == "{":
                top[3] = True
            continue
        if token == ":":
            continue
        if top is not None and top[0] == "{" and top[3]:
            key = scanstring(token, 1)[0]
            if key in top[1]:
                first = top[1][key]
                findings.append(
                    Finding(
                        "duplicate-key",
                        f"key {key!r} appears twice in this object (first at {_line_col_text(text, first)});"
                        " remove one: JSON keeps only the last",
                        pointer=_join(top[2], key),
                        offset=match.start(),
                    )
                )
            else:
                top[1][key] = match.start()
            top[3] = False
            pending_key = key
            continue
        if token in ("NaN", "Infinity", "-Infinity"):
            findings.append(
                Finding(
                    "non-finite-number",
                    f"{token} is not valid JSON; use a number, or null for no value",
                    pointer=_child_pointer(top, pending_key),
                    offset=match.start(),
                )
            )
        pending_key = None
        _advance(stack, value_done=True)
    return findings


def _advance(stack: list[list[Any]], value_done: bool = True) -> None:
    if stack and stack[-1][0] == "[" and value_done:
        stack[-1][4] += 1


def _child_pointer(top: list[Any] | None, key: str | None) -> str:
    if top is None:
        return ""
    if top[0] == "{":
        return _join(top[2], key or "")
    return _join(top[2], str(top[4]))


def _join(pointer: str, key: str) -> str:
    return pointer + "/" + escape(key)


def _line_col_text(text: str, offset: int) -> str:
    line, col = line_col(text, offset)
    return f"line {line}, column {col}"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of `offset`."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def item_offsets(text: str, count: int | None = None, decode: bool = True) -> list[int] | None:
    """Where each item of a top-level array of `count` items starts.

    Pretty-printed files put every item's `{` on its own line at one indentation, found by a
    single C-level search; when that does not give exactly `count` items, one pass of the C
    decoder skips item by item instead (with `decode` False: None, that pass costs about what
    parsing the file did).
    """
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if text[pos : pos + 1] != "[":
        return []
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    line_start = text.rfind("\n", 0, pos)
    indent = text[line_start + 1 : pos]
    if count and line_start >= 0 and text[pos : pos + 1] == "{" and not indent.strip(" \t"):
        marker = re.compile(re.escape("\n" + indent + "{"))  # compiled once per indent (re's cache)
        found = [match.end() - 1 for match in marker.finditer(text)]  # item k's "{" ends the k-th marker
        if len(found) == count and found[0] == pos:
            return found
    if not decode:
        return None
    offsets: list[int] = []
    while pos < len(text) and text[pos] != "]":
        offsets.append(pos)
        _, end = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] != ",":
            break
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    return offsets


def locate(text: str, pointer: str, at_key: bool = False, items: list[int] | None = None) -> int:
    """Character offset of the value (or its key) at `pointer`; the deepest reachable on a miss.

    Values between here and the target are skipped by the C decoder. `items` (from
    `item_offsets`) lets a file with many problems skip straight to each record.
    """
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not pointer:
        return pos
    parts = [unescape(p) for p in pointer.split("/")[1:]]
    if items is not None and parts[0].isdigit() and int(parts[0]) < len(items) and (len(parts) > 1 or not at_key):
        index = int(parts[0])
        pos = items[index]
        parts = parts[1:]
        if len(parts) == 1:  # a field of the record: its key, when it occurs once in the record's text
            end = items[index + 1] if index + 1 < len(items) else len(text)
            found = _unique_key(text, pos, end, parts[0])
            if found is not None:
                return found[0] if at_key else found[1]
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        opener = text[pos : pos + 1]
        if opener == "{":
            found = _find_key(text, pos, part)
            if found is None:
                return pos
            key_pos, value_pos = found
            pos = key_pos if (last and at_key) else value_pos
        elif opener == "[" and part.isdigit():
            found_item = _find_item(text, pos, int(part))
            if found_item is None:
                return pos
            pos = found_item
        else:
            return pos
    return pos


def _unique_key(text: str, start: int, end: int, key: str) -> tuple[int, int] | None:
    """(key offset, value offset) of `"key":` when it appears exactly once in text[start:end]."""
    token = json.dumps(key, ensure_ascii=False)
    at = text.find(token, start, end)
    if at < 0 or text.find(token, at + 1, end) >= 0:
        return None
    colon = _WS.match(text, at + len(token)).end()  # type: ignore[union-attr]
    if text[colon : colon + 1] != ":":
        return None
    return at, _WS.match(text, colon + 1).end()  # type: ignore[union-attr]


def _find_key(text: str, pos: int, wanted: str) -> tuple[int, int] | None:
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    result: tuple[int, int] | None = None
    while pos < len(text) and text[pos] == '"':
        key, after = scanstring(text, pos + 1)
        colon = _WS.match(text, after).end()  # type: ignore[union-attr]
        value_pos = _WS.match(text, colon + 1).end()  # type: ignore[union-attr]
        if key == wanted:
            result = (pos, value_pos)  # keep going: the last duplicate is the one parsed
        _, end = _DECODER.raw_decode(text, value_pos)
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] != ",":
            break
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    return result


def _find_item(text: str, pos: int, index: int) -> int | None:
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    for i in range(index + 1):
        if pos >= len(text) or text[pos] == "]":
            return None
        if i == index:
            return pos
        _, end = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text[pos : pos + 1] != ",":
            return None
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    return None


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def json_type(value: Any) -> str:
    """'an integer', 'a string': the JSON type of a value, for messages."""
    name = json_type_name(value)
    return ("an " if name[0] in "aeiou" else "a ") + name


JSON_INTEGERS = (-(2**63), 2**64 - 1)  # what orjson reads from JSON as an integer (beyond: a float)


def as_json_numbers(records: list[Any], pointer_of: Any) -> list[Finding]:
    """Make integers of YAML or spreadsheet records what the same number in a JSON record is (a
    float beyond 64 bits, as orjson reads it), since later stages write records as JSON; a number
    no float holds is a problem (as in JSON). `pointer_of(index)` names a record."""
    findings: list[Finding] = []
    stack: list[tuple[Any, str]] = [(record, pointer_of(i)) for i, record in enumerate(records)]
    while stack:
        node, pointer = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            here = f"{pointer}/{escape(str(key))}"
            if isinstance(value, dict | list):
                stack.append((value, here))
            elif type(value) is int and not JSON_INTEGERS[0] <= value <= JSON_INTEGERS[1]:
                try:
                    node[key] = float(value)
                except OverflowError:  # the largest float stands in: this problem is the one reported
                    node[key] = sys.float_info.max if value > 0 else -sys.float_info.max
                    message = "number is too large for any JSON reader (over 1.8e308); write a smaller number"
                    findings.append(Finding("json-syntax", message, here))
    return findings


def whole_number(value: Any) -> int | None:
    """`value` as JSON Schema's "integer" takes it (3, or 3.0 as a JSON reader may give it), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
