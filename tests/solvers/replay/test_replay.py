"""The replay on its own (solvers/replay/hourly.py): small fleets and demands whose hour-by-hour cost is worked out by
hand
from the rules in its docstring, so the referee of the model's cost is itself checked from outside."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from solvers.base.options import CloudOption, OwnedOption
from solvers.base.profile import Profile
from solvers.replay.hourly import replay
from solvers.replay.serving import Fleet
from tests.conftest import TODAY

RATE = 0.10


def owned(speed: float = 1.0, price: float = 100.0, slots: int = 1, kwh: float = 0.3,
          availability: float | None = None) -> OwnedOption:
    return OwnedOption(key="own:0", name="card", gpu="RTX 4090", condition="new", gpus_per_unit=slots,
                       unit_price_usd=price, includes_host=True, throughput=speed, marginal_kwh_per_gpu_hour=kwh,
                       idle_kwh_per_unit_hour=0.0, card_watts=300.0, resale_usd=0.0, memory_gb=24,
                       slots_per_unit=float(slots), vendor="v", source="s", as_of="2026-01-01", feed="request",
                       availability=availability)


def cloud(price: float = 1.0, speed: float = 1.0, gpus: int = 1, quota: float | None = None,
          key: str = "cloud:0") -> CloudOption:
    return CloudOption(key=key, provider="p", name="vm", gpu="RTX 3090", gpu_count=gpus, usd_per_hour=price,
                       region="r", pricing="on_demand", ref_hours_per_hour=gpus * speed, max_instances=quota,
                       source="s", as_of="2026-01-01", feed="request", slots=gpus, speed=speed)


def hourly(busy: list[float], patience: str = "none", **jobs: Any) -> Profile:
    return Profile.model_validate({
        "workload": "transformer_training", "horizon_days": len(busy) // 24,
        "demand": {"start": "2027-01-04T00:00:00Z", "busy_gpus": busy, "reference_gpu": "RTX 3090"},
        "jobs": {"patience": patience, "scaling_efficiency": 1.0, **jobs},
        "options": {"availability": 1.0}})


def test_owned_first_then_the_cheapest_whole_instances() -> None:
    """A day at 3 jobs for 12 h and 1 job for 12 h; one owned 1-slot card (0.3 kWh an hour at $0.10); a 2-GPU
    instance at $1.50/h. Owned runs one job every hour: 24 h x $0.03. The 2 extra jobs of the busy hours take one
    2-GPU instance: 12 h x $1.50. Total 100 + 0.72 + 18."""
    played = replay(hourly([3.0] * 12 + [1.0] * 12), Fleet([(owned(), 1)], [], [cloud(1.5, gpus=2)]), TODAY, RATE)
    assert played.energy_usd == pytest.approx(24 * 0.03)
    assert played.rent_usd == pytest.approx(12 * 1.5)
    assert played.total_usd == pytest.approx(100 + 0.72 + 18)
    assert played.owned.sum() == pytest.approx(24.0) and played.rented.sum() == pytest.approx(24.0)


def test_a_fast_card_idles_after_its_job_but_does_three_jobs_of_waiting_work() -> None:
    """3 jobs every hour of a day; one 3x card. Patience none: it holds one job an hour, busy 20 minutes (24 h x
    1/3 x $0.03), and 2 jobs an hour are rented at $1 (48 h). Patience day: it does the day's 72 reference hours in
    24 h, nothing rented."""
    fleet = Fleet([(owned(speed=3.0), 1)], [], [cloud(1.0)])
    slotted = replay(hourly([3.0] * 24), fleet, TODAY, RATE)
    assert slotted.rent_usd == pytest.approx(48.0)
    assert slotted.energy_usd == pytest.approx(24 / 3 * 0.03)
    fluid = replay(hourly([3.0] * 24, "day"), fleet, TODAY, RATE)
    assert fluid.rent_usd == pytest.approx(0.0)
    assert fluid.energy_usd == pytest.approx(24 * 0.03)


def test_a_slow_card_overruns_into_its_idle_hours_then_onto_packed_cloud_hours() -> None:
    """One 0.5x card, one job for 8 h of each day of a week (a month of hours is not needed: the overrun is taken in
    the same month). It holds the job 8 h and overruns 8 h more into its 16 idle hours: busy 16 h a day, all its
    own, nothing rented. With the job 20 h a day it would need 40 h: 24 h are its own, 16 h of slot time (8
    reference job-hours) a day go to packed hours of the $1 instance: 7 x 8 x $1."""
    fleet = Fleet([(owned(speed=0.5), 1)], [], [cloud(1.0)])
    short = replay(hourly(([1.0] * 8 + [0.0] * 16) * 7), fleet, TODAY, RATE)
    assert short.rent_usd == pytest.approx(0.0) and short.displaced_usd == pytest.approx(0.0)
    assert short.energy_usd == pytest.approx(7 * 16 * 0.03)
    long = replay(hourly(([1.0] * 20 + [0.0] * 4) * 7), fleet, TODAY, RATE)
    assert long.displaced_usd == pytest.approx(7 * 8 * 1.0)
    assert long.energy_usd == pytest.approx(7 * 24 * 0.03)


def test_maintenance_goes_to_packed_hours_when_they_cost_less_than_energy() -> None:
    """One job every hour of a week on a card 90% available: 10% of its 168 h (16.8 h, 16.8 reference job-hours) may
    go to packed cloud hours. An 8-GPU instance at $0.40/h packs 8 jobs an hour: $0.05 a job-hour, more than the
    card's $0.03: only what must go goes (the card has no idle hours: 16.8 x 0.05). Two cards of the option (336
    slot-hours, the job 168 of them): nothing must go, and at $0.40 nothing does; at $0.16/h ($0.02 a job-hour) the
    option's maintenance share goes, 10% of its 336 slot-hours (33.6, within the 168 it is busy), pooled over its
    cards as the model pools them."""
    week = [1.0] * 168
    dear = replay(hourly(week), Fleet([(owned(availability=0.9), 1)], [], [cloud(0.40, gpus=8)]), TODAY, RATE)
    assert dear.displaced_usd == pytest.approx(16.8 * 0.05)
    idle = replay(hourly(week), Fleet([(owned(availability=0.9), 2)], [], [cloud(0.40, gpus=8)]), TODAY, RATE)
    assert idle.displaced_usd == pytest.approx(0.0)  # the second card covers the first's maintenance for free
    cheap = replay(hourly(week), Fleet([(owned(availability=0.9), 2)], [], [cloud(0.16, gpus=8)]), TODAY, RATE)
    assert cheap.displaced_usd == pytest.approx(33.6 * 0.02)
    assert cheap.energy_usd == pytest.approx((168 - 33.6) * 0.03)


def test_a_listing_is_one_machine_an_hour_however_fast() -> None:
    """Work that may wait: 4 reference jobs every hour of a day; a one-machine listing of a 2x GPU at $0.50/h packs
    2 reference jobs an hour; the rest on an unlimited $1.00 instance: 24 x 0.5 + 24 x 2 x 1.0."""
    fleet = Fleet([], [], [cloud(0.5, speed=2.0, quota=1, key="cloud:l"), cloud(1.0, key="cloud:u")])
    played = replay(hourly([4.0] * 24, "day"), fleet, TODAY, RATE)
    assert played.rent_usd == pytest.approx(24 * 0.5 + 48 * 1.0)


def test_the_horizon_and_the_hours_start_where_the_profile_says() -> None:
    played = replay(hourly([1.0] * 48), Fleet([], [], [cloud(1.0)]), TODAY, RATE)
    assert played.start == dt.date(2027, 1, 4) and len(played.demand) == 48
