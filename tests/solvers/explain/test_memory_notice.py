"""Work sized on a reference GPU and planned on cards with less memory says so when the profile set no memory
floor (solvers/explain/warnings.py `memory_notices`, notice `memory_below_reference`).

Case: one RTX 3090 (24 GB) busy 30% of 36 months, bundled prices: the buy-only alternative buys a used RTX 3080
(10 GB; USD 240 in January 2026, where it bought an RTX 2080 Ti, 11 GB, at its 2023 eBay price before issue 30 brought
2026 used prices), which the throughput model lets do the work in more hours; a job that needs the 3090's 24 GB
would not fit. With `min_gpu_memory_gb` given (even 0, a choice the user made) nothing is said.
"""

from __future__ import annotations

from typing import Any

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY

STUDENT: dict[str, Any] = {"workload": "transformer_training", "horizon_months": 36,
                           "demand": {"gpus": 1, "utilisation": 0.3, "reference_gpu": "RTX 3090"}}


def _memory(profile: dict[str, Any]) -> list[Any]:
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    return [n for n in plan.notices if n.code == "memory_below_reference"]


def test_cards_with_less_memory_than_the_reference_are_named() -> None:
    said = _memory(STUDENT)
    assert len(said) == 1
    assert "RTX 3080" in said[0].params["gpus"]  # type: ignore[operator]
    assert said[0].params["reference"] == "RTX 3090" and said[0].params["reference_gb"] == 24
    assert all(g not in said[0].params["gpus"] for g in ("RTX 3090", "RTX 4090"))  # type: ignore[operator]


def test_a_memory_floor_the_user_gave_says_nothing() -> None:
    assert _memory({**STUDENT, "min_gpu_memory_gb": 24}) == []
    assert _memory({**STUDENT, "min_gpu_memory_gb": 0}) == []
