"""Layouts may be written in YAML too. Read with PyYAML's safe loader, keeping every node's
position so problems are located at line:column like in JSON files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pnp.jsonfile import TOO_DEEP, line_col
from pnp.limits import current as current_limits
from pnp.limits import exceeded
from pnp.paths import RefusedFile, read_regular
from pnp.problems import Finding, Problem
from pnp.records import RecordFile

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(slots=True)
class YamlFile(RecordFile):
    """A one-document YAML file; `node` is the composed tree, for positions."""

    node: Any = None

    def locate(self, finding: Finding) -> Problem:
        if finding.offset is not None:
            return self.problem(finding, *line_col(self.raw.decode("utf-8", errors="replace"), finding.offset))
        if self.node is None:
            return self.problem(finding, 1, 1)
        mark = _mark_at(self.node, finding.pointer, finding.at_key)
        return self.problem(finding, mark.line + 1, mark.column + 1)


def _mark_at(node: Any, pointer: str, at_key: bool) -> Any:
    """The start of the node at `pointer` (or of its key); the deepest reachable on a miss."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]] if pointer else []
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


def load_yaml(path: Path, display: str, max_bytes: int) -> YamlFile:
    """Parse a YAML file into one record; syntax errors and duplicate keys become findings."""
    try:
        raw = read_regular(path, max_bytes)
    except RefusedFile as refused:
        return YamlFile(path, display, b"", [], False, [Finding(refused.code, refused.message, offset=0)])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        message = f"byte 0x{raw[err.start : err.start + 1].hex()} is not valid UTF-8; save the file as UTF-8"
        return YamlFile(path, display, raw, [], False, [Finding("invalid-encoding", message, offset=0)])
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _TooLarge:
        message = exceeded("yaml_values", "with its aliases (*name) expanded, this file holds too many values")
        return YamlFile(path, display, raw, [], False, [Finding("limit-exceeded", message, offset=0)])
    except RecursionError:
        return YamlFile(
            path, display, raw, [], False, [Finding("json-syntax", TOO_DEEP.replace("JSON", "YAML"), offset=0)]
        )
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
    findings = list(_duplicate_keys(node, ""))
    records = [data] if isinstance(data, dict) else []
    if not records:
        findings.append(Finding("not-a-record", "a layout file holds one mapping (YAML) or object (JSON)", offset=0))
    return YamlFile(path, display, raw, records, False, findings, node=node)


class _TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class _Loader(yaml.SafeLoader):  # type: ignore[misc]
    """Safe YAML, bounded and JSON-shaped: an alias (*name) stands for a whole tree, so a few
    nested ones make a "billion laughs"; the tree's size with aliases expanded is counted
    (in time linear in the file) before anything is built from it. Dates are kept as the text
    written, binary values refused."""

    def compose_document(self) -> Any:
        node = super().compose_document()
        sizes: dict[int, int] = {}
        limit = current_limits().yaml_values
        if _expanded_size(node, sizes, limit) > limit:
            raise _TooLarge(limit)
        return node

    def construct_yaml_timestamp(self, node: Any) -> Any:
        return self.construct_scalar(node)

    def construct_yaml_binary(self, node: Any) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, "a binary value (!!binary) has no JSON form; write text instead", node.start_mark
        )


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)
_Loader.add_constructor("tag:yaml.org,2002:binary", _Loader.construct_yaml_binary)


def _expanded_size(node: Any, sizes: dict[int, int], limit: int) -> int:
    """Values under `node` with every alias expanded; each distinct node counted once (memo)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += _expanded_size(item, sizes, limit)
            if total > limit:
                break
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            total += _expanded_size(key, sizes, limit) + _expanded_size(value, sizes, limit)
            if total > limit:
                break
    sizes[id(node)] = total
    return total


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line):
        start = text.index("\n", start) + 1
    return start + column


def _duplicate_keys(node: Any, pointer: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, Any] = {}
        for key, value in node.value:
            name = str(key.value)
            child = f"{pointer}/{name.replace('~', '~0').replace('/', '~1')}"
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
            yield from _duplicate_keys(value, child)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicate_keys(item, f"{pointer}/{i}")
