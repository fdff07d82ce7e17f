"""`model.build.undominated` leaves purchase options out of a model without cloud offers (the buy-only alternative);
the optimum must be what the model with every option gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from solvers.base.options import OwnedOption
from solvers.base.profile import Profile
from solvers.model import build as model_build
from solvers.model.arrays import MipSolution
from solvers.model.solve import solve
from solvers.plan import Core, solve_core
from tests.conftest import TODAY

# few GPU types, so that several offers of one type (which the rule compares) are common
GPUS = ["RTX 3090", "RTX 4090", "L4"]
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def owned_offers(draw: Any) -> list[dict[str, Any]]:
    return [
        {"name": f"own{i}", "gpu": draw(st.sampled_from(GPUS)), "gpus_per_unit": draw(st.sampled_from([1, 1, 2])),
         "unit_price_usd": draw(st.floats(100, 4000)), "watts": draw(st.floats(70, 700)),
         "idle_watts": draw(st.floats(0, 60)), "includes_host": draw(st.booleans()),
         "condition": draw(st.sampled_from(["new", "used"]))}
        for i in range(draw(st.integers(2, 6)))
    ]


def core_of(owned: list[dict[str, Any]], gpus: int, utilisation: float, usd_per_kwh: float,
            **options: Any) -> Core:
    profile = Profile.model_validate({
        "workload": "transformer_training",
        "demand": {"gpus": gpus, "utilisation": utilisation, "reference_gpu": "RTX 3090", "start": "2027-01-01"},
        "horizon_months": 24, "electricity_usd_per_kwh": usd_per_kwh, "options": options,
        "prices": {"mode": "replace", "owned": owned,
                   "cloud": [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.5,
                              "region": "r"}]},
    })
    return solve_core(profile, bundled_catalog(), TODAY, prune=False)


def buy_only(core: Core, prune: bool) -> MipSolution:
    purchases = [o for o in core.owned if not o.is_commitment]
    if prune:
        return solve(purchases, [], core.options.hosts, core.blocks, core.limits)

    def keep_all(owned: list[OwnedOption], *args: Any, **kwargs: Any) -> list[OwnedOption]:
        return owned

    with patch.object(model_build, "undominated", keep_all):
        return solve(purchases, [], core.options.hosts, core.blocks, core.limits)


@SETTINGS
@given(owned=owned_offers(), gpus=st.integers(1, 6), utilisation=st.floats(0.05, 1.0),
       usd_per_kwh=st.sampled_from([0.0, 0.15, 0.6]), availability=st.sampled_from([0.9, 1.0]),
       budget=st.one_of(st.none(), st.floats(1000, 30000)), discount=st.sampled_from([0.0, 0.1]))
def test_leaving_dominated_purchases_out_never_changes_the_buy_only_optimum(
        owned: list[dict[str, Any]], gpus: int, utilisation: float, usd_per_kwh: float, availability: float,
        budget: float | None, discount: float) -> None:
    core = core_of(owned, gpus, utilisation, usd_per_kwh, availability=availability, max_capex_usd=budget,
                   discount_rate=discount)
    pruned, full = buy_only(core, prune=True), buy_only(core, prune=False)
    assert pruned.status == full.status
    if full.status.has_solution:
        assert pruned.objective == pytest.approx(full.objective, rel=1e-7, abs=1e-6)


def test_the_bursty_series_buy_only_model_loses_dominated_cards_and_keeps_its_optimum() -> None:
    """Purchase options reach the bursty series' buy-only model and some are left out: on the 2026 catalog (issue 30:
    prices, the cards still sold new, throughput, PUE by where a card stands) the A100 40GB and 80GB PCIe, the RTX
    6000 Ada and the RTX A6000, whose work an RTX PRO 6000 or an H100 PCIe of their shape does for less, energy
    included; the used L4 and the RTX A5000 stay (no card of their shape does their work for less), and the H100
    PCIe (only in the 8-GPU server) stays: it is rated 3.12x an RTX 3090 against the RTX PRO 6000's 2.74x."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from plan_latency import SERIES

    core = solve_core(Profile.model_validate(SERIES), bundled_catalog(), TODAY, prune=False)
    purchases = [o for o in core.owned if not o.is_commitment]
    built = model_build.build(purchases, [], core.options.hosts, core.blocks, core.limits)
    left = {o.name.split(" (")[0] for o in purchases} - {o.name.split(" (")[0] for o in built.owned}
    assert {"A100 40GB PCIe", "A100 80GB PCIe", "RTX 6000 Ada", "RTX A6000"} <= left
    assert not {"L4", "RTX A5000", "H100 PCIe"} & left
    assert len(built.owned) < len(purchases)
    assert buy_only(core, prune=True).objective == pytest.approx(buy_only(core, prune=False).objective, rel=1e-9)


def test_a_cheaper_card_that_burns_more_than_it_saves_prunes_nothing() -> None:
    """Two RTX 3090 offers busy every hour of 24 months at $0.60/kWh: 550 W more draw costs about $5,800, more than the
    $1,000 the hungry card saves, so the frugal one is bought and must stay in the model."""
    owned = [{"name": "hungry", "gpu": "RTX 3090", "unit_price_usd": 500, "watts": 700, "idle_watts": 10,
              "includes_host": True},
             {"name": "frugal", "gpu": "RTX 3090", "unit_price_usd": 1500, "watts": 150, "idle_watts": 10,
              "includes_host": True}]
    core = core_of(owned, 1, 1.0, 0.6, availability=1.0)
    pruned, full = buy_only(core, prune=True), buy_only(core, prune=False)
    assert [core.owned[0].name, core.owned[1].name] == ["hungry", "frugal"]
    assert pruned.units == full.units == {core.owned[1].key: 1}
    assert pruned.objective == pytest.approx(full.objective, rel=1e-9)
