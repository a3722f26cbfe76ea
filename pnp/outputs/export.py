"""`pnp export`: files for somewhere other than the home printer.

- printshop: one card per page at trim + bleed, with TrimBox and BleedBox on every page, backs and
  fronts interleaved in the order print shops ask for; elements outside the safe zone are warned about.
- png: one PNG per card face, rasterised with pypdfium2 from those print-shop pages.
- tts: Tabletop Simulator deck sheets (at most 10 x 7 slots, the last one the hidden face, at most
  4096 px a side) with a back image and a JSON file per sheet giving what to type when importing.
- gallery: a static HTML proof page (Jinja2 template in pnp/templates/), every card as an image with
  its record's fields and its problems, searchable by name, opening from the file system.

There is one drawing path: every face is drawn by `Renderer.draw` onto a print-shop page, and the
images are rasterised from those pages, so every export shows exactly what prints. Like `pnp build`:
a project with errors writes nothing, every file is written atomically, a file whose inputs did
not change is not rewritten (digests in the output folder's manifest), output is deterministic.

The code is in one module per concern, and the names other modules use are re-exported here:
pnp.outputs.export_run (options, the checked project, a plan per kind, drawing and rasterising
the pages), pnp.outputs.printshop (presets, safe zone), pnp.outputs.raster (png, tts) and
pnp.outputs.gallery.
"""

from __future__ import annotations

from pnp.outputs.export_run import ExportOptions as ExportOptions
from pnp.outputs.export_run import ExportResult as ExportResult
from pnp.outputs.export_run import parse_length as parse_length
from pnp.outputs.gallery import run_gallery as run_gallery
from pnp.outputs.printshop import run_printshop as run_printshop
from pnp.outputs.raster import TTS_MAX_PIXELS as TTS_MAX_PIXELS
from pnp.outputs.raster import run_png as run_png
from pnp.outputs.raster import run_tts as run_tts
from pnp.outputs.raster import split_sheets as split_sheets
from pnp.outputs.raster import tts_grid as tts_grid
