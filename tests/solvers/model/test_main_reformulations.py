"""Exact reformulations of the main model (docs/ARCHITECTURE.md, "Where a plan's time goes"): (a)
`model.build.undominated` on a model with cloud offers under `displacement_never_pays` (with a one-card host of its own
for
a card that fits fewer per host), (b) the rows d_gb <= w_gb / r_g left out under the same guard, (c) the host-spend
inequality `host_spend_rows` when every owned option is a bare one-GPU-per-slot purchase, (d) availability rows and
displaced columns left out where maintenance fits in idle hours (`maintenance_in_idle_hours`), (e) packed hours only
on the offers that can be worth it (`packing_offers`), (f) active-hours rows left out where availability and
displaced rows imply them (`active_rows_needed`), and (g) the MIP start (`solvers.model.start`), which must not change
the optimum either. Each must leave the optimum where the model without it puts it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

import highspy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from solvers.base.errors import InfeasibleProfile
from solvers.base.options import JobWidths, OwnedOption
from solvers.base.profile import Profile
from solvers.model import arrays as model_arrays
from solvers.model import build as model_build
from solvers.model import rows as model_rows
from solvers.model import slots as model_slots
from solvers.model.arrays import Limits, MipSolution, Model
from solvers.model.solve import solve
from solvers.offers import hosting
from solvers.plan import Core, solve_core
from tests.conftest import TODAY

GPUS = ["RTX 3090", "RTX 4090", "L4"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def owned_offers(draw: Any, bare_only: bool = False) -> list[dict[str, Any]]:
    return [
        {"name": f"own{i}", "gpu": draw(st.sampled_from(GPUS)), "gpus_per_unit": draw(st.sampled_from([1, 1, 2])),
         "unit_price_usd": draw(st.floats(100, 4000)), "watts": draw(st.floats(70, 700)),
         "idle_watts": draw(st.floats(0, 60)), "includes_host": False if bare_only else draw(st.booleans()),
         "condition": draw(st.sampled_from(["new", "used"]))}
        for i in range(draw(st.integers(2, 5)))
    ]


@st.composite
def cloud_offers(draw: Any, quotas: bool = True) -> list[dict[str, Any]]:
    # from far below to above an owned card's energy per hour, so that the guard holds in some examples only;
    # some with a quota (a marketplace listing), whose instance-hours whole rentals and packed hours share
    return [{"provider": "p", "name": f"vm{i}", "gpu": draw(st.sampled_from(GPUS)),
             "gpu_count": draw(st.sampled_from([1, 1, 2])), "usd_per_hour": draw(st.floats(0.01, 1.5)),
             "region": "r", "max_instances": draw(st.sampled_from([None, None, 1, 2])) if quotas else None}
            for i in range(draw(st.integers(1, 3)))]


# one hosted RTX 3090, and a 2-GPU listing (one machine, $0.25 a packed job-hour) beside an unlimited 1-GPU VM
RTX_3090_HOSTED = [{"name": "a", "gpu": "RTX 3090", "unit_price_usd": 900, "watts": 350, "idle_watts": 10,
                    "includes_host": True}]


def listing_and_vm(vm_usd_per_hour: float) -> list[dict[str, Any]]:
    return [{"provider": "p", "name": "pack", "gpu": "RTX 3090", "gpu_count": 2, "usd_per_hour": 0.50,
             "region": "r", "max_instances": 1},
            {"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": vm_usd_per_hour, "region": "r"}]


def core_of(owned: list[dict[str, Any]], cloud: list[dict[str, Any]], gpus: int, utilisation: float,
            usd_per_kwh: float, widths: JobWidths | None = None, patience: str = "none", **options: Any) -> Core:
    profile = Profile.model_validate({
        "workload": "transformer_training",
        "demand": {"gpus": gpus, "utilisation": utilisation, "reading": "at_once", "reference_gpu": "RTX 3090",
                   "start": "2027-01-01"},
        "horizon_months": 24, "electricity_usd_per_kwh": usd_per_kwh, "options": options,
        "jobs": {"patience": patience},
        "prices": {"mode": "replace", "owned": owned, "cloud": cloud},
    })
    return solve_core(profile, bundled_catalog(), TODAY, prune=False, widths=widths)


def main_model(core: Core) -> MipSolution:
    return solve(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)


@contextmanager
def without_dominance() -> Iterator[None]:
    def keep_all(owned: list[OwnedOption], *args: Any, **kwargs: Any) -> list[OwnedOption]:
        return owned

    with patch.object(model_build, "undominated", keep_all):
        yield


@contextmanager
def with_busy_rows() -> Iterator[None]:
    original = model_slots.availability_rows

    def every_row(m: Model, blocks: Any, limits: Limits, busy_rows: bool = True, implied: Any = None) -> None:
        original(m, blocks, limits, busy_rows=True, implied=implied)

    with patch.object(model_build, "availability_rows", every_row):
        yield


@contextmanager
def without_idle_maintenance() -> Iterator[None]:
    """(d) every availability row kept and every displaced column free."""
    with patch.object(model_build, "maintenance_in_idle_hours",
                      lambda owned, blocks, limits: np.zeros((len(owned), len(blocks)), dtype=bool)):
        yield


@contextmanager
def with_every_packing_offer() -> Iterator[None]:
    """(e) packed hours allowed on every cloud offer."""
    with patch.object(model_build, "packing_offers", lambda cloud: np.ones(len(cloud), dtype=bool)):
        yield


@contextmanager
def with_every_active_row() -> Iterator[None]:
    """(f) the active-hours row of every option in every block."""
    with patch.object(model_slots, "active_rows_needed",
                      lambda owned, blocks, *_: np.ones((len(owned), len(blocks)), dtype=bool)):
        yield


@contextmanager
def without_start() -> Iterator[None]:
    """(g) no MIP start."""
    with patch.object(model_build, "single_option_start", lambda *args: None):
        yield


@contextmanager
def without_host_spend() -> Iterator[None]:
    with patch.object(model_build, "host_spend_rows", lambda m: None):
        yield


def same_optimum(core: Core, switched_off: Callable[[], Any]) -> tuple[MipSolution, MipSolution]:
    kept = main_model(core)
    with switched_off():
        full = main_model(core)
    assert kept.status == full.status
    if full.status.has_solution:
        assert kept.objective == pytest.approx(full.objective, rel=1e-7, abs=1e-6)
    return kept, full


# the workload form's copies of one offer at several job widths, sharing its quota (job-slot speeds relative to
# the reference's slot: 2-GPU jobs at the guide's 1.9x on two cards)
COPIES = {"RTX 3090": {1: 1.0, 2: 1.9}, "RTX 4090": {1: 1.25, 2: 2.4}, "L4": {1: 0.45}}
PROFILE = {"owned": owned_offers(), "cloud": cloud_offers(), "gpus": st.integers(1, 5),
           "utilisation": st.floats(0.05, 1.0), "usd_per_kwh": st.sampled_from([0.0, 0.15, 0.6]),
           "availability": st.sampled_from([0.8, 0.95, 1.0]), "discount": st.sampled_from([0.0, 0.1]),
           "widths": st.sampled_from([None, None, COPIES])}


@pytest.mark.parametrize("variant", [without_dominance, with_busy_rows, without_idle_maintenance,
                                     with_every_packing_offer, with_every_active_row, without_start],
                         ids=["a_dominance", "b_busy_rows_out", "d_idle_maintenance", "e_packing_offers",
                              "f_active_rows", "g_start"])
@SETTINGS
@given(**PROFILE)
def test_a_and_b_never_change_the_optimum(
        variant: Callable[[], Any], owned: list[dict[str, Any]], cloud: list[dict[str, Any]], gpus: int,
        utilisation: float, usd_per_kwh: float, availability: float, discount: float,
        widths: JobWidths | None) -> None:
    """Each of (a), (b), (d)-(g) against the model without it, some with every offer copied at several job widths;
    a profile the quotas make infeasible is infeasible without it too."""
    try:
        core = core_of(owned, cloud, gpus, utilisation, usd_per_kwh, widths, availability=availability,
                       discount_rate=discount)
    except InfeasibleProfile:
        with variant(), pytest.raises(InfeasibleProfile):
            core_of(owned, cloud, gpus, utilisation, usd_per_kwh, widths, availability=availability,
                    discount_rate=discount)
        return
    same_optimum(core, variant)


@SETTINGS
@given(**{**PROFILE, "owned": owned_offers(bare_only=True), "cloud": cloud_offers(quotas=False),
           "budget": st.one_of(st.none(), st.floats(1000, 20000))})
def test_c_the_host_spend_inequality_never_changes_the_optimum(
        owned: list[dict[str, Any]], cloud: list[dict[str, Any]], gpus: int, utilisation: float, usd_per_kwh: float,
        availability: float, discount: float, widths: JobWidths | None, budget: float | None) -> None:
    core = core_of(owned, cloud, gpus, utilisation, usd_per_kwh, widths, availability=availability,
                   discount_rate=discount, max_capex_usd=budget)
    same_optimum(core, without_host_spend)


def bursty() -> Core:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from plan_latency import SERIES

    return solve_core(Profile.model_validate(SERIES), bundled_catalog(), TODAY)


def test_the_bursty_series_main_model_takes_all_three_and_keeps_its_optimum() -> None:
    """The bursty series (availability 0.95, cloud dearer per reference hour than any card's energy): dominated
    cards leave its main model, its busy rows are left out, and every owned option is a bare one-GPU card, so the
    host-spend row is added; its optimum is that of the model without any of them."""
    core = bursty()
    assert model_build.displacement_never_pays(core.owned_main, core.options.cloud, core.limits)
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert len(built.owned) < len(core.owned_main)
    with without_dominance(), with_busy_rows(), without_host_spend():
        plain = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
        full = main_model(core)
    assert built.d.size and built.builder.n_rows < plain.builder.n_rows
    with without_host_spend():
        assert model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks,
                           core.limits).builder.n_rows == built.builder.n_rows - 1
    assert main_model(core).objective == pytest.approx(full.objective, rel=1e-9)


def root_bound(built: Model) -> float:
    """The model's LP relaxation: every column continuous."""
    highs = highspy.Highs()  # type: ignore[no-untyped-call]
    highs.setOptionValue("output_flag", False)
    built.builder.arrays().pass_to(highs, built.offset)
    n = built.builder.n_cols
    highs.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.uint8))
    highs.run()
    return float(highs.getInfo().objective_function_value)


