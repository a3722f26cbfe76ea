"""Write a case's expected.json from what `pnp check` reports now. Review the diff afterwards.

python tests/cases/regen.py CASE [CHECK ARGS...]     # e.g. schema-homm3.spell --ignore references
python tests/cases/regen.py --all                     # every case, keeping each case's args
(a CASE under tests/content/cases/ is found there)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from casekit import CASES, CONTENT_CASES, case_names, load_expected, run_case  # noqa: E402


def regen(name: str, args: list[str] | None) -> None:
    folder = CASES / name if (CASES / name).is_dir() or not (CONTENT_CASES / name).is_dir() else CONTENT_CASES / name
    old = load_expected(folder) if (folder / "expected.json").exists() else {}
    spec: dict[str, object] = {"args": args if args is not None else old.get("args", [])}
    for key in ("base", "generate", "description"):
        if key in old:
            spec[key] = old[key]
    outcome = run_case(folder, spec, real_process=True)  # the real `python -m pnp`: the reference
    spec["exit"] = outcome.exit_code
    if outcome.problems is not None:
        spec["problems"] = outcome.problems
    else:
        spec["stdout"] = outcome.stdout
    (folder / "expected.json").write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{name}: exit {outcome.exit_code}, {len(outcome.problems or [])} problems")


if __name__ == "__main__":
    if sys.argv[1:] == ["--all"]:
        for case in [*case_names(CASES), *case_names(CONTENT_CASES)]:
            regen(case, None)
    else:
        regen(sys.argv[1], sys.argv[2:] or None)
