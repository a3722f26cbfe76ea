"""Stage 1, loading: pnp.toml, record files of every format with positions, schemas, layouts,
sheet files, icons -> one `LoadedProject` (pnp.project.loaded) with one record index and one
`lookup`. Loading knows no rule and draws nothing: what it cannot read is a finding on the file."""