def test_cards_beyond_the_counted_slots_pay_for_their_hosts_at_the_root() -> None:
    """The bursty series' LP bought fractional cards at the hosts' price of fewer (on the figures before issue 30: 2.08
    RTX 4090 beside 0.97 used RTX 3090, whose maintenance the fraction made up, at the price of three hosts);
    charging the cards beyond the slot binaries' count at the least rise of H lifts its root bound, the optimum
    unchanged: before, 16,742.45 to 16,776.69 of 16,804.29; with issue 30's prices, throughput and PUE and issue 29's
    rules (a displaced job that may not wait takes an instance-hour of its own) the optimum buys three used RTX 4090s
    in a 1-GPU desktop and a 2-GPU workstation, 17,042.88, and the lift raises the bound from 17,009.64 to
    17,041.64."""
    core = bursty()
    args = (core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    with patch.object(model_rows, "least_rise", lambda *a: 0.0):
        flat = root_bound(model_build.build(*args))
    lifted = root_bound(model_build.build(*args))
    optimum = main_model(core).objective
    assert flat == pytest.approx(17009.64, abs=0.01)
    assert lifted == pytest.approx(17041.64, abs=0.01)
    assert optimum == pytest.approx(17042.88, abs=0.01)
    assert flat < lifted <= optimum + 1e-6


def test_cloud_cheaper_than_a_cards_energy_keeps_the_busy_rows_and_every_card() -> None:
    """A $0.05/h RTX 3090 VM against 700 W cards at $0.60/kWh (about $0.42 of energy per busy hour): displacing
    work to the cloud pays, so neither the dominance rule nor the dropped rows apply."""
    owned = [{"name": "a", "gpu": "RTX 3090", "unit_price_usd": 500, "watts": 700, "idle_watts": 10,
              "includes_host": True},
             {"name": "b", "gpu": "RTX 3090", "unit_price_usd": 1500, "watts": 700, "idle_watts": 10,
              "includes_host": True}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.05, "region": "r"}]
    core = core_of(owned, cloud, 2, 0.5, 0.6, availability=0.9)
    assert not model_build.displacement_never_pays(core.owned_main, core.options.cloud, core.limits)
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert len(built.owned) == 2
    with with_busy_rows():
        plain = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert built.builder.n_rows == plain.builder.n_rows


