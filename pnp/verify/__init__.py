"""Stage 5, what `pnp check` reports: the rules over the loaded project composed with what drawing finds.

`pnp.verify.run` composes pnp.rules (schemas, references, counts), pnp.drawing (cards drawn as
`pnp build` draws them), pnp.sheets (sheets laid out) and pnp.translation (catalogs), so that
what check passes, build builds. `pnp.verify.cache` replays the last result when nothing it read
changed. This package file imports nothing: the replay path stays light.
"""
