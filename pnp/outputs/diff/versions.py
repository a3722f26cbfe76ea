"""The two versions `pnp diff` compares: a revision read out of git into a private temporary
folder (pnp.outputs.diff.gitsource), and the working tree or a second revision.

A version that cannot be read (a pnp.toml, record file or layout that does not parse) stops the diff with a
`BrokenVersion`: its problems, each to be labelled with the version they come from
(`v1.2:cards/x.json:3:5: error[...]`), never a traceback.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from pnp.core.problems import ConfigError, Problem
from pnp.outputs.diff.compare import Version, load_version
from pnp.outputs.diff.gitsource import extract, latest_tag, repository, resolve

WORKING_TREE = "working tree"


class BrokenVersion(ConfigError):
    """A version with errors: `problems` as found in it, `label` the version (None: the working
    tree, whose files are where they are)."""

    def __init__(self, label: str | None, problems: tuple[Problem, ...], message: str = "") -> None:
        count = f"{len(problems)} error{'s' if len(problems) != 1 else ''}"
        super().__init__(message or f"{label or WORKING_TREE}: {count}; fix them, then compare again")
        self.label = label
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Request:
    """What to compare: `revisions` as given (none: HEAD; one: it with the working tree; two:
    them), or the latest tag with the working tree."""

    revisions: tuple[str, ...] = ()
    since_tag: bool = False


@contextmanager
def opened_versions(root: Path, request: Request) -> Iterator[tuple[Version, Version]]:
    """Both versions loaded, the revisions' files in a temporary folder removed on leaving."""
    if request.since_tag and request.revisions:
        raise ConfigError("--since-tag compares the latest tag with the working tree; give no revision with it")
    if len(request.revisions) > 2:
        raise ConfigError("pnp diff takes at most two revisions: pnp diff [REV] [REV2]")
    repo = repository(root)
    revisions = (latest_tag(repo),) if request.since_tag else request.revisions or ("HEAD",)
    commits = [resolve(repo, revision) for revision in revisions]  # every name checked before any work
    with tempfile.TemporaryDirectory(prefix="pnp-diff-") as temporary:
        versions = []
        for n, (revision, commit) in enumerate(zip(revisions, commits, strict=True)):
            folder = Path(temporary) / f"v{n}"
            folder.mkdir()
            extract(repo, commit, folder)
            versions.append(_load(folder.resolve(), revision))
        if len(versions) == 1:
            versions.append(_load(root, None))
        yield versions[0], versions[1]


def _load(root: Path, revision: str | None) -> Version:
    if not (root / "pnp.toml").is_file():
        raise ConfigError(
            f"{revision}: no pnp.toml in the project's folder at that revision; it was not a pnp project then"
        )
    try:
        version = load_version(root, revision or WORKING_TREE)
    except ConfigError as err:
        if err.problems:
            raise BrokenVersion(revision, _in_project(root, revision, err.problems)) from None
        message = _named(root, revision, str(err))
        raise ConfigError(f"{revision}: {message}" if revision else message) from None
    errors = tuple(p for p in version.problems if p.severity == "error")
    if errors:
        raise BrokenVersion(revision, _in_project(root, revision, errors))
    return version


def _named(root: Path, revision: str | None, text: str) -> str:
    """`text` with a revision's temporary folder left out: its files named from the project's folder."""
    if not revision:
        return text
    relative = os.path.relpath(root)  # how pnp shows it when run from a folder above it (/tmp)
    if not relative.startswith(".."):
        text = text.replace(relative + "/", "") if text.startswith(relative + "/") else text
    return text.replace(str(root) + "/", "").replace(str(root), ".")


def _in_project(root: Path, revision: str | None, problems: tuple[Problem, ...]) -> tuple[Problem, ...]:
    return tuple(
        replace(p, file=_named(root, revision, p.file), message=_named(root, revision, p.message)) for p in problems
    )