def test_the_least_rise_of_host_spend_stays_below_it_at_every_larger_count() -> None:
    """A $1,725 desktop holds one card, a $3,170 workstation two: H = 0, 1,725, 3,170, 4,895, 6,340, 8,065. From one
    card (or three) the next costs $1,445 (a desktop swapped for a workstation), the least rise from any count."""
    spend = hosting.cheapest_hosts(np.array([1725.0, 3170.0]), np.array([1, 2]), 5)
    counts = np.array([0, 1, 2, 3])
    rise = model_rows.least_rise(spend, counts)
    assert rise == pytest.approx(1445.0)
    for c in counts:
        for n in range(c + 1, len(spend)):
            assert spend[c] + rise * (n - c) <= spend[n] + 1e-9
    assert model_rows.least_rise(spend, np.array([5])) == 0.0  # no larger count


def _least_rise_count_by_count(spend: np.ndarray, counts: np.ndarray) -> float:
    """The least rise as its definition reads, one count at a time: the reference for the one-operation code."""
    rises = [(spend[c + 1:] - spend[c]) / np.arange(1, len(spend) - c) for c in counts.tolist() if c + 1 < len(spend)]
    return max(0.0, min((float(r.min()) for r in rises), default=0.0))


@settings(max_examples=200, deadline=None)
@given(costs=st.lists(st.floats(50.0, 20_000.0), min_size=1, max_size=4),
       slots=st.lists(st.integers(1, 8), min_size=4, max_size=4), upto=st.integers(1, 40), data=st.data())
