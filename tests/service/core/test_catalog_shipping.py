"""The catalog crosses to plan workers once per catalog (service/core/catalog_shipping.py): pickled once in the
API process, unpickled once in a worker, and the plan made on it is the plan made on the original."""

from __future__ import annotations

import datetime as dt
import pickle
from dataclasses import replace

from pricing.catalog import bundled_catalog
from service.core.catalog_shipping import make_plan_shipped, receive, ship
from service.plans.examples import SERIES_EXAMPLE
from solvers.plan import make_plan
from solvers.profile import Profile


def test_one_catalog_is_pickled_and_unpickled_once() -> None:
    catalog = bundled_catalog()
    shipped = ship(catalog)
    assert ship(catalog) is shipped
    crossed = pickle.loads(pickle.dumps(shipped))  # what a worker receives: a copy with the same token
    unpacked = receive(crossed)
    assert unpacked is not catalog and unpacked.cloud.equals(catalog.cloud)
    assert receive(pickle.loads(pickle.dumps(shipped))) is unpacked  # the next plan reuses it


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
    assert make_plan_shipped(profile, shipped, today).model_dump(exclude={"solver"}) == here
