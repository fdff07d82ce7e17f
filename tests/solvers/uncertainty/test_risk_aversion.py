"""More risk aversion never buys more of a card whose payback is in doubt (issue 32).

The doubt here is the owned side's alone: the electricity rate is uncertain, the demand and cloud prices are not.
A future is then dearer for the plan the more energy it owns (every future's total is e_s x energy(n) + the
rest), so the worst futures are the same ones whatever is bought, and a larger weight on their mean (CVaR) can only
make owned cards dearer: the cards bought may not grow with the weight. The rates are where this lab's plan
buys a few cards and fewer as the weight grows (at $0.20/kWh: 3 GPUs at weights 0-5, 2 at 20).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.catalog import Catalog
from solvers.base.profile import Profile
from solvers.offers.place_inputs import prepare
from solvers.plan import _solve_prepared, today_of
from solvers.uncertainty.decide import build_futures
from solvers.uncertainty.extensive import solve_extensive
from tests.solvers.uncertainty.conftest import TODAY, lab


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(low=st.floats(0.0, 3.0), step=st.floats(0.5, 20.0), spread=st.floats(0.2, 0.9),
       rate=st.sampled_from([0.15, 0.2, 0.25, 0.3]))
def test_more_risk_weight_buys_no_more_gpus(catalog: Catalog, low: float, step: float, spread: float,
                                            rate: float) -> None:
    option = {"demand": {"sigma": 0}, "cloud_price_trend": {"per_year": 0, "spread": 0},
              "electricity": {"spread": spread}, "resale": {"spread": 0}, "scenarios": 8, "objective": "cvar",
              "alpha": 0.25}
    prep = prepare(Profile.model_validate(lab(option, gpus=4, utilisation=0.8, months=24,
                                                   electricity_usd_per_kwh=rate)),
                   catalog)
    core = _solve_prepared(prep.profile, prep.catalog, TODAY, True)
    futures = build_futures(today_of(core), prep.profile.uncertainty)  # type: ignore[arg-type]
    gpus = {o.key: o.gpus_per_unit for o in futures.owned}
    bought = []
    for weight in (low, low + step):
        answer = solve_extensive(futures.pieces, "cvar", alpha=0.25, risk_weight=weight)
        assert answer.status.value == "optimal"
        bought.append(sum(gpus[k] * n for k, n in answer.units.items()))
    assert bought[1] <= bought[0]
