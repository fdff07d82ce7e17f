"""First-come-first-served waits over the hourly timeline (solvers.demand.waits), on cases derived by hand."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from solvers.demand.waits import day_pattern, fcfs_waits, rented_in_batches, window_ids


def test_a_burst_queues_on_flat_capacity_and_drains_oldest_first() -> None:
    # 3 GPU-hours arrive in hour 0, capacity 1 an hour: 1 served at once, 2 wait; the last runs in hour 2
    waits = fcfs_waits(np.array([3.0, 0, 0, 0]), np.ones(4), [(0, 4)])
    assert waits.waited_gpu_hours == [pytest.approx(2.0)]
    assert waits.max_wait_hours == [2.0]


def test_capacity_never_serves_work_before_it_arrives() -> None:
    # idle capacity in hours 0-1 is lost: the 2 GPU-hours of hour 2 still wait one hour
    waits = fcfs_waits(np.array([0.0, 0, 2, 0]), np.ones(4), [(0, 4)])
    assert waits.waited_gpu_hours == [pytest.approx(1.0)]
    assert waits.max_wait_hours == [1.0]


def test_the_queue_carries_into_the_next_period_and_waits_count_where_work_arrived() -> None:
    waits = fcfs_waits(np.array([4.0, 0, 0, 0]), np.ones(4), [(0, 2), (2, 4)])
    assert waits.waited_gpu_hours == [pytest.approx(3.0), 0.0]
    assert waits.max_wait_hours == [3.0, 0.0]


def test_work_left_at_the_horizon_waits_until_its_end() -> None:
    waits = fcfs_waits(np.array([5.0, 0]), np.ones(2), [(0, 2)])
    assert waits.waited_gpu_hours == [pytest.approx(4.0)]
    assert waits.max_wait_hours == [2.0]


def test_enough_capacity_means_no_wait() -> None:
    waits = fcfs_waits(np.array([1.0, 2, 0.5]), np.full(3, 2.0), [(0, 3)])
    assert waits.waited_gpu_hours == [0.0] and waits.max_wait_hours == [0.0]


def test_the_utilisation_forms_day_pattern() -> None:
    day = day_pattern(2.0, 0.25, 48)  # 6 h a day at 2 GPUs, from midnight
    assert day[:6].tolist() == [2.0] * 6 and day[6:24].sum() == 0 and day.sum() == pytest.approx(24.0)
    assert day_pattern(1.0, 0.5 / 24, 24)[0] == pytest.approx(0.5)


def test_rented_hours_go_to_the_hours_whose_work_exceeds_the_owned_gpus() -> None:
    arrivals, owned = np.array([0.0, 3, 0, 2]), np.ones(4)
    # one window of 4 h renting 0.5 GPUs on average: 2 GPU-hours, all taken by hour 1's excess of 2
    one = rented_in_batches(arrivals, owned, np.full(4, 0.5), np.zeros(4, dtype=np.int64), 1.0)
    assert one.tolist() == [0.0, 2.0, 0.0, 0.0]
    # two windows of 2 h: 1 GPU-hour each, each taken where its own window's work exceeds the owned GPU
    two = rented_in_batches(arrivals, owned, np.full(4, 0.5), np.array([0, 0, 1, 1]), 1.0)
    assert two.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_a_wide_instance_is_rented_when_its_gpus_are_full_or_the_window_ends() -> None:
    # one GPU of work an hour, nothing owned, a 4-GPU instance: work queues until four GPUs' worth is there
    four = rented_in_batches(np.ones(4), np.zeros(4), np.ones(4), np.zeros(4, dtype=np.int64), 4.0)
    assert four.tolist() == [0.0, 0.0, 0.0, 4.0]
    # the window's last hour runs what is queued, full or not
    assert rented_in_batches(np.array([1.0, 1, 0]), np.zeros(3), np.full(3, 2 / 3), np.zeros(3, dtype=np.int64),
                             4.0).tolist() == [0.0, 0.0, pytest.approx(2.0)]


def test_patience_windows_are_calendar_days_iso_weeks_and_months() -> None:
    wednesday = dt.date(2027, 1, 6)
    assert window_ids("day", wednesday, [(0, 72)], 72).tolist() == [0] * 24 + [1] * 24 + [2] * 24
    weeks = window_ids("week", wednesday, [(0, 24 * 7)], 24 * 7)  # Wednesday to Tuesday: the week turns on Monday
    assert weeks[24 * 5 - 1] == 0 and weeks[24 * 5] == 1
    assert window_ids("month", wednesday, [(0, 10), (10, 20)], 20).tolist() == [0] * 10 + [1] * 10
