"""How alike two short strings are, for did-you-mean hints among many ids.

The score is rapidfuzz's `fuzz.ratio` (the Indel similarity, 0-100: twice the longest common
subsequence over the total length), computed with the bit-parallel LCS of Hyyrö (2004): one
pass over the second string, a few integer operations per character. Ranking the dozen
candidates of a dangling reference this way costs what calling rapidfuzz did, without the
15-20 ms of importing it in every process that checks references.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_COMPARED = 256  # longer strings are not compared: a hint for them is not worth quadratic work


def ratio(a: str, b: str) -> float:
    """The Indel similarity of `a` and `b`, 0 to 100 (100 for two empty strings)."""
    total = len(a) + len(b)
    if not total:
        return 100.0
    return 200.0 * _Subsequences(a).common(b) / total


class _Subsequences:
    """The longest common subsequences of one string with others: where each character occurs
    in it as bits, made once; bit i of the row is cleared when a common subsequence ends at i."""

    def __init__(self, a: str) -> None:
        self.length = len(a)
        self.full = (1 << len(a)) - 1
        self.matches: dict[str, int] = {}
        for i, char in enumerate(a):
            self.matches[char] = self.matches.get(char, 0) | (1 << i)

    def common(self, b: str) -> int:
        """The length of the longest common subsequence with `b`."""
        full = row = self.full
        get = self.matches.get
        for char in b:
            found = row & get(char, 0)
            row = ((row + found) | (row - found)) & full
        return self.length - row.bit_count()


def closest(wanted: str, candidates: Iterable[str], limit: int = 3, cutoff: float = 60.0) -> list[str]:
    """The `limit` candidates most like `wanted` scoring at least `cutoff`, best first (ties in
    sorted order); none when `wanted` is longer than MAX_COMPARED, longer candidates skipped."""
    if len(wanted) > MAX_COMPARED:
        return []
    subsequences = _Subsequences(wanted)
    scored = []
    for candidate in set(candidates):
        total = len(wanted) + len(candidate)
        if len(candidate) > MAX_COMPARED or 200.0 * min(len(wanted), len(candidate)) < cutoff * total:
            continue  # too long, or too unlike in length to reach the cutoff
        score = 200.0 * subsequences.common(candidate) / total if total else 100.0
        if score >= cutoff:
            scored.append((-score, candidate))
    scored.sort()
    return [candidate for _, candidate in scored[:limit]]
