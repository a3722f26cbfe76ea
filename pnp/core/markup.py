"""The inline markup of text fields: `*bold*`, `_italic_` and `{icon}` tokens.

One pattern, used by the renderer to draw text and by translation checks to compare a
translation's markup with its source's. No reportlab here.
"""

from __future__ import annotations

import re

MARKUP = re.compile(r"(\*[^*]+\*|_[^_]+_|\{[a-z0-9-]+\})")
# What the check reads as an icon token: anything in braces without spaces, so that `{Fire}` or
# `{fire!}` (never drawn as an icon by MARKUP) is reported rather than printed as it is.
ICON_TOKEN = re.compile(r"\{([^{}\s]*)\}")


def markup_signature(text: str) -> list[str]:
    """What a translation must keep: every icon token by name, and how many bold and italic spans."""
    icons: list[str] = []
    bold = italic = 0
    for part in MARKUP.findall(text):
        if part.startswith("{"):
            icons.append(part)
        elif part.startswith("*"):
            bold += 1
        else:
            italic += 1
    return sorted(icons) + ["*bold*"] * bold + ["_italic_"] * italic


def drawn_text(text: str) -> str:
    """The characters drawn as text: markup marks and icon tokens removed."""
    out: list[str] = []
    for part in MARKUP.split(text):
        if part.startswith("{") and part.endswith("}") and MARKUP.fullmatch(part):
            continue
        if len(part) > 2 and part[0] == part[-1] and part[0] in "*_" and MARKUP.fullmatch(part):
            part = part[1:-1]
        out.append(part)
    return "".join(out)
