"""pnp: check and render print-and-play card and token records."""

__version__ = "0.1.0"
