"""pnp.drawing.combine.sheet_count counts one kind's sheets without laying them out; it must give
what laying them out gives (combined_sheets), for every size, bleed, cutting, paper and grid."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from pnp.drawing.combine import Part, combined_sheets, sheet_count
from pnp.drawing.impose import MM, ImpositionError, SheetSpec

PAPERS = [(210 * MM, 297 * MM), (216 * MM, 279 * MM), (297 * MM, 420 * MM)]
SIZES = [(63 * MM, 88 * MM), (88 * MM, 63 * MM), (25 * MM, 25 * MM), (120 * MM, 180 * MM), (44 * MM, 68 * MM)]


@pytest.mark.parametrize(("paper", "size"), itertools.product(PAPERS, SIZES))
def test_one_kind_is_counted_as_it_is_laid_out(paper: tuple[float, float], size: tuple[float, float]) -> None:
    combinations = list(itertools.product(
        (0, 1, 8, 9, 10, 101), (0.0, 3 * MM), (True, False), ("butted", "gutter"), ("", "landscape"), (0, 2),
        ("long", "fold"),
    ))  # fmt: skip
    cases = 0
    for faces, bleed, back, cutting, orientation, columns, duplex in random.Random(7).sample(combinations, 40):
        spec = SheetSpec(*paper, duplex=duplex, cutting=cutting, gutter=2 * MM if cutting == "gutter" else 0.0,
                         orientation=orientation, columns=columns)  # fmt: skip
        part = Part(Path("kind.pdf"), "kind", faces, *size, bleed, back, spec=spec)
        try:
            laid_out = len(combined_sheets([part], spec))
        except ImpositionError:
            with pytest.raises(ImpositionError):
                sheet_count([part], spec)
            continue
        assert sheet_count([part], spec) == laid_out, (faces, bleed, back, cutting, orientation, columns, duplex)
        cases += 1
    assert cases > 10
