"""Layouts may be written in YAML too. Read with PyYAML's safe loader, keeping every node's
position so problems are located at line:column like in JSON files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pnp.jsonfile import line_col
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
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
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
