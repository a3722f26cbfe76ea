"""Layouts and record files may be written in YAML too. Read with PyYAML's safe loader, keeping
every node's position so problems are located at line:column like in JSON files. Anchors,
aliases and merge keys (`<<: *defaults`, own keys override merged ones) are YAML's own."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pnp.core.limits import current as current_limits
from pnp.core.limits import exceeded
from pnp.core.paths import RefusedFile, read_regular
from pnp.core.pointers import escape, unescape
from pnp.core.problems import Finding, Problem
from pnp.project.jsonfile import line_col
from pnp.project.recordfile import YAML_SUFFIXES as YAML_SUFFIXES  # re-exported
from pnp.project.recordfile import RecordFile


@dataclass(slots=True)
class YamlFile(RecordFile):
    """A one-document YAML file; `node` is the composed tree, for positions."""

    node: Any = None

    def locate(self, finding: Finding) -> Problem:
        if finding.offset is not None:
            return self.problem(finding, *line_col(_text(self.raw), finding.offset))
        if self.node is None:
            return self.problem(finding, 1, 1)
        mark = _mark_at(self.node, finding.pointer, finding.at_key)
        return self.problem(finding, mark.line + 1, mark.column + 1)


def _mark_at(node: Any, pointer: str, at_key: bool) -> Any:
    """The start of the node at `pointer` (or of its key); the deepest reachable on a miss."""
    parts = [unescape(p) for p in pointer.split("/")[1:]] if pointer else []
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, yaml.MappingNode):
            match = next((kv for kv in reversed(node.value) if kv[0].value == part), None)
            if match is None:
                break
            if last and at_key:
                return match[0].start_mark
            node = match[1]
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
        else:
            break
    return node.start_mark


@dataclass(frozen=True, slots=True)
class YamlLocator:
    """Locates a finding's pointer in a YAML record file by its composed nodes."""

    node: Any
    text: str

    def offset_of(self, finding: Finding) -> int:
        return int(_mark_at(self.node, finding.pointer, finding.at_key).index) if self.node is not None else 0

    def position(self, offset: int) -> tuple[int, int, str]:
        return (*line_col(self.text, offset), "")


def load_yaml_records(path: Path, display: str, max_bytes: int, root: Path | None) -> RecordFile:
    """A YAML record file: one mapping (a record) or a list of mappings, like a JSON one."""
    loaded = load_yaml(path, display, max_bytes, root, records=True)
    text = _text(loaded.raw)
    record_file = RecordFile(path, display, loaded.raw, loaded.records, loaded.is_array, loaded.findings, text)
    record_file.locator = YamlLocator(loaded.node, text)
    return record_file


def load_yaml(path: Path, display: str, max_bytes: int, root: Path | None, records: bool = False) -> YamlFile:
    """Parse a YAML file into one record (`records`: or a list of them); syntax errors and
    duplicate keys become findings."""
    try:
        raw = read_regular(path, max_bytes, root)
    except RefusedFile as refused:
        return YamlFile(path, display, b"", [], False, [Finding(refused.code, refused.message, offset=0)])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        message = f"byte 0x{raw[err.start : err.start + 1].hex()} is not valid UTF-8; save the file as UTF-8"
        at = len(_text(raw[: err.start]))  # at the byte, as the file's text counts characters
        return YamlFile(path, display, raw, [], False, [Finding("invalid-encoding", message, offset=at)])
    text = text.removeprefix("\ufeff")  # offsets count characters after a byte-order mark
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        distinct: dict[int, tuple[int, int]] = {}
        expanded, depth = _expanded_size(node, distinct) if node is not None else (0, 0)
        if depth > MAX_DEPTH:
            raise RecursionError
        if expanded > max(10 * len(distinct), current_limits().yaml_values):  # a "billion laughs"
            what = (
                f"with its aliases (*name) expanded, this file holds {expanded:,} values "
                f"(from {len(distinct):,} written); write the values out, or use fewer nested aliases"
            )
            message = exceeded("yaml_values", what)
            return YamlFile(path, display, raw, [], False, [Finding("limit-exceeded", message, offset=0)])
        findings = list(_duplicate_keys(node, "", set()))  # before merge keys are expanded into the nodes
        data = loader.construct_document(node) if node is not None else None
    except RecursiveAlias as found:
        mark = found.node.start_mark
        message = (
            "YAML: this value holds an alias (*name) of itself, an endless value no record or layout can "
            "have; write the inner value out"
        )
        at = _offset(text, mark.line, mark.column)
        return YamlFile(path, display, raw, [], False, [Finding("json-syntax", message, offset=at)])
    except NonFinite as found:
        mark = found.node.start_mark
        message = f"{found.node.value} is {found.what}, not a number JSON can hold; use a number, or null for no value"
        at = _offset(text, mark.line, mark.column)
        return YamlFile(path, display, raw, [], False, [Finding("non-finite-number", message, offset=at)])
    except RecursionError:
        message = "YAML syntax: nested too deeply to read; flatten the structure"
        return YamlFile(path, display, raw, [], False, [Finding("json-syntax", message, offset=0)])
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        offset = _offset(text, mark.line, mark.column) if mark is not None else 0
        problem = " ".join(str(x) for x in (err.context, err.problem) if x)
        return YamlFile(
            path, display, raw, [], False, [Finding("json-syntax", f"YAML syntax: {problem}", offset=offset)]
        )
    except yaml.YAMLError as err:
        return YamlFile(path, display, raw, [], False, [Finding("json-syntax", f"YAML: {err}", offset=0)])
    finally:
        loader.dispose()
    if records and node is None:
        findings.append(
            Finding("empty-file", "file is empty; a record file holds one record or a list of them", offset=0)
        )
        return YamlFile(path, display, raw, [], False, findings)
    if records and isinstance(data, list):
        return YamlFile(path, display, raw, data, True, findings, node=node)
    if not isinstance(data, dict):
        what = "a mapping (one record) or a list of mappings" if records else "one mapping (YAML) or object (JSON)"
        findings.append(Finding("not-a-record", f"a {'record' if records else 'layout'} file holds {what}", offset=0))
        return YamlFile(path, display, raw, [], False, findings, node=node)
    return YamlFile(path, display, raw, [data], False, findings, node=node)


