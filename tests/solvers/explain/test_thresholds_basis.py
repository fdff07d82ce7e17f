"""Issue 16: the break-even thresholds on the plan's basis (present value at options.discount_rate) and against
the best cloud-side alternative the profile allows, commitments included. Every figure derived by hand.

Hand figures: 2027 has 8,760 h; at 12% a year (1% a month) the discounted hours of 2027, each month's hours
counted at its end, are D = sum(h_m x 1.01^-(m+1)) = 8,214.07 (so a $1/h bill every hour of 2027 is worth $8,214.07
today). A purchase is paid at the start (undiscounted).
"""

from __future__ import annotations

from typing import Any

import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

HOURS_2027 = 8760.0
MONTH_HOURS = [24.0 * d for d in (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)]
D_12 = sum(h * 1.01 ** -(m + 1) for m, h in enumerate(MONTH_HOURS))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _plan(profile: dict[str, Any], catalog: Catalog) -> Any:
    return make_plan(Profile.model_validate(profile), catalog, TODAY)


def test_discounted_hours_of_2027() -> None:
    assert round(D_12, 2) == 8214.07


@pytest.mark.parametrize(("rate", "threshold"), [
    (0.0, 6000 / HOURS_2027),   # 0.684932: today's figure, undiscounted
    (0.12, 6000 / D_12),        # 0.730454: the rent saved is paid later, so it is worth less today
])
def test_the_utilisation_threshold_moves_with_the_discount_rate(catalog: Catalog, rate: float,
                                                                threshold: float) -> None:
    """A $6,000 box (no power, no resale) or $1/h, one GPU busy 30% of 2027 (2,628 h): rent. Buying pays from u
    with 6,000 = u x $1 x hours, undiscounted hours 8,760 (u = 0.684932), discounted D = 8,214.07 at 12%
    (u = 0.730454)."""
    profile = simple_profile([owned_item(6000.0, watts=1)], [cloud_item(1.0)], utilisation=0.3, rate=0.0,
                             discount_rate=rate)
    plan = _plan(profile, catalog)
    assert plan.buy == []
    assert plan.break_even.utilisation_threshold == pytest.approx(threshold, abs=2e-6)
    assert plan.break_even.basis == ("present_value" if rate else "nominal")
    assert plan.break_even.cloud_only_commitments is False
    assert "% utilisation" in plan.recommendation
    assert f"{100 * threshold:.1f}% utilisation" in plan.recommendation


def _commitment_profile(rate: float, discount_rate: float = 0.0) -> dict[str, Any]:
    """One A100 busy every hour of 2027. Buy a $30,000 box drawing 1 kW (PUE 1), rent at $10/h (87,600 a year) or
    reserve it for the year at $6/h (52,560, used or not)."""
    profile = simple_profile([owned_item(30_000.0, gpu="A100 80GB PCIe", watts=1000)],
                             [cloud_item(10.0, gpu="A100 80GB PCIe", name="h1")], utilisation=1.0, rate=rate,
                             discount_rate=discount_rate, pue=1.0)
    profile["demand"]["reference_gpu"] = "A100 80GB PCIe"
    profile["prices"]["commitments"] = [{"provider": "testcloud", "name": "h1", "gpu": "A100 80GB PCIe",
                                         "usd_per_hour": 6.0, "term_months": 12, "region": "r1"}]
    return profile


def test_a_commitment_sets_the_electricity_and_cloud_price_break_even(catalog: Catalog) -> None:
    """Buying costs 30,000 + 8,760 kWh x r. Cloud only reserves (52,560 < 87,600), so buying stops paying at
    30,000 + 8,760 r = 52,560: r = 22,560 / 8,760 = $2.575342/kWh (against on-demand it would be $6.575342).
    At r = $0.10 buying costs 30,876; cloud prices would have to fall to 30,876 / 52,560 = 0.587443 of today's for
    cloud only to match: the reference offer at $5.87443/h (against on-demand alone, 30,876 / 87,600 x 10 = $3.5247)."""
    plan = _plan(_commitment_profile(0.1), catalog)
    assert [b.count for b in plan.buy] == [1] and plan.commitments == []
    cloud_only = plan.alternatives.cloud_only
    assert cloud_only is not None and [c.count for c in cloud_only.commitments] == [1]
    assert cloud_only.total_cost_usd == pytest.approx(52_560.0)
    be = plan.break_even
    assert be.cloud_only_commitments is True and "reserved or committed" in be.thresholds_note
    assert be.electricity_threshold_usd_per_kwh == pytest.approx(22_560 / 8760, abs=1e-5)  # 2.575342
    assert be.cloud_price_threshold_usd_per_hour == pytest.approx(10 * 30_876 / 52_560, abs=1e-4)  # 5.874429
    # the saving is measured from that cloud only: 52,560 - 30,876 = 21,684
    assert "saves $21,684 over 12 months versus cloud only (which would reserve instances too)" in plan.recommendation


