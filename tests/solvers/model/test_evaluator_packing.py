"""The thresholds' evaluator prices maintenance cover as the model does (solvers/model/evaluate.py, `packing_usd`):
cheapest packed offer first, a quota-limited offer (a marketplace listing, one machine) only for the instance-hours
its whole rentals leave in the block. It priced every displaced hour at the cheapest offer's rate, quota or not,
so it put a plan whose cover leans on one listing thousands of dollars below the model's own cost of it, and the
thresholds moved with that error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from solvers.base.errors import InfeasibleProfile
from solvers.base.options import JobWidths
from solvers.explain.weighing import evaluator_for
from solvers.model.purchases import Purchase, Scenario
from solvers.plan import Core
from tests.solvers.model.test_main_reformulations import (
    COPIES,
    PROFILE,
    RTX_3090_HOSTED,
    SETTINGS,
    core_of,
    listing_and_vm,
    main_model,
)

OWNED = RTX_3090_HOSTED
CLOUD = listing_and_vm(0.40)  # the listing is the cheapest per packed job-hour ($0.25) but one machine

def evaluated(core: Core) -> float:
    solution = main_model(core)
    evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    return evaluator.cost(Purchase(solution.units, solution.hosts), Scenario(core.limits.usd_per_kwh, 1.0, 1.0))


# the optimum moved with issue 30's resale (the profile keeps the default `resale`: each 900-dollar RTX 3090 box now
# resells at USD 720.23, the card's 2026 used price of 1,207 on the fitted curve for 731 days less 13%, where it
# resold at 391.97, the 2023 eBay price of 704 less 20% a year): 35,636.78 and 30,556.50 before
@pytest.mark.parametrize(("most", "objective", "patience"), [(6, 33_666.59, "none"), (8, 27_929.58, "day")])
def test_a_listings_quota_bounds_the_cover_the_evaluator_prices(most: int, objective: float, patience: str) -> None:
    """Eight jobs at once, at most `most` owned cards at 50% availability: with six, the listing is rented whole
    for the two jobs left and every displaced hour goes to the VM; with eight and work that may wait a day, the
    listing packs two job-hours an hour and the VM the rest. The evaluator said $27,741.98 and $25,293.30 (every
    hour at $0.25) before; it gives the model's optimum for the model's purchase."""
    core = core_of(OWNED, CLOUD, 8, 1.0, 0.15, availability=0.5, max_owned_gpus=most, patience=patience)
    assert main_model(core).objective == pytest.approx(objective, abs=0.01)
    assert evaluated(core) == pytest.approx(objective, abs=0.01)


def test_jobs_that_may_not_wait_are_not_packed_on_a_listing() -> None:
    """The same eight cards when work may not wait: a displaced job takes an instance-hour of its own (issue 29), so
    the cards run five jobs (their maintenance moves one job's hours to the VM) and the listing is rented whole for
    two, the VM for one: the same $27,929.58 as packing. The evaluator keeps every slot at work (it runs the most
    slots that leave no work short), covering four jobs' maintenance at one job an instance-hour: dearer, never
    cheaper than the model's optimum (its documented difference). By hand over 17,544 h: 8 x (900 - 720.23 resale)
    + 4 jobs' busy hours x 0.35 kW x $0.15 + 4 jobs' hours on the $0.40 VM."""
    core = core_of(OWNED, CLOUD, 8, 1.0, 0.15, availability=0.5, max_owned_gpus=8)
    assert main_model(core).objective == pytest.approx(27_929.58, abs=0.01)
    hours = 17_544
    assert evaluated(core) == pytest.approx(8 * (900 - 720.23) + 4 * hours * 0.35 * 0.15 + 4 * hours * 0.40, abs=0.05)


def test_fewer_slots_at_work_free_the_listing_for_their_maintenance() -> None:
    """Six jobs always, five owned cards at 95% availability, and one 2-GPU listing (copied at widths 1 and 2) the
    only cloud. With all five slots at work the sixth job takes the listing whole every hour and the cards'
    maintenance has nowhere to go; the model leaves one slot off (four jobs owned, two on the listing, the fifth
    card's hours absorb the maintenance). The evaluator called that purchase infeasible; it now runs the most
    slots that leave nothing short, and gives the model's optimum."""
    owned = [{"name": "a", "gpu": "RTX 3090", "unit_price_usd": 300, "watts": 350, "idle_watts": 10,
              "includes_host": True}]
    cloud = [{"provider": "p", "name": "l0", "gpu": "RTX 3090", "gpu_count": 2, "usd_per_hour": 1.21,
              "region": "r", "max_instances": 1}]
    core = core_of(owned, cloud, 6, 1.0, 0.6, COPIES, availability=0.95, max_owned_gpus=5)
    assert main_model(core).objective == pytest.approx(35_965.20, abs=0.01)
    assert evaluated(core) == pytest.approx(35_965.20, abs=0.01)


@SETTINGS
@given(**PROFILE)
def test_the_evaluator_never_prices_the_models_purchase_below_its_optimum(
        owned: list[dict[str, Any]], cloud: list[dict[str, Any]], gpus: int, utilisation: float, usd_per_kwh: float,
        availability: float, discount: float, widths: JobWidths | None) -> None:
    """The evaluator runs a purchase one feasible way (owned slots take every job they can, cover cheapest first
    within quotas), so on the model's purchase it is not below the model's optimum on these profiles. Not a law
    everywhere: where a card's energy per job-hour is above a cloud price, the model's screening rents jobs at full
    owned energy that the evaluator keeps owned with half their hours packed on a listing's idle hours (a 1,500 W
    card at $0.60/kWh: $21,579.12 against the model's $23,579.14, the same before the evaluator's packing
    changed), an approximation of the model's; wider searches found such cases rarely, these draws have not."""
    try:
        core = core_of(owned, cloud, gpus, utilisation, usd_per_kwh, widths, availability=availability,
                       discount_rate=discount)
    except InfeasibleProfile:
        return
    optimum = main_model(core).objective
    assert evaluated(core) >= optimum - 1e-6 * max(1.0, abs(optimum))
