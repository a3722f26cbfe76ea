"""Stage 7, live preview: `pnp watch` re-checks after every save (watch), keeps each card's
picture by the digest of its inputs (preview), and serves the proof page (serve)."""
