"""Stage 6, outputs: `pnp build` (cut sheets, combined files, sheets), `pnp export` (print
shop, PNG, Tabletop Simulator, gallery, records as tables), `pnp new` and `pnp init-schema`."""
