"""One GPU, one cloud offer: optima derived by hand in each test."""

from __future__ import annotations

import math

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.errors import InfeasibleProfile
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

HOURS_2027 = 365 * 24  # start 2027-01-01, 12 months


def plan_for(profile: dict) -> object:
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def test_high_utilisation_buys() -> None:
    # demand 0.5 * 8760 = 4380 h; cloud 1.0/h -> 4380; own 1000 + 4380 h * 0.45 kW * 0.1 = 1197.1
    plan = plan_for(simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.5))
    assert plan.total_cost_usd == pytest.approx(1000 + 0.5 * HOURS_2027 * 0.45 * 0.1, abs=0.01)
    assert plan.buy[0].count == 1 and plan.cloud == []


def test_low_utilisation_rents() -> None:
    # demand 0.05 * 8760 = 438 h: cloud 438, owning 1000 + 19.71 -> rent
    plan = plan_for(simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.05))
    assert plan.total_cost_usd == pytest.approx(0.05 * HOURS_2027 * 1.0, abs=0.01)
    assert plan.buy == []
    assert plan.break_even.days is None
    # buying pays from u where 1000 + u*8760*0.045 = u*8760 -> u = 1000 / (8760 * 0.955)
    assert plan.break_even.utilisation_threshold == pytest.approx(1000 / (HOURS_2027 * 0.955), rel=1e-4)


def test_burst_month_mixes_owned_and_cloud() -> None:
    # 300 h/month except July (1000 h): own one GPU (744 h in July) and rent 256 h that month.
    series = [{"month": f"2027-{m:02d}", "reference_gpu_hours": 1000 if m == 7 else 300} for m in range(1, 13)]
    profile = simple_profile([owned_item(1000)], [cloud_item(1.0)])
    profile["demand"] = {"series": series, "reference_gpu": "RTX 3090"}
    del profile["horizon_months"]
    plan = plan_for(profile)
    owned_hours = 11 * 300 + 744
    expected = 1000 + owned_hours * 0.045 + (1000 - 744) * 1.0
    assert plan.total_cost_usd == pytest.approx(expected, abs=0.01)
    july = next(p for p in plan.periods if p.month == "2027-07")
    assert sum(july.cloud_hours.values()) == pytest.approx(256, abs=1e-6)
    for period in plan.periods:
        served = sum(period.owned_gpu_hours.values()) + sum(period.cloud_hours.values())
        assert served >= period.demand_reference_gpu_hours - 1e-6


def test_slower_cloud_gpu_needs_more_hours() -> None:
    # cloud GPU does half the work per hour: 438 reference hours need 876 cloud hours at 1.0
    plan = plan_for(simple_profile([], [cloud_item(1.0, gpu="T4")], utilisation=0.05)
                    | {"throughput_overrides": {"T4": 0.5}})
    assert plan.cloud[0].hours == pytest.approx(876, abs=1e-6)
    assert plan.total_cost_usd == pytest.approx(876, abs=0.01)


def test_spot_overhead_and_spot_filter() -> None:
    offers = [cloud_item(1.0), cloud_item(0.5, name="spotvm", pricing="spot")]
    no_spot = plan_for(simple_profile([], offers, utilisation=0.05))
    assert {c.pricing for c in no_spot.cloud} == {"on_demand"}
    spot = plan_for(simple_profile([], offers, utilisation=0.05, allow_spot=True))
    # spot delivers 0.9 of an hour: 438 / 0.9 hours at 0.5
    assert spot.total_cost_usd == pytest.approx(0.05 * HOURS_2027 / 0.9 * 0.5, abs=0.01)


def test_bare_card_needs_a_host_and_idle_power_counts() -> None:
    # idle power counts only while the machine is on: here always (the default, when_working, is tested below)
    card = {"name": "card", "gpu": "RTX 3090", "unit_price_usd": 700, "watts": 350, "idle_watts": 35}
    plan = plan_for(simple_profile([card], [cloud_item(5.0)], utilisation=0.5, machine_on="always"))
    assert plan.buy[0].count == 1 and plan.hosts and plan.hosts[0].count == 1
    host = plan.hosts[0]
    hours = HOURS_2027
    work = 0.5 * hours
    energy_kwh = (work * (350 - 35 + 100) + hours * 35 + hours * host.idle_watts) / 1000
    assert plan.total_cost_usd == pytest.approx(700 + host.unit_price_usd + 0.1 * energy_kwh, abs=0.01)


def test_budget_below_any_option_without_cloud_names_the_budget() -> None:
    profile = simple_profile([owned_item(1000)], [], utilisation=0.5, max_capex_usd=500, allow_cloud=False)
    with pytest.raises(InfeasibleProfile) as info:
        plan_for(profile)
    assert info.value.constraint == "options.max_capex_usd"
    assert info.value.nearest_feasible == pytest.approx(1000)


