"""`pnp watch`: re-check the project after every save, rebuild what changed, feed the preview.

Each round reloads and re-checks the whole project (about 0.1 s at 10,000 records), so its
problems are always those `pnp check` would print. What is expensive is drawn only when its
inputs changed: each face's preview image is keyed by the face's digest (pnp.drawing.faces: its
record, its layout, the files it draws by content, the records it shows through `ref`), so an
edit redraws the faces it touches and a sheet file or an unrelated record redraws none; `pnp
build`'s manifest rebuilds only the kind PDFs whose inputs changed. A round writes the kinds'
own PDFs only (in place when it ends); the combined files, read-me pages and sheets, which read
every kind, are built once the saves pause for `REST_QUIET_S`, so that a run of saves is not
held up by them; that build runs in a child process (pnp.live.rest), and a save made while it
runs abandons it, so that the save's round starts at once (the rest is built after the next
pause). A file saved half-way is a problem of that round, never the end of the watch.
The preview's model is pnp.live.preview.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pnp.core.problems import Problem
from pnp.live.preview import PREVIEW_DPI, Checked, Preview, Snapshot, load_and_check, problem_line
from pnp.live.rest import RestChild, RestOutcome, can_abandon, discard_partial, outcome_of
from pnp.project.config import ConfigError, Project, load_project


def rebuild_outputs(project: Project, kinds_only: bool = False) -> tuple[list[Path], list[Problem]]:
    """`pnp build` (incremental: only outputs whose inputs changed are drawn and written);
    `kinds_only`: each kind's own PDF, not the combined files and sheets."""
    from typing import cast

    from pnp.drawing.impose import Duplex
    from pnp.outputs.build import BuildOptions, run_build

    options = BuildOptions(paper=project.paper, duplex=cast(Duplex, project.duplex), kinds_only=kinds_only)
    result = run_build(project, options)
    return list(result.written), list(result.problems)


def prepare_rest_builds() -> None:
    """What every rest build imports, imported once here, before the children are forked."""
    from pnp.outputs.build import preload_whole_build

    preload_whole_build()


REST_QUIET_S = 2.0
"""The combined files and sheets are built once no save came for this long after a round."""


# --- rounds and the watch loop -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WatchOptions:
    serve: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    build: bool = True
    dpi: int = PREVIEW_DPI


