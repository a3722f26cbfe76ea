"""What the reporters print, for a check, a build or an export alike: the problems, and for a
check the files and records it read. Kept apart from the check pipeline so that printing a
replayed result (pnp.verify.cache) loads no schema, record or validator module."""

from __future__ import annotations

from dataclasses import dataclass

from pnp.core.problems import Problem


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The reporters' one input. `files` and `records`: what a check read; None for a build or an
    export, whose problems come without counts."""

    problems: tuple[Problem, ...]
    files: int | None = None
    records: int | None = None
    strict: bool = False

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity == "warning")

    @property
    def exit_code(self) -> int:
        if self.errors or (self.strict and self.warnings):
            return 1
        return 0
