"""Every module of the project imports on its own, first, in a fresh interpreter state.

A circular import shows only when one module of the cycle is the first imported, so the test
suite's import order hides it: a benchmark script that began with ``vision.locate.config``
failed while every test passed. Each module is imported here after all of the project's
modules are dropped from ``sys.modules``, in a child interpreter so pytest's own imports
are untouched.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = r"""
import importlib, pkgutil, sys
import vision, calibration
names = []
for package in (vision, calibration):
    names.append(package.__name__)
    names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
failed = []
for name in names:
    for loaded in [k for k in sys.modules if k.split(".")[0] in ("vision", "calibration")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print(len(names))
print("\n".join(failed))
"""


def test_every_module_imports_first() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    count, *failed = done.stdout.strip().split("\n")
    assert int(count) > 50
    assert not [line for line in failed if line], "\n".join(failed)
