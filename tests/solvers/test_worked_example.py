"""DOMAIN §5: the guide's worked example, as a request, breaks even after about 293 days."""

from __future__ import annotations

import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import WORKED_EXAMPLE
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY


def test_worked_example_breaks_even_after_about_293_days() -> None:
    plan = make_plan(Profile.model_validate(WORKED_EXAMPLE), bundled_catalog(), TODAY)
    assert [b.count for b in plan.buy] == [1]
    assert 285 <= plan.break_even.days <= 300
    # 2200 / (2.14 * 0.15 * 24 - 0.45 kW * 0.15 * 24 * 0.12) = 292.96 days
    assert plan.break_even.days == pytest.approx(2200 / (2.14 * 0.15 * 24 - 0.45 * 0.15 * 24 * 0.12), abs=0.05)
    assert plan.break_even.simple is not None
    assert plan.break_even.simple.days == pytest.approx(plan.break_even.days, abs=0.5)
    # the owned side in parts (a page composes it in its language): the desktop includes its host
    simple = plan.break_even.simple
    assert (simple.units, simple.owned_name, simple.hosts, simple.host_name) == (1, plan.buy[0].name, 0, None)
    assert simple.owned == f"1 x {simple.owned_name}"


def test_worked_example_costs_match_the_guide_arithmetic() -> None:
    plan = make_plan(Profile.model_validate(WORKED_EXAMPLE), bundled_catalog(), TODAY)
    days = plan.horizon["days"]
    assert plan.costs.electricity_usd == pytest.approx(0.45 * 0.15 * 24 * days * 0.12, abs=0.01)
    assert plan.alternatives.cloud_only is not None
    assert plan.alternatives.cloud_only.total_cost_usd == pytest.approx(2.14 * 0.15 * 24 * days, abs=0.01)
    # the guide: about $71 a year of electricity
    assert plan.costs.electricity_usd / (days / 365) == pytest.approx(71, abs=1)
