"""Reading a solution out: an option the solution does not buy works nothing. HiGHS may leave a column of work to
an unbought option within its feasibility tolerance; read as a share of the owned jobs, it gave the card GPU-hours
in the plan's periods for a purchase the plan does not list (a KeyError in the accounts: a 500 from the API). The
profile is the one hypothesis found (`tests/solvers/offers/test_pruning_and_properties.py`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan, solve_core

UNBOUGHT_WORK: dict[str, Any] = {
    "workload": "transformer_training",
    "demand": {
        "gpus": 3.0,
        "utilisation": 0.99999,
        "reference_gpu": "RTX 3090",
        "start": "2027-01-01"
    },
    "horizon_months": 24,
    "electricity_usd_per_kwh": 0.15,
    "options": {
        "allow_spot": True,
        "max_capex_usd": 6470.0
    },
    "prices": {
        "mode": "replace",
        "owned": [
            {
                "name": "own0",
                "gpu": "RTX 3090",
                "unit_price_usd": 977.0,
                "watts": 100.0,
                "idle_watts": 0.0,
                "condition": "new",
                "includes_host": False
            },
            {
                "name": "own1",
                "gpu": "RTX 3090",
                "unit_price_usd": 2413.0,
                "watts": 100.0,
                "idle_watts": 0.0,
                "condition": "new",
                "includes_host": True
            },
            {
                "name": "own2",
                "gpu": "RTX 4090",
                "unit_price_usd": 2157.0,
                "watts": 100.0,
                "idle_watts": 0.0,
                "condition": "new",
                "includes_host": False
            },
            {
                "name": "own3",
                "gpu": "RTX 3090",
                "unit_price_usd": 982.0,
                "watts": 100.0,
                "idle_watts": 0.0,
                "condition": "new",
                "includes_host": False
            },
            {
                "name": "own4",
                "gpu": "L4",
                "unit_price_usd": 1977.0,
                "watts": 234.0,
                "idle_watts": 0.0,
                "condition": "new",
                "includes_host": True
            }
        ],
        "cloud": [
            {
                "provider": "p1",
                "name": "vm0",
                "gpu": "RTX 3090",
                "gpu_count": 2,
                "usd_per_hour": 0.5,
                "region": "r",
                "pricing": "on_demand",
                "max_instances": 1
            },
            {
                "provider": "p1",
                "name": "vm1",
                "gpu": "RTX 3090",
                "gpu_count": 1,
                "usd_per_hour": 1.0,
                "region": "r",
                "pricing": "on_demand",
                "max_instances": None
            },
            {
                "provider": "p1",
                "name": "fallback",
                "gpu": "RTX 3090",
                "usd_per_hour": 1.0,
                "region": "r"
            }
        ]
    }
}


def test_an_option_not_bought_works_nothing() -> None:
    today = dt.date(2026, 11, 21)
    core = solve_core(Profile.model_validate(UNBOUGHT_WORK), bundled_catalog(), today)
    assert set(core.main.owned_jobs) <= set(core.main.units)
    assert set(core.main.displaced) <= set(core.main.units)
    plan = make_plan(Profile.model_validate(UNBOUGHT_WORK), bundled_catalog(), today)
    bought = {f"buy[{i}]" for i in range(len(plan.buy))}
    assert plan.buy and all(set(p.owned_gpu_hours) <= bought for p in plan.periods)
    # what the owned cards work is what the periods show: every period's owned GPU-hours within its hours x cards
    cards = sum(line.count * line.gpus_per_unit for line in plan.buy)
    assert all(sum(p.owned_gpu_hours.values()) <= p.days * 24 * cards + 1e-6 for p in plan.periods)
