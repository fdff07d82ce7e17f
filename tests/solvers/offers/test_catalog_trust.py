"""Issue 30 in plans: quarantined rows never reach them, cards not sold new are not bought new, a deciding row
read only from an aggregator is named, and resale follows the fitted curve at the card's age."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd
import pytest

from pricing.audit.run import audited
from pricing.catalog import Catalog, bundled_catalog, normalise_cloud, normalise_hardware
from pricing.gpus import bundled_gpus
from pricing.resale_curves import bundled_curves
from pricing.sold_new import SoldNew
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

GPUS = bundled_gpus()
AGGREGATED = "monitor (rows the monitor read from the computeprices.com aggregator)"


def _cloud(rows: list[tuple[str, str, float, str]]) -> pd.DataFrame:
    """(provider, name, usd_per_hour, source) 1-GPU L40S on-demand offers."""
    frame = pd.DataFrame([{"provider": p, "name": n, "gpu": "L40S", "gpu_count": "1", "usd_per_hour": str(u),
                           "region": "global", "pricing": "on_demand", "source": s, "as_of": "2026-08-18"}
                          for p, n, u, s in rows])
    return normalise_cloud(frame, GPUS, "snapshot", "test")


def _no_hardware() -> pd.DataFrame:
    return normalise_hardware(pd.DataFrame(columns=["name", "gpu", "condition", "gpus_per_unit", "unit_price_usd",
                                                    "includes_host", "watts", "idle_watts", "vendor", "source",
                                                    "as_of"]), GPUS, "snapshot", "test")


def _rent_l40s() -> Profile:
    return Profile.model_validate({
        "workload": "transformer_training", "horizon_months": 12, "electricity_usd_per_kwh": 0.1,
        "demand": {"gpus": 1, "utilisation": 0.5, "reference_gpu": "L40S"},
        "options": {"allow_buy": False, "resale": False}})


def _market(cheap_source: str) -> Catalog:
    rows = [(f"p{i}", f"p{i}-l40s", 1.25, f"page {i}") for i in range(4)]
    rows.append(("cheap", "cheap-l40s", 0.54, cheap_source))
    return Catalog(gpus=GPUS, cloud=_cloud(rows), hardware=_no_hardware())


def test_a_quarantined_offer_never_reaches_the_plan() -> None:
    raw = _market("an aggregator")
    assert make_plan(_rent_l40s(), raw, TODAY).cloud[0].provider == "cheap"  # unaudited: the suspect row decides
    view = audited(raw, TODAY)
    plan = make_plan(_rent_l40s(), view, TODAY)
    assert plan.cloud and "cheap" not in {c.provider for c in plan.cloud}


def test_the_plan_says_when_the_offer_it_rents_most_is_priced_only_by_an_aggregator() -> None:
    rows = [(f"p{i}", f"p{i}-l40s", 1.25 + 0.01 * i, f"page {i}") for i in range(4)]
    rows.append(("agg", "agg-l40s", 0.9, AGGREGATED))
    catalog = audited(Catalog(gpus=GPUS, cloud=_cloud(rows), hardware=_no_hardware()), TODAY)
    plan = make_plan(_rent_l40s(), catalog, TODAY)
    assert plan.cloud[0].provider == "agg"
    codes = [n.code for n in plan.notices]
    assert "aggregator_cloud" in codes
    text = next(n.text for n in plan.notices if n.code == "aggregator_cloud")
    assert "agg agg-l40s" in text and "computeprices.com" in text
    # the provider's own price in a second document confirms it: no notice
    rows.append(("agg", "agg-l40s-2x", 0.92, "the provider's page"))
    confirmed = audited(Catalog(gpus=GPUS, cloud=_cloud(rows), hardware=_no_hardware()), TODAY)
    assert "aggregator_cloud" not in [n.code for n in make_plan(_rent_l40s(), confirmed, TODAY).notices]


def test_a_card_not_sold_new_in_the_plans_year_is_not_bought_new() -> None:
    card = {"name": "RTX 3090 (new, MSRP)", "gpu": "RTX 3090", "condition": "new", "gpus_per_unit": "1",
            "unit_price_usd": "1499", "includes_host": "false", "watts": "", "idle_watts": "", "vendor": "NVIDIA",
            "source": "launch news", "as_of": "2020-09-24"}
    hardware = normalise_hardware(pd.DataFrame([card]), GPUS, "snapshot", "test")
    profile = simple_profile([], [cloud_item(2.0)], utilisation=0.9) | {"prices": {
        "mode": "extend", "owned": [], "cloud": [cloud_item(2.0)]}}
    base = bundled_catalog()
    sold = Catalog(gpus=GPUS, cloud=base.cloud.iloc[0:0], hardware=hardware, hosts=base.hosts)
    bought = make_plan(Profile.model_validate(profile), sold, TODAY)
    assert [b.name for b in bought.buy] == ["RTX 3090 (new, MSRP)"]
    ended = Catalog(gpus=GPUS, cloud=base.cloud.iloc[0:0], hardware=hardware, hosts=base.hosts,
                    sold_new={"RTX 3090": SoldNew("RTX 3090", "2025-08-06", "ended", "a tracker")})
    assert make_plan(Profile.model_validate(profile), ended, TODAY).buy == []
    # in the listing's own year it is still on offer
    assert make_plan(Profile.model_validate(profile), ended, dt.date(2025, 3, 1)).buy != []


def test_resale_follows_the_fitted_curve_from_the_used_price_today_to_the_cards_age_at_the_end() -> None:
    profile = simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.5, resale=True)
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    # by hand: the RTX 3090's newest used price (USD 1,207, GPU Poet, September 2026) moved along the consumer
    # curve (exponential, rate 0.1884 a year: pricing/data/resale_curves.csv) for the 365-day horizon, less 13%
    assert bundled_curves()["consumer"].decline_rate == 0.1884
    expected = 1207 * math.exp(-0.1884 * 365 / 365.25) * 0.87
    assert plan.costs.resale_credit_usd == pytest.approx(expected, abs=0.01)


def test_without_a_used_price_resale_is_the_launch_price_at_the_cards_age_at_the_end() -> None:
    item = owned_item(9000, gpu="RTX PRO 6000", watts=600)
    profile = simple_profile([item], [cloud_item(5.0, gpu="RTX PRO 6000")], utilisation=0.9, resale=True)
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    # launched 2025-03 at USD 8,565; the plan runs 2027-01-01 to 2028-01-01, so the card is 1.84 to 2.84 years old
    start, launch = dt.date(2027, 1, 1), dt.date(2025, 3, 1)
    age_end = (start - launch).days / 365.25 + 365 / 365.25
    expected = 8565 * math.exp(-0.1884 * age_end) * 0.87
    assert plan.buy and plan.costs.resale_credit_usd == pytest.approx(expected, abs=0.01)


def test_a_flat_yearly_decline_still_overrides_the_curve() -> None:
    profile = simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.5, resale=True,
                             resale_decline_per_year=0.2)
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    assert plan.costs.resale_credit_usd == pytest.approx(1207 * 0.8 ** (365 / 365.25) * 0.87, abs=0.01)
