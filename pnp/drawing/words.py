"""Text as words: markup parsed into runs, words measured once, lines broken greedily, words encoded once.

These are the caches that make shrink-to-fit cheap enough for 10,000 cards: a word's width is
measured at unit size once (any size is then a multiplication), and a word's PDF encoding is made
once per document. pnp.drawing.textbox sets a text element with them; the sheets use the markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas

from pnp.core.markup import MARKUP
from pnp.drawing.elements import Icon
from pnp.drawing.fonts import Family

MARKUP_CHARS = frozenset("*_{\n")


def is_plain(text: str) -> bool:
    """Whether `text` has none of MARKUP_CHARS (no markup, one paragraph): four substring
    searches, not a set look-up for every character."""
    return not ("*" in text or "_" in text or "{" in text or "\n" in text)


@lru_cache(maxsize=65536)
def unit_width(text: str, font: str) -> float:
    return float(stringWidth(text, font, 1.0))


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of text in one style (bold, italic), or an icon, as a text's markup splits it."""

    text: str
    bold: bool
    italic: bool
    icon: Icon | None = None


def parse_markup(text: str, icons: dict[str, Icon], bold: bool = False, italic: bool = False) -> list[Run]:
    """*bold*, _italic_ and {icon} tokens; everything else is plain text."""
    runs: list[Run] = []
    for part in MARKUP.split(text):
        if not part:
            continue
        if part.startswith("*") and part.endswith("*") and len(part) > 2:
            runs.append(Run(part[1:-1], True, italic))
        elif part.startswith("_") and part.endswith("_") and len(part) > 2:
            runs.append(Run(part[1:-1], bold, True))
        elif part.startswith("{") and part[1:-1] in icons:
            runs.append(Run(part, bold, italic, icons[part[1:-1]]))
        else:
            runs.append(Run(part, bold, italic))
    return runs


class TextSetter:
    """PDF text operators for one document's embedded fonts: each (font, word) encoded once.

    reportlab's text object re-encodes every string it shows (the font's subset mapping, then
    PDF escaping); a word met again costs a dictionary look-up here. The cache is bounded.
    """

    LIMIT = 200_000
    BLOCKS = 20_000  # text blocks kept (`keep`)
    BLOCK_TEXT = 200  # characters at most of a text kept as a block: longer text seldom comes again

    def __init__(self, canvas: Canvas) -> None:
        self.doc = canvas._doc
        self.escape = canvas._escape
        self.words: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self.names: dict[tuple[str, int], str] = {}
        self.blocks: dict[tuple[Any, ...], tuple[object, str, tuple[tuple[str, int], ...]]] = {}

    def encoded(self, font: str, text: str) -> list[tuple[int, str]]:
        """`text` in `font` as (subset, escaped bytes) runs, encoded once per document."""
        chunks = self.words.get((font, text))
        if chunks is None:
            if len(self.words) >= self.LIMIT:
                self.words.clear()
            face = getFont(font)
            chunks = [(subset, self.escape(data)) for subset, data in face.splitString(text, self.doc)]
            self.words[(font, text)] = chunks
        return chunks

    def add(self, pieces: list[tuple[str, int, str]], font: str, text: str) -> None:
        """Append `text` in `font` to a line's pieces, joining it to the last piece when it can."""
        for subset, escaped in self.encoded(font, text):
            if pieces and pieces[-1][0] == font and pieces[-1][1] == subset:
                pieces[-1] = (font, subset, pieces[-1][2] + escaped)
            else:
                pieces.append((font, subset, escaped))

    def line(self, words: list[Word]) -> list[tuple[str, int, str]]:
        """The pieces of a line without icons, as `add` makes them word by word (each space in the
        font of the word after it): the space and its word encoded as one, each piece joined once."""
        pieces: list[tuple[str, int, str]] = []
        font, subset, parts = "", -1, []
        known = self.words.get
        for i, word in enumerate(words):
            text = " " + word.text if i and word.space_before else word.text
            chunks = known((word.font, text))
            if chunks is None:
                chunks = self.encoded(word.font, text)
            for chunk_subset, escaped in chunks:
                if word.font == font and chunk_subset == subset:
                    parts.append(escaped)
                else:
                    if parts:
                        pieces.append((font, subset, "".join(parts)))
                    font, subset, parts = word.font, chunk_subset, [escaped]
        if parts:
            pieces.append((font, subset, "".join(parts)))
        return pieces

    def emit(
        self,
        ops: list[str],
        pieces: list[tuple[str, int, str]],
        current: tuple[str, int],
        size: str,
        named: set[tuple[str, int]] | None = None,
    ) -> tuple[str, int]:
        """Show the pieces, setting a font (subset) only when it changes; the font in use after.
        `named` collects the fonts (subsets) set."""
        for font, subset, escaped in pieces:
            if (font, subset) != current:
                current = (font, subset)
                ops.append(f"{self.name(current)} {size} Tf")
                if named is not None:
                    named.add(current)
            ops.append(f"({escaped}) Tj")
        return current

    def name(self, font_subset: tuple[str, int]) -> str:
        """The PDF resource name of a font's subset, asked of the font once per face (pnp.drawing.facestore
        clears `names` before each face it keeps, so that it sees every font the face shows)."""
        name = self.names.get(font_subset)
        if name is None:
            name = self.names[font_subset] = getFont(font_subset[0]).getSubsetInternalName(font_subset[1], self.doc)
        return name

    def block(self, key: tuple[Any, ...], element: object) -> str | None:
        """The operators kept for a text block (`keep`) drawn before in this document, its fonts
        named again as showing it would name them; None when there are none."""
        kept = self.blocks.get(key)
        if kept is None or kept[0] is not element:
            return None
        for font_subset in kept[2]:
            self.name(font_subset)
        return kept[1]

    def keep(self, key: tuple[Any, ...], element: object, ops: str, named: set[tuple[str, int]]) -> None:
        """Keep a text block's operators for `block`: text met again (a stat's value, a repeated
        line) is set once per document. `element` is held, so that its id in `key` names no other."""
        if len(self.blocks) >= self.BLOCKS:
            self.blocks.clear()
        self.blocks[key] = (element, ops, tuple(sorted(named)))


