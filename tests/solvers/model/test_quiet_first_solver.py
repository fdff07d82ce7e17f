"""The first HiGHS solver of a process is made with stdout on the null device (its banner would corrupt
`gpuplan plan --json`); a process without a standard output, a daemon with fd 1 closed, can still import the
planner (solvers/model/arrays.py `first_highs_quietly`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_planner_imports_with_standard_output_closed() -> None:
    script = "import os, sys\nos.close(1)\nimport solvers.model.build\nsys.stderr.write('imported')\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("imported")


def test_solvers_made_after_importing_the_planner_write_nothing_to_standard_output() -> None:
    script = "import highspy\nimport solvers.model.build\nhighspy.Highs()\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0 and done.stdout == "", done.stdout
