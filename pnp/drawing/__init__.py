"""Stage 2, drawing (beside the rules, never importing them): a layout and a record -> a face
(render), faces -> sheets (impose and shelf, pure geometry) -> PDF (pdf, combine), and what
drawing finds, located at the record field or layout line to edit (findings)."""
