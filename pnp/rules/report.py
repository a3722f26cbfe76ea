"""Reporters, chosen by name (REPORTER_BY_NAME), each writing one CheckResult to a stream."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO, Any
from urllib.parse import quote

import orjson

from pnp import __version__
from pnp.core.problems import CODES, Problem, text_line
from pnp.rules.result import CheckResult


def _summary(result: CheckResult) -> str:
    counts = (
        f"{result.errors} error{'s' * (result.errors != 1)}, {result.warnings} warning{'s' * (result.warnings != 1)}"
    )
    if not result.files and not result.records:  # problems of a build or export, not of a check
        return counts
    return f"{result.files} files, {result.records} records: {counts}"


def report_text(result: CheckResult, out: IO[str]) -> None:
    for p in result.problems:
        out.write(text_line(p) + "\n")  # one line each, whatever a file name holds
    out.write(_summary(result) + "\n")


def problem_dict(p: Problem) -> dict[str, Any]:
    found = {
        "file": p.file,
        "line": p.line,
        "column": p.column,
        "pointer": p.pointer,
        "code": p.code,
        "severity": p.severity,
        "message": p.message,
    }
    if p.cell:  # workbooks only: "Sheet!C12" (line is the row, column the column number)
        found["cell"] = p.cell
    return found


def report_json(result: CheckResult, out: IO[str]) -> None:
    payload = {
        "version": 1,
        "files": result.files or 0,
        "records": result.records or 0,
        "errors": result.errors,
        "warnings": result.warnings,
        "problems": [problem_dict(p) for p in result.problems],
    }
    out.write(_dumps(payload))


def _dumps(payload: dict[str, Any]) -> str:
    """Indented JSON, as json.dumps(indent=2, ensure_ascii=False) writes it, by orjson (faster)."""
    options = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    try:
        return orjson.dumps(payload, option=options).decode("utf-8")
    except TypeError:  # a file name that is not UTF-8 (its bytes kept as surrogates): shown escaped
        return orjson.dumps(_printable(payload), option=options).decode("utf-8")


def _printable(value: Any) -> Any:
    """`value` with every string made valid UTF-8: undecodable bytes of a file name as \\xNN."""
    if isinstance(value, str):
        return os.fsencode(value).decode("utf-8", "backslashreplace") if not value.isascii() else value
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    return value


def _uri(file: str) -> str:
    """A SARIF artifact URI: the path with forward slashes; bytes that are not UTF-8 %-encoded."""
    path = file.replace("\\", "/")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return quote(os.fsencode(path), safe="/")
    if ":" in path:  # `x.json:1:1: error[y]: z` would read as a URI scheme, or a place of its own
        return quote(path, safe="/")
    return path


def _escape_github(value: str, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def report_github(result: CheckResult, out: IO[str]) -> None:
    for p in result.problems:
        level = "error" if p.severity == "error" else "warning"
        where = f" (at {p.pointer})" if p.pointer else ""
        if p.cell:
            where += f" (cell {p.cell})"
        out.write(
            f"::{level} file={_escape_github(p.file, True)},line={p.line},col={p.column},"
            f"title={_escape_github(p.code, True)}::{_escape_github(p.message + where)}\n"
        )
    out.write(_summary(result) + "\n")


def report_sarif(result: CheckResult, out: IO[str]) -> None:
    used = sorted({p.code for p in result.problems})
    rules = [
        {
            "id": code,
            "name": "".join(part.capitalize() for part in code.split("-")),
            "shortDescription": {"text": CODES[code].summary},
            "defaultConfiguration": {"level": "error" if CODES[code].severity == "error" else "warning"},
        }
        for code in used
    ]
    rule_index = {code: i for i, code in enumerate(used)}
    results = [
        {
            "ruleId": p.code,
            "ruleIndex": rule_index[p.code],
            "level": "error" if p.severity == "error" else "warning",
            "message": {"text": p.message + (f" (at {p.pointer})" if p.pointer else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(p.file)},
                        "region": {"startLine": max(1, p.line), "startColumn": max(1, p.column)},  # SARIF: >= 1
                    },
                    **({"logicalLocations": [{"name": p.cell}]} if p.cell else {}),
                }
            ],
        }
        for p in result.problems
    ]
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pnp",
                        "version": __version__,
                        "informationUri": "https://pnp.invalid/docs/checks",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    out.write(_dumps(sarif))


REPORTER_BY_NAME: dict[str, Callable[[CheckResult, IO[str]], None]] = {
    "text": report_text,
    "json": report_json,
    "github": report_github,
    "sarif": report_sarif,
}
