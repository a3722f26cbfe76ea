"""What `pnp check` found: the reporters' input, kept apart from the check pipeline so that
printing a replayed result (pnp.verify.cache) loads no schema, record or validator module."""

from __future__ import annotations

from dataclasses import dataclass

from pnp.core.problems import Problem


@dataclass(frozen=True, slots=True)
class CheckResult:
    problems: tuple[Problem, ...]
    files: int
    records: int
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