def test_the_least_rise_in_one_operation_is_the_count_by_count_one(costs: list[float], slots: list[int], upto: int,
                                                                   data: st.DataObject) -> None:
    spend = hosting.cheapest_hosts(np.array(costs), np.array(slots[: len(costs)]), upto)
    counts = np.array(sorted(set(data.draw(st.lists(st.integers(0, upto), min_size=1, max_size=6)))))
    assert model_rows.least_rise(spend, counts) == _least_rise_count_by_count(spend, counts)


def test_cheapest_hosts_is_a_covering_knapsack() -> None:
    """Hosts of $100 holding 2 cards and $150 holding 4: 3 cards take the $150 host alone, not two $100 ones."""
    spend = hosting.cheapest_hosts(np.array([100.0, 150.0]), np.array([2, 4]), 6)
    assert spend.tolist() == [0.0, 100.0, 100.0, 150.0, 150.0, 250.0, 250.0]
    assert hosting.cheapest_hosts(np.array([100.0]), np.array([0]), 2)[1:].tolist() == [np.inf, np.inf]


def test_a_tie_between_cloud_and_a_cards_energy_keeps_the_guard_off() -> None:
    """Cloud work exactly as dear as a card's energy: displacing an idle card's hours would cost nothing, so a plan
    could report them; the guard holds only when the cloud is strictly dearer."""
    owned = [{"name": "a", "gpu": "RTX 3090", "unit_price_usd": 500, "watts": 350, "idle_watts": 10,
              "includes_host": True}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.5, "region": "r"}]
    core = core_of(owned, cloud, 2, 0.5, 0.15, availability=0.9)
    energy = core.owned_main[0].usd_per_job_hour(core.limits.usd_per_kwh)
    vm = core.options.cloud[0]
    tie = [replace(vm, usd_per_hour=energy * vm.slots * vm.speed)]
    assert not model_build.displacement_never_pays(core.owned_main, tie, core.limits)
    dearer = [replace(tie[0], usd_per_hour=tie[0].usd_per_hour * 1.01)]
    assert model_build.displacement_never_pays(core.owned_main, dearer, core.limits)