class Watcher:
    """One project under watch: runs rounds and reports them."""

    def __init__(self, project_file: Path, options: WatchOptions, out: IO[str]) -> None:
        self.project_file = project_file
        self.options = options
        self.out = out
        self.project = load_project(explicit=project_file)
        self.preview = Preview(options.dpi)
        self.last_lines: tuple[str, ...] | None = None
        self.config_broken = False
        self.rest_pending = False  # the kinds' PDFs are built; the combined files and sheets are not
        self.rest_problems: tuple[Problem, ...] = ()  # what building those found last time
        self.round_ended = 0.0  # time.monotonic() at the end of the last round
        self.checked: Checked | None = None  # the last round's
        self.round_problems: tuple[Problem, ...] = ()  # what it found itself (check, drawing, kinds' PDFs)
        self.rest_child: RestChild | None = None  # the rest build under way, in a child a save abandons
        self.rest_prepared = False  # the modules of the rest build are imported (once, before the first child)
        self.rests_abandoned = 0  # rest builds a save cut short (tests and the benchmark count them)

    def classify(self, paths: Iterable[Path]) -> None:
        """A changed pnp.toml is read again. (Images and fonts need nothing here: each face's
        digest holds the content of the files it draws, pnp.drawing.faces.)"""
        for path in paths:
            if path == self.project_file:
                self.config_broken = True  # read again below
        if self.config_broken:
            self.project = load_project(explicit=self.project_file)
            self.config_broken = False

    def round(self, changed: Iterable[Path] = ()) -> None:
        """Check, publish the preview, then rebuild; print the round's problems."""
        self.rest_pending = False
        try:
            self.classify(changed)
            checked = load_and_check(self.project)
        except ConfigError as err:
            self.config_broken = True  # until pnp.toml loads again, every round reads it first
            self._print((), 0, 0, f"pnp watch: error: {err}")
            self.preview.publish(_config_snapshot(self.preview.snapshot, err, self.project))
            return
        problems = checked.problems
        snapshot = self.preview.update(checked, problems)
        drawn = self.preview.render_changed(snapshot)
        if drawn:
            problems = tuple(sorted(dict.fromkeys([*problems, *drawn]), key=Problem.sort_key))
            snapshot = self.preview.update(checked, problems)
        self.preview.publish(snapshot)
        self.round_problems = problems
        if self.options.build and not any(p.severity == "error" for p in problems):
            _, built = rebuild_outputs(self.project, kinds_only=True)
            self.rest_pending = True
            more = [p for p in built if p not in problems]
            self.round_problems = (*problems, *more)
            more += [p for p in self.rest_problems if p not in problems and p not in more]  # until built again
            if more:
                problems = tuple(sorted(dict.fromkeys([*problems, *more]), key=Problem.sort_key))
                again = self.preview.update(checked, problems)
                self.preview.publish(again)
        self.checked = checked
        self._print(problems, len(checked.loaded.files), checked.records)
        self.round_ended = time.monotonic()

    def rest_due(self) -> bool:
        """Whether the combined files and sheets are to be built now: saves have paused."""
        return self.rest_pending and time.monotonic() - self.round_ended >= REST_QUIET_S

    def build_rest(self, _changed: Iterable[Path] = ()) -> None:
        """The rest of `pnp build` after the rounds' kind PDFs (combined files, read-me pages,
        sheets), here and now, until it ends."""
        self.rest_pending = False
        self._rest_done(outcome_of(self._rest_problems))

    def start_rest(self, _changed: Iterable[Path] = ()) -> None:
        """The rest build, in a child process that a save may abandon (here, where there is no fork)."""
        if can_abandon():
            if not self.rest_prepared:
                prepare_rest_builds()
                self.rest_prepared = True
            try:
                self.rest_child = RestChild(self._rest_problems)
                self.rest_pending = False
                return
            except OSError:  # no process to spare: built here
                pass
        self.build_rest()

    def collect_rest(self, _changed: Iterable[Path] = ()) -> bool:
        """Report the rest build if it has ended; whether it has (or none runs)."""
        child = self.rest_child
        outcome = child.poll() if child is not None else None
        if outcome is None:
            return child is None
        self.rest_child = None
        self._rest_done(outcome)
        return True

    def abandon_rest(self, _changed: Iterable[Path] = ()) -> None:
        """A save came: the rest build under way is killed and what it staged removed (every
        output stays the old complete file or is the new complete one); the save's round makes
        it due again. One that had ended meanwhile is reported instead."""
        child = self.rest_child
        if child is None or self.collect_rest():
            return
        self.rest_child = None
        if child.abandon():
            self.rests_abandoned += 1
        try:
            discard_partial(self.project.output)
        except (OSError, ConfigError) as err:  # the next build's run cleans up again, or reports it
            print(f"pnp watch: {err}", file=sys.stderr, flush=True)

    def _rest_problems(self) -> tuple[Problem, ...]:
        return tuple(rebuild_outputs(self.project)[1])

    def _rest_done(self, outcome: RestOutcome) -> None:
        """What the rest build found that the last round did not print is printed (and shown)."""
        if outcome.failure:
            print(
                f"pnp watch: internal error: {outcome.failure} (set PNP_DEBUG=1 for a traceback, and please report it)",
                file=sys.stderr,
                flush=True,
            )
        if outcome.config_changed or outcome.failure:
            return  # pnp.toml changed since the round: the next round reports it
        rest = tuple(p for p in outcome.problems if p not in self.round_problems)
        if rest == self.rest_problems:
            return
        self.rest_problems = rest
        if self.checked is not None:
            problems = tuple(sorted(dict.fromkeys([*self.round_problems, *rest]), key=Problem.sort_key))
            self.preview.publish(self.preview.update(self.checked, problems))
        lines = [problem_line(p) for p in rest if problem_line(p) not in set(self.last_lines or ())]
        self.out.write("".join(line + "\n" for line in lines))
        self.out.flush()
        self.last_lines = (*(self.last_lines or ()), *lines)

    def _print(self, problems: tuple[Problem, ...], files: int, records: int, config_error: str = "") -> None:
        """The round's problems as `pnp check` prints them, and its summary line."""
        lines = tuple(problem_line(p) for p in problems) + ((config_error,) if config_error else ())
        errors = sum(1 for p in problems if p.severity == "error") + bool(config_error)
        warnings = sum(1 for p in problems if p.severity == "warning")
        printed = set(self.last_lines or ())
        for line in lines:
            if line not in printed:  # a problem already shown, unchanged, is not printed again
                self.out.write(line + "\n")
        if not lines and self.last_lines:
            self.out.write("pnp watch: all problems fixed\n")
        summary = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        self.out.write(f"{files} files, {records} records: {summary}\n")
        self.out.flush()
        self.last_lines = lines


