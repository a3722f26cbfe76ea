"""pnp.core.classcache: the methods `@dataclass` makes from kept code are those it compiles itself
(bytecode, constants, names, flags, annotations), for every dataclass a build defines; the second
process compiles nothing; a damaged file or PYTHONDONTWRITEBYTECODE changes nothing but the speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.runpnp import ENV

SCRIPT = r"""
import dataclasses, hashlib, json, sys
from pathlib import Path
mode, folder = sys.argv[1], Path(sys.argv[2])
if mode != "plain":
    from pnp.core import classcache
    classcache.FOLDER = folder
    classcache.compile_once()
import pnp.cli.commands, pnp.outputs.build, pnp.drawing.combine, pnp.drawing.facestore, pnp.verify.run

def shape(code):
    if not hasattr(code, "co_code"):
        return repr(code)
    return (
        code.co_code, tuple(shape(c) for c in code.co_consts), code.co_names, code.co_varnames,
        code.co_freevars, code.co_cellvars, code.co_filename, code.co_name, code.co_qualname,
        code.co_flags, code.co_firstlineno, code.co_linetable, code.co_argcount, code.co_kwonlyargcount,
    )

made = []
for name in sorted(m for m in sys.modules if m.startswith("pnp")):
    for key, value in sorted(vars(sys.modules[name]).items()):
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
            for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
                function = value.__dict__.get(method)
                function = getattr(function, "__wrapped__", function)  # __repr__: reprlib's wrapper
                if hasattr(function, "__code__"):
                    notes = sorted((k, repr(v)) for k, v in function.__annotations__.items())
                    made.append(repr((name, key, method, shape(function.__code__), notes, function.__qualname__)))
compiled = 0
if mode != "plain":
    compiled = len(classcache.COMPILED)
    classcache.keep()
print(json.dumps({"methods": len(made), "digest": hashlib.sha256("\n".join(made).encode()).hexdigest(),
                  "compiled": compiled}))
"""


def made(mode: str, folder: Path, **env: str) -> dict[str, object]:
    base = {k: v for k, v in ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(folder)],
        env={**base, "PYTHONHASHSEED": "0", **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    answer: dict[str, object] = json.loads(ran.stdout)
    return answer


def test_kept_methods_are_the_compiled_ones_and_a_second_start_compiles_nothing(tmp_path: Path) -> None:
    plain = made("plain", tmp_path)
    assert isinstance(plain["methods"], int) and plain["methods"] > 150  # a build's 47 classes, ~5 methods each
    first = made("cache", tmp_path)
    kept = list(tmp_path.glob("dataclass-methods.*.marshal"))
    assert len(kept) == 1
    second = made("cache", tmp_path)
    assert isinstance(first["compiled"], int) and first["compiled"] >= plain["methods"]
    assert second["compiled"] == 0  # every method's code came from the file
    assert first["digest"] == second["digest"] == plain["digest"]

    kept[0].write_bytes(kept[0].read_bytes()[:-100])  # cut short: read as nothing kept
    damaged = made("cache", tmp_path)
    assert damaged["digest"] == plain["digest"] and damaged["compiled"] == first["compiled"]


def test_nothing_is_kept_where_python_writes_no_bytecode(tmp_path: Path) -> None:
    answer = made("cache", tmp_path, PYTHONDONTWRITEBYTECODE="1")
    assert answer["compiled"] and not os.listdir(tmp_path)