def test_packing_goes_past_a_full_quota_to_the_next_offer() -> None:
    """Eight jobs at once on at most eight owned cards at 50% availability: some 3-4 GPU-hours an hour are
    displaced. The cheapest to pack them on is one 2-GPU machine ($0.25 a GPU-hour, quota 1: two an hour), the rest
    goes to the 1-GPU VM ($0.40, no quota); (e) keeps both and leaves the dearer VM out, and the optimum is the one
    with every offer packable."""
    owned = RTX_3090_HOSTED
    cloud = [{"provider": "p", "name": "pack", "gpu": "RTX 3090", "gpu_count": 2, "usd_per_hour": 0.50,
              "region": "r", "max_instances": 1},
             {"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.40, "region": "r"},
             {"provider": "p", "name": "dear", "gpu": "RTX 3090", "usd_per_hour": 0.90, "region": "r"}]
    # work that may wait a day: displaced hours of several jobs can share an instance (issue 29: a job that may not
    # wait takes an instance-hour of its own)
    core = core_of(owned, cloud, 8, 1.0, 0.15, availability=0.5, max_owned_gpus=8, patience="day")
    names = {c.key: c.name for c in core.options.cloud}
    assert [names[c.key] for c, keep in zip(core.options.cloud, model_slots.packing_offers(core.options.cloud),
                                             strict=True) if keep] == ["pack", "vm"]
    kept, _ = same_optimum(core, with_every_packing_offer)
    assert sorted(names[k] for k, hours in kept.packed_hours.items() if hours.sum() > 1) == ["pack", "vm"]
    # the listing's one machine is rented whole or packed, not both at once: its instance-hours stay within the block
    cells = model_arrays.cells_of(core.blocks)
    pack = next(c.key for c in core.options.cloud if c.name == "pack")
    whole = np.bincount(cells.block, kept.instances.get(pack, np.zeros(len(cells.jobs))) * cells.hours,
                        minlength=len(core.blocks))
    assert (whole + kept.packed_hours[pack] <= np.array([b.hours for b in core.blocks]) + 1e-6).all()


def test_a_listing_rented_whole_is_not_also_packed() -> None:
    """One 2-GPU listing (quota 1) is the cheapest way to rent two jobs whole and to pack displaced work; before the
    shared rows the plan rented it whole for two of eight jobs and packed two GPU-hours an hour of maintenance on
    the same machine in the same hours. Its instance-hours per block (whole + packed) now stay within 1 x hours."""
    owned, cloud = RTX_3090_HOSTED, listing_and_vm(0.40)
    core = core_of(owned, cloud, 8, 1.0, 0.15, availability=0.5, max_owned_gpus=6)
    solution = main_model(core)
    cells = model_arrays.cells_of(core.blocks)
    for c in core.options.cloud:
        whole = np.bincount(cells.block, solution.instances.get(c.key, np.zeros(len(cells.jobs))) * cells.hours,
                            minlength=len(core.blocks))
        packed = solution.packed_hours.get(c.key, np.zeros(len(core.blocks)))
        if c.max_instances is not None:
            assert (whole + packed <= c.max_instances * np.array([b.hours for b in core.blocks]) + 1e-6).all()
    assert sum(h.sum() for h in solution.instances.values()) > 0  # two jobs are rented whole


def test_a_listings_unpackable_copy_counts_in_its_shared_hours() -> None:
    """Copies of one 2-GPU listing (quota 1) at two job widths share its instance-hours. With seven owned cards for
    eight jobs, one job is left to rent: the 2-wide copy ($0.50 for a job at 1.9x, $0.263 a job-hour) beats the
    $0.30 VM. When the 2-wide copy is left unpackable (as `packing_offers` leaves any copy ranked past an
    unlimited offer), its whole rentals must still count in the listing's row: the plan once rented the machine
    whole for that job and packed displaced work on its 1-wide copy in the same hours (35,088 instance-hours of a
    17,544-hour listing) and came out $646 cheaper than the model with every copy packable."""
    owned, cloud = RTX_3090_HOSTED, listing_and_vm(0.30)
    core = core_of(owned, cloud, 8, 1.0, 0.15, availability=0.5, max_owned_gpus=7)
    pack = next(c for c in core.options.cloud if c.name == "pack")
    wide = replace(pack, key=f"{pack.key}/w2", slots=1, speed=1.9, width=2, offer=pack.key)
    offers = [pack, wide, *(c for c in core.options.cloud if c.name != "pack")]
    with patch.object(model_build, "packing_offers", lambda cloud: np.array([c.key != wide.key for c in cloud])):
        narrowed = solve(core.owned_main, offers, core.options.hosts, core.blocks, core.limits)
    every = solve(core.owned_main, offers, core.options.hosts, core.blocks, core.limits)
    cells = model_arrays.cells_of(core.blocks)
    used = sum(np.bincount(cells.block, narrowed.instances.get(c.key, np.zeros(len(cells.jobs))) * cells.hours,
                           minlength=len(core.blocks)) + narrowed.packed_hours.get(c.key, np.zeros(len(core.blocks)))
               for c in (pack, wide))
    assert (used <= np.array([b.hours for b in core.blocks]) + 1e-6).all()
    assert narrowed.objective == pytest.approx(every.objective, rel=1e-9)
