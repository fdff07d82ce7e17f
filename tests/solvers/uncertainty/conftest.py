from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from pricing.catalog import Catalog, bundled_catalog

TODAY = dt.date(2026, 11, 1)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return bundled_catalog()


def lab(uncertainty: dict[str, Any] | None, gpus: int = 2, utilisation: float = 0.5, months: int = 12,
        **extra: Any) -> dict[str, Any]:
    profile: dict[str, Any] = {
        "workload": "transformer_training",
        "demand": {"gpus": gpus, "utilisation": utilisation, "reference_gpu": "RTX 4090"},
        "horizon_months": months,
        "electricity_usd_per_kwh": 0.15,
        **extra,
    }
    if uncertainty is not None:
        profile["uncertainty"] = uncertainty
    return profile