@lru_cache(maxsize=1024)
def fill_op(color: Color) -> str:
    """The operator setting a fill colour (as canvas.setFillColor writes it for an RGB colour)."""
    return f"{fp_str(color.red, color.green, color.blue)} rg"


@dataclass(frozen=True, slots=True)
class Word:
    """A word to lay out: its font, its width at size 1 (scaled when text shrinks to fit)."""

    text: str
    font: str
    width1: float  # width at size 1
    space_before: bool
    icon: Icon | None = None


@lru_cache(maxsize=65536)
def plain_word(text: str, font: str) -> Word:
    """A word of plain text, a space before it: made once (a Word is immutable, and words come again)."""
    return Word(text, font, unit_width(text, font), True)


def paragraph_words(runs: list[Run], family: Family) -> list[list[Word]]:
    """Paragraphs of words (explicit newlines split paragraphs)."""
    paragraphs: list[list[Word]] = [[]]
    pending_space = False
    for run in runs:
        font = family.pick(run.bold, run.italic)
        if run.icon is not None:
            paragraphs[-1].append(Word(run.text, font, 1.25, pending_space, run.icon))
            pending_space = False
            continue
        for i, line in enumerate(run.text.split("\n")):
            if i > 0:
                paragraphs.append([])
                pending_space = False
            pieces = line.split(" ")
            for j, piece in enumerate(pieces):
                if j > 0:
                    pending_space = True
                if piece:
                    paragraphs[-1].append(Word(piece, font, unit_width(piece, font), pending_space))
                    pending_space = False
    return paragraphs


def wrap(paragraphs: list[list[Word]], width: float, size: float, wrap_lines: bool) -> list[list[Word]] | None:
    """Greedy line breaking at `size`; None when a single word is wider than the box."""
    lines: list[list[Word]] = []
    limit = width + 0.01
    space_font, space = "", 0.0  # the width of a space at `size` in the font it was last measured in
    for words in paragraphs:
        line: list[Word] = []
        used = 0.0
        for word in words:
            w = word.width1 * size
            if line and word.space_before:
                if word.font != space_font:
                    space_font, space = word.font, unit_width(" ", word.font) * size
                extra = w + space
            else:
                extra = w + 0.0
            if line and wrap_lines and used + extra > limit:
                lines.append(line)
                line, used = [word], w
            else:
                line.append(word)
                used += extra
            if w > limit:
                return None
        lines.append(line)
    if not wrap_lines and any(line_width(line, size) > limit for line in lines):
        return None
    return lines


def line_width(line: list[Word], size: float) -> float:
    """Width of a line: each space in the font of the word after it, as it is drawn."""
    terms = []
    space_font, space = "", 0.0
    for i, word in enumerate(line):
        if i and word.space_before:
            if word.font != space_font:
                space_font, space = word.font, unit_width(" ", word.font) * size
            terms.append(word.width1 * size + space)
        else:
            terms.append(word.width1 * size + 0.0)
    return sum(terms)
