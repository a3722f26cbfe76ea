"""pnp.core.similar against rapidfuzz, the library it replaced: the same scores and rankings."""

from __future__ import annotations

import random

from rapidfuzz import fuzz, process

from pnp.core.similar import MAX_COMPARED, closest, ratio


def _word(rng: random.Random, longest: int) -> str:
    return "".join(rng.choice("ab-0é𝔸") for _ in range(rng.randrange(longest)))


def test_ratio_is_rapidfuzz_ratio() -> None:
    rng = random.Random(31)
    for _ in range(20_000):
        a, b = _word(rng, 14), _word(rng, 14)
        assert abs(ratio(a, b) - fuzz.ratio(a, b)) < 1e-9, (a, b)
    long_a, long_b = "x" * 70 + "card-1", "card-1" + "y" * 90  # past one 64-bit word
    assert abs(ratio(long_a, long_b) - fuzz.ratio(long_a, long_b)) < 1e-9


def test_closest_ranks_as_rapidfuzz_extract() -> None:
    rng = random.Random(39)
    for _ in range(3_000):
        wanted = _word(rng, 10)
        candidates = [_word(rng, 10) for _ in range(12)]
        scored = process.extract(wanted, sorted(set(candidates)), scorer=fuzz.ratio, limit=None, score_cutoff=60)
        expected = [choice for choice, _, _ in sorted(scored, key=lambda s: (-s[1], s[0]))[:3]]
        assert closest(wanted, candidates) == expected, (wanted, candidates)


def test_typical_id_typos_are_found_first() -> None:
    ids = [f"card-{n:06d}" for n in range(10_070, 10_085)]
    assert closest("card-100077", ids)[0] == "card-010077"
    assert closest("crad-010080", ids)[0] == "card-010080"
    assert closest("zzzz", ids) == []


def test_overlong_strings_are_not_compared() -> None:
    huge = "a" * (MAX_COMPARED + 1)
    assert closest(huge, [huge, "a"]) == []
    assert closest("a" * 10, [huge, "a" * 9]) == ["a" * 9]