def test_a_commitment_sets_the_break_even_on_the_present_value_basis(catalog: Catalog) -> None:
    """At 12%: buying costs 30,000 + r x D kWh today, reserving 6 x D = 49,284.41 (paid monthly). Buying stops paying
    at r = 6 - 30,000 / D = 6 - 3.652271 = $2.347729/kWh, below the undiscounted 2.575342: the purchase is paid now,
    the reservation later."""
    plan = _plan(_commitment_profile(0.1, discount_rate=0.12), catalog)
    assert [b.count for b in plan.buy] == [1]
    be = plan.break_even
    assert be.basis == "present_value"
    assert be.electricity_threshold_usd_per_kwh == pytest.approx(6 - 30_000 / D_12, abs=1e-5)
    assert be.electricity_threshold_usd_per_kwh == pytest.approx(2.347729, abs=1e-5)
    # the recommendation's saving is in present value: 6 D - (30,000 + 0.1 D) = 49,284.41 - 30,821.41 = 18,463.00
    saving = 6 * D_12 - (30_000 + 0.1 * D_12)
    assert saving == pytest.approx(18_463.0, abs=0.5)
    assert f"saves ${saving:,.0f} in present value at 12% a year" in plan.recommendation


def test_without_commitments_the_electricity_threshold_is_against_on_demand(catalog: Catalog) -> None:
    """The same profile with commitments switched off: 30,000 + 8,760 r = 87,600, r = $6.575342/kWh."""
    profile = _commitment_profile(0.1)
    profile["options"]["allow_commitments"] = False
    be = _plan(profile, catalog).break_even
    assert be.cloud_only_commitments is False
    # buying pays where it saves more than a tie's tolerance, a millionth of cloud only's 87,600 (0.0876 USD: 1e-5 USD
    # per kWh over 8,760 kWh), so the flip is found up to that below the exact rate
    assert be.electricity_threshold_usd_per_kwh == pytest.approx(57_600 / 8760 - 0.5e-5, abs=1e-5)


def test_a_commitment_the_profile_allows_can_mean_buying_never_pays(catalog: Catalog) -> None:
    """One A100 busy 30% of 2027: on demand (26,280) beats reserving (52,560), so cloud only rents. A $60,000 box
    (no power) beats on-demand from u = 60,000 / 87,600 = 68.5%, but from 60% on reserving (52,560) is cheaper
    than on-demand, and cheaper than the box at every utilisation: buying never pays. The threshold follows the
    reservation count with the demand although cloud only reserves nothing at 30%."""
    profile = _commitment_profile(0.0)
    profile["prices"]["owned"][0].update(unit_price_usd=60_000.0, watts=1)
    profile["demand"]["utilisation"] = 0.3
    plan = _plan(profile, catalog)
    assert plan.buy == [] and plan.commitments == []
    assert plan.alternatives.cloud_only is not None and plan.alternatives.cloud_only.commitments == []
    assert plan.break_even.utilisation_threshold is None
    assert plan.recommendation.endswith("buying does not pay over 12 months.")
    profile["options"]["allow_commitments"] = False  # against on-demand alone: 68.5%
    alone = _plan(profile, catalog)
    assert alone.break_even.utilisation_threshold == pytest.approx(60_000 / 87_600, abs=2e-6)


@pytest.mark.parametrize(("discount_rate", "threshold"), [(0.0, 22_560 / 8760), (0.12, 6 - 30_000 / D_12)])
def test_the_plan_flips_where_the_threshold_says(catalog: Catalog, discount_rate: float, threshold: float) -> None:
    """Plan and thresholds agree: 1% below the electricity threshold the plan buys, 1% above it reserves."""
    below = _plan(_commitment_profile(threshold * 0.99, discount_rate), catalog)
    above = _plan(_commitment_profile(threshold * 1.01, discount_rate), catalog)
    assert [b.count for b in below.buy] == [1] and below.commitments == []
    assert above.buy == [] and [c.count for c in above.commitments] == [1]