def test_too_few_gpus_without_cloud_names_the_gpu_limit() -> None:
    profile = simple_profile([owned_item(1000)], [], utilisation=1.0, max_owned_gpus=1, allow_cloud=False)
    profile["demand"]["gpus"] = 3
    with pytest.raises(InfeasibleProfile) as info:
        plan_for(profile)
    assert info.value.constraint == "options.max_owned_gpus"
    assert info.value.nearest_feasible == 3


def test_memory_nobody_has_names_the_largest() -> None:
    profile = {"workload": "transformer_training", "min_gpu_memory_gb": 300, "horizon_months": 12,
               "demand": {"gpus": 1, "utilisation": 0.2, "reference_gpu": "RTX 3090"}}
    with pytest.raises(InfeasibleProfile) as info:
        plan_for(profile)
    largest = max(bundled_catalog().gpus[g].memory_gb for g in bundled_catalog().cloud["gpu"])
    assert info.value.constraint == "min_gpu_memory_gb"
    assert info.value.nearest_feasible == largest and "300 GB" in info.value.message


def test_resale_credit_uses_the_used_market_value() -> None:
    plan = plan_for(simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.5, resale=True))
    # a new RTX 3090 box sells at the RTX 3090's newest bundled used price (1,207, GPU Poet, September 2026), moved
    # along the fitted consumer resale curve (exp(-0.1884 a year), pricing/data/resale_curves.csv) over the 365-day
    # horizon, less the 13% selling fee (it was the 2023 eBay price, 704, declining a flat 20% a year)
    expected = 1207 * math.exp(-0.1884 * 365 / 365.25) * 0.87
    assert plan.costs.resale_credit_usd == pytest.approx(expected, abs=0.01)
    assert plan.total_cost_usd == pytest.approx(1000 + 0.5 * HOURS_2027 * 0.045 - expected, abs=0.02)


def test_idle_power_follows_the_hours_the_machine_is_on() -> None:
    card = {"name": "card", "gpu": "RTX 3090", "unit_price_usd": 700, "watts": 350, "idle_watts": 35}
    work = 0.5 * HOURS_2027
    # when_working (the default, the guide's formula): full card power plus the host share while working, no idle
    plan = plan_for(simple_profile([card], [cloud_item(5.0)], utilisation=0.5))
    assert plan.costs.electricity_usd == pytest.approx(0.1 * work * (350 + 100) / 1000, abs=0.01)
    # 12 hours a day: idle draw of card and host for half the hours, working power above idle while working
    half = plan_for(simple_profile([card], [cloud_item(5.0)], utilisation=0.5, machine_on=12))
    idle_kwh = HOURS_2027 / 2 * (35 + half.hosts[0].idle_watts) / 1000
    assert half.costs.electricity_usd == pytest.approx(0.1 * (work * (350 - 35 + 100) / 1000 + idle_kwh), abs=0.01)


def test_two_hosts_of_the_same_size_are_told_apart() -> None:
    """Hosts are kept by name, not by slot count: the bundled data has two 4-slot machines, and keying by size
    let one overwrite the other's count (the plan then showed no host, or the wrong one, for its capex)."""
    from dataclasses import replace

    from pricing.catalog import Host

    weak = Host("4-slot, weak PSU", 4, 500, 1000, 50, "test", "2027-01-01")
    strong = Host("4-slot, strong PSU", 4, 3000, 2000, 50, "test", "2027-01-01")
    card = {"name": "card", "gpu": "RTX 3090", "unit_price_usd": 700, "watts": 350, "idle_watts": 0}
    profile = simple_profile([card], [cloud_item(50.0)], utilisation=1.0)
    profile["demand"]["gpus"] = 4
    for hosts in ([weak, strong], [strong, weak]):  # the order must not matter
        catalog = replace(bundled_catalog(), hosts=hosts)
        plan = make_plan(Profile.model_validate(profile), catalog, TODAY)
        assert plan.buy[0].count == 4
        # a weak host powers 2 cards (1,000 W / 1.1 - 150 W of host = 759 W, / 350 W), so the 4 cards take two of them
        # ($1,000 and 50 W idle each) rather than the strong one ($3,000): per host, not pooled watts
        assert [(h.name, h.count) for h in plan.hosts] == [("4-slot, weak PSU", 2)]
        assert plan.costs.capex_usd == pytest.approx(4 * 700 + 2 * 500)


