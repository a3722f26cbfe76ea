"""Stage 3, sheets: setup sheets, booklets and reference aids from sheet files (docs/sheets.md):
planned from their templates (templates), laid out block by block into platypus flowables
(blocks, one handler per block type), on pages (page), built and digested (build, inputs)."""
