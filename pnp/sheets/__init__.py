"""Setup sheets, booklets and reference aids, drawn from sheet files (docs/sheets.md).

`spec` reads and checks sheet files (no reportlab: pnp check uses it); `blocks` turns blocks
into platypus flowables; `page` is the page they are printed on; `build` plans and writes the
PDFs. Importing this package loads nothing heavy: import the submodule you need.
"""
