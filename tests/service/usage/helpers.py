"""What the usage routes' tests share besides fixtures: the sample logs' folder and a status check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DATA = Path(__file__).parents[2] / "solvers" / "usage" / "data"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()
