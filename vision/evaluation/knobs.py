"""Config knobs set from the command line: ``NAME=VALUE`` pairs on a config dataclass.

The benchmarks take ``--locate`` / ``--set`` options so that any knob of the finder can be
measured without editing code; this is their one parser.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def replaced(config: T, pairs: list[str]) -> T:
    """``config`` (a dataclass instance) with the fields named in ``NAME=VALUE`` ``pairs``
    set; a value is read as a Python literal (``True``, ``0.3``, ``(1, 2)``), else kept as a
    bare string. Raises ``ValueError`` on a pair that is not ``NAME=VALUE`` or names no field.
    """
    names = {f.name for f in dataclasses.fields(config)}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or name not in names:
            raise ValueError(f"{pair!r}: not NAME=VALUE with a field of "
                             f"{type(config).__name__}")
        try:
            changes[name] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            changes[name] = text.strip()
    return dataclasses.replace(config, **changes)  # type: ignore[type-var]
