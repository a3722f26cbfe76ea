"""`pnp export printshop`: one card per page at trim + bleed, and the print shops' presets and safe zone.

A print shop's file spec (trim size, bleed, safe zone) is a Preset; the safe-zone warnings are
here too, since the print shop is why they matter (the gallery shows them as well).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pnp.core.output import digest
from pnp.core.problems import Problem
from pnp.drawing.findings import place
from pnp.drawing.impose import MM
from pnp.outputs.export_run import INCH, ExportOptions, ExportResult, KindPlan, Session, draw_pages, in_output_run
from pnp.project.config import ConfigError, Project

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, slots=True)
class Preset:
    """A print shop's file spec for one card or token size (points): trim, bleed, safe zone."""

    width: float
    height: float
    bleed: float
    safe: float  # inside the trim: what must not be cut off stays this far from it


# The US print-on-demand card printers ask for 1/8 in bleed and 1/8 in safe zone on their inch
# sizes; European printers for 3 mm bleed and 3 mm safe on millimetre sizes; tokens 2 mm each.
PRESETS: dict[str, Preset] = {
    "poker-us": Preset(2.5 * INCH, 3.5 * INCH, INCH / 8, INCH / 8),  # 2.75 x 3.75 in with bleed
    "bridge-us": Preset(2.25 * INCH, 3.5 * INCH, INCH / 8, INCH / 8),
    "mini-us": Preset(1.75 * INCH, 2.5 * INCH, INCH / 8, INCH / 8),
    "tarot-us": Preset(2.75 * INCH, 4.75 * INCH, INCH / 8, INCH / 8),
    "poker": Preset(63 * MM, 88 * MM, 3 * MM, 3 * MM),  # 69 x 94 mm with bleed
    "bridge": Preset(57 * MM, 89 * MM, 3 * MM, 3 * MM),
    "mini": Preset(44 * MM, 63 * MM, 3 * MM, 3 * MM),
    "tarot": Preset(70 * MM, 120 * MM, 3 * MM, 3 * MM),
    "square": Preset(70 * MM, 70 * MM, 3 * MM, 3 * MM),
    "token-20": Preset(20 * MM, 20 * MM, 2 * MM, 2 * MM),
    "token-25": Preset(25 * MM, 25 * MM, 2 * MM, 2 * MM),
    "token-30": Preset(30 * MM, 30 * MM, 2 * MM, 2 * MM),
    "token-38": Preset(38 * MM, 38 * MM, 2 * MM, 2 * MM),
}


# --- safe zone ---------------------------------------------------------------------------------


def safe_zone_problems(plan: KindPlan, preset: str | None = None) -> list[Problem]:
    """Warnings for drawn elements whose box leaves the safe zone (pnp.drawing.bleedcheck, which
    `pnp check` reports too): the layout's `safe`, or the print shop's with a preset."""
    from pnp.drawing.bleedcheck import safe_findings

    safe, zone = (_preset(preset).safe, f"preset {preset!r}") if preset else (None, None)
    found = safe_findings(plan.renderer, plan.faces, safe, zone)
    return [source.locate(f) for source, f in place(plan.layout, found, [])]


# --- pnp export printshop ---------------------------------------------------------------------


@in_output_run
def run_printshop(project: Project, options: ExportOptions) -> ExportResult:
    """output/<game>/printshop/<kind>.pdf: one face per page at trim + bleed."""
    session = Session(project, options)
    if session.failed:
        return session.result()
    plans = session.plans()
    bleeds = [_printshop_bleed(plan, options) for plan in plans]  # a wrong preset stops before anything is written
    for plan in plans:
        session.problems.extend(safe_zone_problems(plan, options.preset))
    tick = session.progress(plans)
    for plan, bleed in zip(plans, bleeds, strict=True):
        if plan.blocked:
            tick(plan.units)
            continue
        target = project.output / plan.game.folder / "printshop" / f"{plan.kind}.pdf"
        key = digest(plan.key, "printshop", round(bleed, 6), options.order)
        if session.skip_if_fresh(plan, [target], key, tick):
            continue
        drawn = draw_pages(plan, bleed, options.order, f"{plan.game.title}: {plan.kind} (print shop)", tick)
        session.problems.extend(drawn.problems)
        if drawn.failed:
            continue  # the previous file stays as it was
        session.write(target, drawn.pdf, key)
    return session.result()


def _printshop_bleed(plan: KindPlan, options: ExportOptions) -> float:
    renderer = plan.renderer
    bleed = renderer.bleed
    if options.preset:
        preset = _preset(options.preset)
        width, height, bleed = preset.width, preset.height, preset.bleed
        if abs(renderer.width - width) > 0.1 * MM or abs(renderer.height - height) > 0.1 * MM:
            raise ConfigError(
                f"preset {options.preset!r} is for {width / MM:.1f} x {height / MM:.1f} mm cards, but kind "
                f"{plan.kind!r} (layout {plan.layout.name!r}) is {renderer.width / MM:.1f} x "
                f"{renderer.height / MM:.1f} mm; "
                "name the kinds of that size, or give --bleed instead"
            )
    if options.bleed is not None:
        bleed = options.bleed
    return bleed


def _preset(name: str) -> Preset:
    if name not in PRESETS:
        close = difflib.get_close_matches(name, sorted(PRESETS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(f"unknown preset {name!r}; {hint}presets: {', '.join(PRESETS)}")
    return PRESETS[name]
