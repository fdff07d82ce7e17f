"""Issue 31: a plan's periods name its lines by their place (`buy[0]`, `cloud[1]`, `commitments[0]`), so no input
string is repeated once per period (a 3.9 MB quote name over 120 months answered 488 MB)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import cloud_item, owned_item

TODAY = dt.date(2026, 11, 21)
OWNED_NAME, CLOUD_NAME, COMMITTED_NAME = "O" * 200, "C" * 200, "R" * 200


def _ten_years() -> dict[str, Any]:
    """A base load every month (the owned card's and the commitment's) with a burst every third (the cloud's)."""
    series = [{"month": f"{2027 + m // 12}-{m % 12 + 1:02d}", "reference_gpu_hours": 1400 + (3000 if m % 3 == 0 else 0)}
              for m in range(120)]
    return {
        "workload": "transformer_training",
        "demand": {"reference_gpu": "RTX 3090", "series": series},
        "electricity_usd_per_kwh": 0.1,
        "options": {"resale": False, "availability": 1.0, "max_owned_gpus": 1},
        "prices": {"mode": "replace", "owned": [owned_item(900, name=OWNED_NAME)],
                   "cloud": [cloud_item(1.5, name=CLOUD_NAME, max_instances=100)],
                   "commitments": [{"provider": "testcloud", "name": COMMITTED_NAME, "gpu": "RTX 3090",
                                    "usd_per_hour": 0.2, "term_months": 12, "region": "r1", "max_instances": 1}]},
    }


def test_no_name_is_repeated_per_period() -> None:
    plan = make_plan(Profile.model_validate(_ten_years()), bundled_catalog(), TODAY)
    assert len(plan.periods) == 120
    assert plan.buy and plan.cloud and plan.commitments, plan.recommendation
    answer = plan.model_dump_json()
    for name in (OWNED_NAME, CLOUD_NAME, COMMITTED_NAME):
        assert answer.count(name) <= 8, (name[0], answer.count(name))  # its lines and notes, not its periods


def test_period_keys_name_the_lines_they_count() -> None:
    plan = make_plan(Profile.model_validate(_ten_years()), bundled_catalog(), TODAY)
    owned = {key for period in plan.periods for key in period.owned_gpu_hours}
    rented = {key for period in plan.periods for key in period.cloud_hours}
    assert owned == {f"buy[{i}]" for i in range(len(plan.buy))}
    assert rented == ({f"cloud[{i}]" for i in range(len(plan.cloud))}
                      | {f"commitments[{i}]" for i in range(len(plan.commitments))})
    # the hours per line still add up to the line's total
    for i, line in enumerate(plan.cloud):
        hours = sum(period.cloud_hours.get(f"cloud[{i}]", 0.0) for period in plan.periods)
        assert abs(hours - line.hours) < 0.01 * len(plan.periods)
