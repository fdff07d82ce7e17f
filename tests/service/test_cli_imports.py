"""`gpuplan --help` answers at once: the heavy parts (the planner and HiGHS, pandas, SQLAlchemy, matplotlib) are
imported by the commands that use them, not by the command line itself (issue 33: it took about 4 s). Checked by
what the help imports, not by timing it on a shared machine."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

HEAVY = ("solvers", "highspy", "matplotlib", "pandas", "sqlalchemy", "numpy", "fastapi", "uvicorn")


def _imported(*argv: str) -> tuple[set[str], str]:
    """The top-level packages a fresh `gpuplan ARGV` imports (python -X importtime), and what it printed."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "service.cli", *argv], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {m.group(1).split(".")[0] for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)",
                                                             done.stderr, re.M)}
    assert "typer" in modules, "importtime printed nothing: the check would pass vacuously"
    return modules, done.stdout


@pytest.mark.parametrize("argv", [["--help"], ["plan", "--help"], ["refresh", "--help"], ["keys", "--help"]])
def test_help_imports_none_of_the_heavy_parts(argv: list[str]) -> None:
    modules, printed = _imported(*argv)
    assert sorted(modules & set(HEAVY)) == []
    assert "Usage:" in printed


def test_the_top_level_help_lists_every_command() -> None:
    _, printed = _imported("--help")
    for command in ("serve", "plan", "refresh", "estimate", "import-prices", "import-usage", "alerts", "snapshot",
                    "catalog", "migrate", "scheduler", "labs", "keys"):
        assert re.search(rf"│ {re.escape(command)}\s", printed), command