def _config_snapshot(previous: Snapshot, err: ConfigError, project: Project) -> Snapshot:
    try:
        shown = project.display(project.root / "pnp.toml")
    except OSError:  # the working directory was deleted with the project
        shown = str(project.root / "pnp.toml")
    problem = Problem(shown, 1, 1, "", "config", "error", str(err))
    return Snapshot(previous.generation + 1, previous.cards, (problem,), (), previous.by_digest)


def watch_filter(project: Project) -> Callable[[Any, str], bool]:
    """Every file of the project except outputs, hidden files and editors' temporary files."""
    from watchfiles import DefaultFilter

    output = str(project.output)
    default = DefaultFilter(ignore_paths=(output,))

    def accept(change: Any, path: str) -> bool:
        name = Path(path).name
        return bool(default(change, path)) and not name.startswith(".") and not name.endswith((".tmp", ".part"))

    return accept


def _guarded(round_: Callable[[Iterable[Path]], object], changed: Iterable[Path]) -> None:
    """A round that fails on a bug in pnp says so in one line, and the watch goes on."""
    import os

    try:
        round_(changed)
    except Exception as err:  # noqa: BLE001 - the promise is: never a traceback, never an end on a save
        if os.environ.get("PNP_DEBUG"):
            raise
        print(
            f"pnp watch: internal error: {type(err).__name__}: {err} (set PNP_DEBUG=1 for a traceback, and please report it)",
            file=sys.stderr,
            flush=True,
        )


WATCH_TICK_MS = 250
"""How often the watch loop wakes when nothing changes (it also bounds the start-up wait)."""


def run_watch(project_file: Path, options: WatchOptions, out: IO[str] = sys.stdout) -> int:
    """Watch until Ctrl-C (exit status 130). With `serve`, also serve the proof page."""
    from watchfiles import watch

    watcher = Watcher(project_file, options, out)
    server = None
    if options.serve:
        from pnp.live.serve import start_server

        server = start_server(watcher.preview, options.host, options.port)
        host, port = str(server.server_address[0]), int(server.server_address[1])
        shown = f"[{host}]" if ":" in str(host) else host
        print(f"pnp watch: serving the proof page on http://{shown}:{port}/", file=sys.stderr, flush=True)
    stop = threading.Event()
    try:
        # The file watcher starts before the first round, so a save made while the first
        # round runs is seen: the generator's first value (a timeout's empty set at the
        # latest) comes once the watches are in place.
        changes_seen = watch(
            watcher.project.root,
            watch_filter=watch_filter(watcher.project),
            stop_event=stop,
            yield_on_timeout=True,
            rust_timeout=WATCH_TICK_MS,
        )
        started = False
        for changes in changes_seen:
            if not started:
                started = True
                _guarded(watcher.round, ())
                print("pnp watch: watching for changes (Ctrl-C to stop)", file=sys.stderr, flush=True)
            elif changes:
                _guarded(watcher.abandon_rest, ())  # a save during the rest build: its round does not wait
                _guarded(watcher.round, [Path(path) for _, path in changes])
            elif watcher.rest_child is not None:
                _guarded(watcher.collect_rest, ())
            elif watcher.rest_due():  # the saves paused: the combined files and sheets
                _guarded(watcher.start_rest, ())
    except KeyboardInterrupt:
        stop.set()
        watcher.abandon_rest()
        if server is not None:
            server.stop()
        print("pnp watch: stopped", file=sys.stderr, flush=True)
        return 130
    return 0
