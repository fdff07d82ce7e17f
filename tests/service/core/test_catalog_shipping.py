"""The catalog crosses to plan workers once per catalog (service/core/catalog_shipping.py): pickled once in the
API process into a file, read once in a worker, never sent with each call, and the plan made on it is the plan
made on the original."""

from __future__ import annotations

import datetime as dt
import pickle
from dataclasses import replace

from pricing.catalog import bundled_catalog
from service.core.catalog_shipping import receive, ship, solve_on
from service.plans.examples import SERIES_EXAMPLE
from solvers.base.profile import Profile
from solvers.plan import make_plan


def test_one_catalog_is_pickled_and_unpickled_once() -> None:
    catalog = bundled_catalog()
    shipped = ship(catalog)
    assert ship(catalog) is shipped
    crossed = pickle.loads(pickle.dumps(shipped))  # what a worker receives: a copy with the same token
    unpacked = receive(crossed)
    assert unpacked is not catalog and unpacked.cloud.equals(catalog.cloud)
    assert receive(pickle.loads(pickle.dumps(shipped))) is unpacked  # the next plan reuses it


def test_a_call_carries_a_token_not_the_catalog() -> None:
    # the call message stays far below the pool's 64 kB pipe buffer (the pickled catalog alone is ~90 kB), so the
    # feeder thread writes it in one turn
    catalog = bundled_catalog()
    assert len(pickle.dumps(catalog)) > 64 * 1024
    assert len(pickle.dumps(ship(catalog))) < 1024


def test_a_new_catalog_is_shipped_anew() -> None:
    catalog = bundled_catalog()
    refreshed = replace(catalog, cloud=catalog.cloud.assign(usd_per_hour=catalog.cloud["usd_per_hour"] * 2))
    first, second = ship(catalog), ship(refreshed)
    assert first.token != second.token
    assert receive(second).cloud["usd_per_hour"].tolist() == refreshed.cloud["usd_per_hour"].tolist()
    assert receive(first).cloud["usd_per_hour"].tolist() == catalog.cloud["usd_per_hour"].tolist()


def test_the_plan_on_a_shipped_catalog_is_the_plan_on_the_original() -> None:
    catalog, today = bundled_catalog(), dt.date(2026, 11, 21)
    profile = Profile.model_validate(SERIES_EXAMPLE)
    shipped = pickle.loads(pickle.dumps(ship(catalog)))
    here = make_plan(profile, catalog, today).model_dump(exclude={"solver"})
    assert solve_on(make_plan, profile, shipped, today).model_dump(exclude={"solver"}) == here
    assert solve_on(make_plan, profile, catalog, today).model_dump(exclude={"solver"}) == here  # not shipped