def test_a_four_gpu_job_needs_one_host_that_powers_all_four_cards() -> None:
    """4 x RTX 5090 (575 W) for one 4-GPU job. The hardware-fit rule (cards + 150 W of host, 10% headroom) lets a
    4-slot workstation with a 2,000 W PSU power 2 of them (2,000 / 1.1 - 150 = 1,668 W, / 575 = 2.9), and a 2-slot
    desktop's PSU cannot lend it watts: no plan. A 4-slot host with 2,800 W powers all four (2,545 - 150 = 2,395 W,
    / 575 = 4.2): the plan buys that one."""
    from dataclasses import replace

    from pricing.catalog import Host

    workstation = Host("4-slot workstation, 2,000 W", 4, 2000, 2000, 80, "test", "2027-01-01")
    desktop = Host("2-slot desktop, 1,600 W", 2, 700, 1600, 50, "test", "2027-01-01")
    card = {"name": "RTX 5090 card", "gpu": "RTX 5090", "unit_price_usd": 2000, "watts": 575, "idle_watts": 0}
    profile = simple_profile([card], [], utilisation=0.5)
    profile["demand"].update({"gpus": 4, "reference_gpu": "RTX 5090"})
    profile["jobs"] = {"gpus_per_job": 4, "scaling_efficiency": 1.0}
    with pytest.raises(InfeasibleProfile, match=r"4 x RTX 5090 \(575 W each\) needs one host.*holds 2"):
        make_plan(Profile.model_validate(profile), replace(bundled_catalog(), hosts=[workstation, desktop]), TODAY)
    big = Host("4-slot workstation, 2,800 W", 4, 3500, 2800, 80, "test", "2027-01-01")
    plan = make_plan(Profile.model_validate(profile),
                     replace(bundled_catalog(), hosts=[workstation, desktop, big]), TODAY)
    assert [(h.name, h.count) for h in plan.hosts] == [("4-slot workstation, 2,800 W", 1)]
    assert plan.buy[0].count == 4


def test_a_machine_on_fewer_hours_than_the_work_needs_cannot_work_more_hours() -> None:
    """One owned GPU (450 W, 50 W idle) busy 50% of 2027, electricity $0.10/kWh. Working hours 4,380 at 450 W:
    $197.10 (when_working); idle 50 W for the other 4,380 h adds $21.90 (always: $219.00); on 16 h a day the idle
    draw counts for 5,840 h, the 400 W above idle for the 4,380 working hours: $204.40. On 2 h a day the machine
    can work only 730 h of the year: it used to be charged idle for 730 h and the work for 4,380 ($178.85, less
    than when_working)."""

    def plan(machine_on: str | float, cloud_usd: float = 1.0) -> object:
        item = owned_item(1000, idle_watts=50)
        return plan_for(simple_profile([item], [cloud_item(cloud_usd)], utilisation=0.5, machine_on=machine_on))

    for machine_on, electricity in (("when_working", 197.10), ("always", 219.00), (16, 204.40)):
        result = plan(machine_on)
        assert [b.count for b in result.buy] == [1]
        assert result.costs.electricity_usd == pytest.approx(electricity, abs=0.01)
    # 2 h a day: one GPU works at most 730 h; at $1/h renting 4,380 h beats buying
    short = plan(2)
    assert short.buy == [] and short.total_cost_usd == pytest.approx(4380, abs=0.01)
    # at $5/h six machines on 2 h a day do the 4,380 h (6 x 730): idle 6 x 730 h x 50 W, 400 W above idle while
    # working: 21.90 + 175.20 = $197.10, never less than the machine that is on only while working
    six = plan(2, cloud_usd=5.0)
    assert [b.count for b in six.buy] == [6]
    assert six.costs.electricity_usd == pytest.approx(197.10, abs=0.01)
    owned = sum(sum(p.owned_gpu_hours.values()) for p in six.periods)
    assert owned == pytest.approx(4380, abs=1e-6)


@pytest.mark.parametrize("availability", [1.0, 0.99])
def test_work_a_machine_cannot_do_while_it_is_off_goes_to_the_cloud(availability: float) -> None:
    """One GPU busy 12 h a day in 2027 on a machine on 8 h a day ($900, 400 W, no idle draw, $0.10/kWh), cloud at
    $0.50/h: the machine works 8 h a day (2,920 h, $116.80 of energy) and the other 4 h a day rent (1,460 h, $730):
    900 + 116.80 + 730 = $1,746.80. The off hours' work reached the cloud only when the profile's availability was
    below 1 (at 1.0 the plan bought two machines for $1,975.20: a lower availability made the plan cheaper)."""
    plan = plan_for(simple_profile([owned_item(900, watts=400)], [cloud_item(0.5)], utilisation=0.5,
                                   availability=availability, machine_on=8))
    assert [b.count for b in plan.buy] == [1]
    assert sum(c.hours for c in plan.cloud) == pytest.approx(1460, abs=0.01)
    assert plan.total_cost_usd == pytest.approx(1746.80, abs=0.01)
