"""The finder imports on its own, first in a fresh interpreter (as the benchmarks do)."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["vision.locate", "vision.locate.finder",
                                    "vision.locate.config"])
def test_the_finder_imports_first_in_a_fresh_interpreter(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
