"""`pnp new "Ember Wild"`: a fresh project for the user's own game, named after it.

The template (pnp/scaffold/) holds placeholders filled here: __NAME__ (the game's name as
typed), __DRAWN_NAME__ (the same for layout text, see _fill), __SLUG__ (its folder name, `ember-wild`), __PREFIX__ (its kind prefix, `emberwild`:
kinds are PREFIX.KIND and a prefix has no hyphen), __VERSION__ (this pnp) and __REQUIREMENT__
(what CI can pip install this pnp from, see install_requirement). A path part
named `dot-X` becomes `.X`, so the template carries no hidden files a packager could skip.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

from pnp import __version__
from pnp.project.config import ConfigError

TEMPLATE = Path(__file__).resolve().parents[1] / "scaffold"
# In these the name is written inside a double-quoted string, so it is escaped as JSON escapes it
# (also valid in TOML basic strings and YAML double-quoted scalars).
QUOTED_SUFFIXES = {".json", ".toml", ".yml", ".yaml"}
PLACEHOLDER = re.compile(r"__(NAME|DRAWN_NAME|SLUG|PREFIX|VERSION|REQUIREMENT)__")


@dataclass(frozen=True, slots=True)
class GameName:
    """The names a new project takes from what the user typed."""

    title: str
    slug: str
    prefix: str


def game_name(typed: str) -> GameName:
    """'Ember Wild' -> Ember Wild, ember-wild, emberwild; accents are dropped from slug and prefix."""
    title = " ".join(typed.split())
    if not title or any(unicodedata.category(c).startswith("C") for c in typed if c not in " \t"):
        raise ConfigError(f"{typed!r}: give the game a printable name, such as 'Ember Wild'")
    ascii_name = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii").lower()
    words = re.findall(r"[a-z0-9]+", ascii_name)
    if not words:
        raise ConfigError(
            f"{typed!r}: the name needs at least one Latin letter or digit for its kind prefix; "
            "for example pnp new ember-wild --name 'Your Title'"
        )
    return GameName(title=title, slug="-".join(words), prefix="".join(words)[:40])


def _fill(text: str, name: GameName, quoted: bool) -> str:
    """The template's placeholders replaced in one pass (a name holding '__SLUG__' stays as typed)."""
    # Layout text is a template with inline markup: the name drawn on the card back loses the
    # characters that would make it one ({ for templates and icons, * and _ for emphasis).
    drawn = "".join(c for c in name.title if c not in "{}*_").strip() or name.slug
    values = {
        "NAME": name.title,
        "DRAWN_NAME": drawn,
        "SLUG": name.slug,
        "PREFIX": name.prefix,
        "VERSION": __version__,
        "REQUIREMENT": install_requirement(),
    }
    if quoted:
        values = {key: json.dumps(value, ensure_ascii=False)[1:-1] for key, value in values.items()}
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], text)


def install_requirement() -> str:
    """What another machine can `pip install` this pnp from, or "" when it cannot (a local folder or file)."""
    try:
        recorded = metadata.distribution("pnp").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return ""
    return requirement_from_direct_url(recorded or "")


def requirement_from_direct_url(recorded: str) -> str:
    """A PEP 508 requirement from an installed distribution's direct_url.json (PEP 610): a VCS
    URL at the installed commit, or an archive's https URL; never a local path or credentials."""
    try:
        data = json.loads(recorded)
    except ValueError:
        return ""
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not re.fullmatch(r"[A-Za-z0-9+.:/@%~_-]+", url):
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "ssh") or parts.password or (parts.username and parts.username != "git"):
        return ""
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        kind, commit = vcs.get("vcs"), vcs.get("commit_id")
        if kind in ("git", "hg") and isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{7,64}", commit):
            return f"pnp @ {kind}+{url}@{commit}"
        return ""
    return f"pnp @ {url}" if "archive_info" in data and parts.scheme == "https" else ""


def _target_name(part: str, name: GameName) -> str:
    part = "." + part[len("dot-") :] if part.startswith("dot-") else part
    return part.replace("__PREFIX__", name.prefix)


def new_project_target(path: Path, name: str | None) -> tuple[Path, str]:
    """(folder, game name) for `pnp new PATH [--name NAME]`.

    `Ember Wild` -> (ember-wild, Ember Wild); with --name, PATH is the folder as given; `.` (an
    empty folder to fill) keeps the folder and takes the game's name from it.
    """
    if name is not None:
        return path, name
    if path.name in ("", ".", ".."):
        return path, Path.cwd().joinpath(path).resolve().name
    return path.parent / game_name(path.name).slug, path.name


def scaffold(directory: Path, title: str | None = None) -> list[Path]:
    """Write the template project into `directory` (which must not exist or be empty).

    The game is named `title`, or after the folder when no title is given.
    """
    name = game_name(title if title is not None else directory.name)
    try:
        return _write_template(directory, name)
    except OSError as err:  # a dangling link, a name too long, a place that cannot be written
        where = _short(str(err.filename or directory))
        why = "a file is in the way" if isinstance(err, FileExistsError) else err.strerror
        raise ConfigError(f"{where}: cannot create the project there: {why}; choose another folder") from None
    except ValueError as err:  # a NUL byte in the name
        raise ConfigError(f"{_short(str(directory))}: cannot create the project there: {err}") from None


def _short(name: str) -> str:
    return name if len(name) <= 120 else name[:100] + "..." + name[-17:]


def _write_template(directory: Path, name: GameName) -> list[Path]:
    if directory.is_symlink():  # even one pointing nowhere: pnp would create files wherever it points
        raise ConfigError(f"{directory}: is a symbolic link; choose a new folder (not a link)")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ConfigError(f"{directory}: already exists and is not empty; choose a new folder")
    created: list[Path] = []
    for source in sorted(TEMPLATE.rglob("*")):
        if source.is_dir() or "__pycache__" in source.parts:
            continue
        relative = source.relative_to(TEMPLATE)
        target = directory.joinpath(*(_target_name(part, name) for part in relative.parts))
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8")
        target.write_text(_fill(text, name, source.suffix in QUOTED_SUFFIXES), encoding="utf-8")
        created.append(target)
    return created