MAX_DEPTH = 100  # records and layouts need a few levels; deeper ones break later stages' recursion


_IN_PROGRESS = (-1, -1)


class NonFinite(Exception):
    """A YAML .nan or .inf: no JSON number, so no record value."""

    def __init__(self, node: Any, what: str) -> None:
        super().__init__(what)
        self.node = node
        self.what = what


class RecursiveAlias(Exception):
    """An alias (*name) inside the very value its anchor (&name) names."""

    def __init__(self, node: Any) -> None:
        super().__init__("recursive alias")
        self.node = node


def _expanded_size(node: Any, sizes: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(values, depth) the node stands for once every alias is expanded, memoised per node, so
    a "billion laughs" file is measured in microseconds, not expanded."""
    known = sizes.get(id(node))
    if known == _IN_PROGRESS:  # a node that contains itself: no JSON value is endless
        raise RecursiveAlias(node)
    if known is not None:
        return known
    sizes[id(node)] = _IN_PROGRESS
    if isinstance(node, yaml.MappingNode):
        children = [_expanded_size(n, sizes) for pair in node.value for n in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = [_expanded_size(item, sizes) for item in node.value]
    else:
        children = []
    found = (1 + sum(size for size, _ in children), 1 + max((depth for _, depth in children), default=0))
    sizes[id(node)] = found
    return found


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


class _Loader(yaml.SafeLoader):  # type: ignore[misc]
    """Safe YAML, JSON-shaped: dates are kept as the text written (as in JSON), binary values
    refused. The size of the tree with aliases expanded is measured by load_yaml."""

    def construct_yaml_timestamp(self, node: Any) -> Any:
        return self.construct_scalar(node)

    def construct_yaml_int(self, node: Any) -> Any:
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # thousands of digits: Python refuses to read them (and no float holds them)
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "number is too large for any JSON reader (over 1.8e308); write a smaller number",
                node.start_mark,
            ) from None

    def construct_yaml_float(self, node: Any) -> Any:
        value = super().construct_yaml_float(node)
        if not math.isfinite(value):  # .nan, .inf: no JSON number (orjson would write null)
            raise NonFinite(node, "NaN" if math.isnan(value) else "infinity")
        return value

    def construct_yaml_binary(self, node: Any) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, "a binary value (!!binary) has no JSON form; write text instead", node.start_mark
        )


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)
_Loader.add_constructor("tag:yaml.org,2002:binary", _Loader.construct_yaml_binary)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line):
        start = text.index("\n", start) + 1
    return start + column


MERGE_TAG = "tag:yaml.org,2002:merge"


def _duplicate_keys(node: Any, pointer: str, visited: set[int]) -> Any:
    """Keys written twice in one mapping. Merge keys (`<<: *defaults`) are YAML's own: the keys they
    bring are overridden by the mapping's own keys, and earlier merged mappings win over later ones."""
    if id(node) in visited:  # an alias: checked where its anchor is
        return
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, Any] = {}
        for key, value in node.value:
            if key.tag == MERGE_TAG:
                yield from _duplicate_keys(value, pointer, visited)
                continue
            name = str(key.value)
            child = f"{pointer}/{escape(name)}"
            if name in seen:
                first = seen[name]
                yield Finding(
                    "duplicate-key",
                    f"key {name!r} appears twice in this mapping (first at line {first.line + 1}, column "
                    f"{first.column + 1}); remove one: YAML keeps only the last",
                    child,
                    at_key=True,
                )
            seen[name] = key.start_mark
            yield from _duplicate_keys(value, child, visited)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicate_keys(item, f"{pointer}/{i}", visited)
