"""The methods `@dataclass` writes, compiled once and kept beside pnp's bytecode, not at every start.

`@dataclass` writes each method it adds (`__init__`, `__repr__`, `__eq__`, `__hash__`, and a frozen
class's `__setattr__` and `__delattr__`) as source text and compiles it with `exec`, every time the
class is defined: 0.6 ms of the 0.8 ms a frozen class costs on Python 3.11, and a 100-card `pnp
build` defines 47 of them before it draws (docs/performance.md). Python keeps no bytecode of that
text, so this module does, as it keeps a module's: `exec` in the dataclasses module is given the
code compiled from the same text (as `exec` compiles it: no `__future__` flag of this module), kept
in `pnp/__pycache__/` under the interpreter's cache tag and bytecode version. The text is the key,
so a changed class only misses. The file is written only when something was compiled, never where
Python writes no bytecode (PYTHONDONTWRITEBYTECODE, a pycache prefix), and anything wrong with it
(unreadable, another version's, not a table of code) is a cold start, never an error.
tests/test_classcache.py compares the methods made either way, for every dataclass a build defines.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

FOLDER = Path(__file__).resolve().parents[1] / "__pycache__"
MOST = 4000  # texts kept at most: when pnp's classes have changed that often, only those last used stay

_stored: dict[str, bytes] = {}  # text -> its marshalled code, as read from the file
COMPILED: dict[str, CodeType] = {}  # compiled in this process, not yet in the file (tests read it too)
_codes: dict[str, CodeType] = {}  # text -> its code, loaded or compiled in this process


def cache_file() -> Path:
    return FOLDER / f"dataclass-methods.{sys.implementation.cache_tag}.marshal"


def compile_once() -> None:
    """From now on, a dataclass's methods come from the kept code of their text (see the module)."""
    import dataclasses

    if sys.implementation.cache_tag is None or "exec" in vars(dataclasses):
        return
    _stored.update(_read(cache_file()))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global: found before the builtin


def keep() -> None:
    """Add what was compiled in this process to the file (keeping only the texts this process used
    when the file would hold more than MOST)."""
    if not COMPILED or sys.dont_write_bytecode or sys.pycache_prefix:
        return
    if not os.access(FOLDER if FOLDER.is_dir() else FOLDER.parent, os.W_OK):
        return  # a read-only install: its bytecode was compiled when installed; these are compiled each time
    table = {**_read(cache_file()), **{text: marshal.dumps(code) for text, code in COMPILED.items()}}
    if len(table) > MOST:
        table = {text: code for text, code in table.items() if text in _codes}
    from pnp.core.output import write_bytes

    with contextlib.suppress(Exception):  # a cache: a read-only install or a full disk costs the next start only
        write_bytes(cache_file(), importlib.util.MAGIC_NUMBER + marshal.dumps(table))
    COMPILED.clear()


def _exec(source: Any, scope: Any = None, names: Any = None) -> None:
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = _code(source)
        source = code
    builtins.exec(source, scope, names)


def _code(text: str) -> CodeType:
    stored = _stored.get(text)
    if stored is not None:
        with contextlib.suppress(ValueError, EOFError, TypeError):
            code = marshal.loads(stored)
            if isinstance(code, CodeType):
                return code
    code = COMPILED[text] = compile(text, "<string>", "exec", dont_inherit=True)
    return code


def _read(path: Path) -> dict[str, bytes]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        table = marshal.loads(data[len(magic) :])
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {text: code for text, code in table.items() if isinstance(text, str) and isinstance(code, bytes)}
