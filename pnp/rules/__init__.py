"""Stage 2, the rules (`pnp check` without drawing): schemas -> references -> counts -> located
problems -> reporters. Imports nothing that draws; pnp.verify composes it with pnp.drawing."""
