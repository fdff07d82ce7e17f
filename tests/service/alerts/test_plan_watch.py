"""Which saved profiles a price change can touch, and when two plans differ enough to alert."""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd
import pytest

from pricing.gpus import bundled_gpus
from service.alerts.plan_watch import affected, plan_changes
from service.plans.examples import CATALOG_EXAMPLE
from solvers.base.profile import Profile

GPUS = bundled_gpus()


def change(gpu: str, kind: str = "cloud", pricing: str = "on_demand", provider: str = "aws",
           region: str = "us-east-1") -> pd.DataFrame:
    return pd.DataFrame([{"gpu": gpu, "kind": kind, "pricing": pricing, "provider": provider, "region": region}])


def profile(**changes: Any) -> Profile:
    body = copy.deepcopy(CATALOG_EXAMPLE)  # min 24 GB, no spot, used allowed
    for key, value in changes.items():
        if key in ("providers", "regions", "allow_spot", "allow_cloud", "allow_buy"):
            body["options"][key] = value
        else:
            body[key] = value
    return Profile.model_validate(body)


@pytest.mark.parametrize(("prof", "row", "expected"), [
    (profile(), change("RTX 3090"), True),
    (profile(), change("RTX 3060"), False),                                   # 12 GB < 24 GB asked
    (profile(), change("RTX 3090", pricing="spot"), False),                   # spot not allowed
    (profile(allow_spot=True), change("RTX 3090", pricing="spot"), True),
    (profile(providers=["lambda"]), change("RTX 3090"), False),
    (profile(regions=["eu-west-1"]), change("RTX 3090"), False),
    (profile(allow_cloud=False), change("RTX 3090"), False),
    (profile(allow_cloud=False), change("RTX 3090", kind="used", pricing="list", provider="eBay"), True),
    (profile(allow_buy=False), change("RTX 3090", kind="new", pricing="list", provider="eBay"), False),
    (profile(prices={"mode": "replace", "cloud": [{"provider": "x", "name": "y", "gpu": "RTX 3090",
                                                   "usd_per_hour": 1.0}]}), change("RTX 3090"), False),
])
def test_only_prices_the_planner_would_consider_trigger_a_replan(prof: Profile, row: pd.DataFrame,
                                                                 expected: bool) -> None:
    assert affected(prof, row, GPUS) is expected


OLD = {"total_cost_usd": 1000.0, "items": [["gpu", "RTX 3090 (used, eBay)", "used", 1]], "purchases": ["1 x ..."]}


@pytest.mark.parametrize(("new", "pct", "reasons"), [
    ({**OLD, "total_cost_usd": 1040.0}, 5.0, []),
    ({**OLD, "total_cost_usd": 1060.0}, 5.0, ["total cost moved +6.0% (more than 5%)"]),
    ({**OLD, "total_cost_usd": 900.0}, None, []),
    ({**OLD, "items": []}, None, ["purchases changed"]),
    ({**OLD, "items": [["gpu", "RTX 3090 (used, eBay)", "used", 2]], "total_cost_usd": 800.0}, 5.0,
     ["purchases changed", "total cost moved -20.0% (more than 5%)"]),
    ({"error": "no offer"}, 5.0, ["the profile has no feasible plan any more"]),
])
def test_plan_changes(new: dict[str, Any], pct: float | None, reasons: list[str]) -> None:
    assert plan_changes(OLD, new, pct) == reasons
    assert plan_changes({"error": "x"}, {"error": "y"}, pct) == []
