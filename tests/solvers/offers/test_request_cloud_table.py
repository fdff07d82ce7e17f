"""Issue 31: a profile's own cloud quotes become table columns from arrays (solvers/offers/options.py) and are
converted to
USD without a copy of each quote (solvers/offers/place_inputs.py); every value is the one the DataFrame path made."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields

import numpy as np
import pandas as pd
import pytest

from pricing.catalog import bundled_catalog, normalise_cloud
from solvers.base.errors import ProfileError
from solvers.base.profile import Profile
from solvers.offers.cloud import request_cloud_table
from solvers.offers.cloud_table import CloudTable
from solvers.offers.place_inputs import prepare
from tests.conftest import cloud_item

TODAY = dt.date(2026, 11, 21)
SPELLINGS = ["RTX 3090", "rtx-3090", "H100 SXM", "A100 80GB", "L4", "RTX 4090"]


def _profile(rows: int = 300, **extra: object) -> Profile:
    cloud = [cloud_item(0.1 + 0.37 * i % 7, gpu=SPELLINGS[i % len(SPELLINGS)], name=f" q{i} ",
                        provider=["TestCloud", "vast", "lambda"][i % 3], region=["r1", "eu", ""][i % 3],
                        pricing="spot" if i % 5 == 0 else "on_demand", gpu_count=1 + i % 8,
                        max_instances=None if i % 4 else 3, as_of=None if i % 2 else "2026-10-0" + str(1 + i % 9),
                        verified=i % 7 == 0, source="" if i % 6 == 0 else "quote sheet", **extra)
             for i in range(rows)]
    return Profile.model_validate({"workload": "transformer_training", "horizon_months": 12,
                                   "demand": {"gpus": 1, "utilisation": 0.5, "reference_gpu": "RTX 3090"},
                                   "prices": {"mode": "replace", "cloud": cloud}})


def _frame_path(profile: Profile) -> CloudTable:
    """What options.py did before: a DataFrame of strings, normalised like a catalog file."""
    items = profile.prices.cloud
    frame = pd.DataFrame({
        "provider": [c.provider for c in items], "name": [c.name for c in items], "gpu": [c.gpu for c in items],
        "gpu_count": [str(c.gpu_count) for c in items], "usd_per_hour": [str(c.usd_per_hour) for c in items],
        "region": [c.region for c in items], "pricing": [c.pricing for c in items],
        "source": [c.source or "request" for c in items], "as_of": [(c.as_of or TODAY).isoformat() for c in items],
        "max_instances": ["" if c.max_instances is None else str(c.max_instances) for c in items]}, dtype=str)
    out = normalise_cloud(frame, bundled_catalog().gpus, "request", "prices.cloud")
    out["verified"] = [c.verified for c in items]
    return CloudTable.of(out)


def test_the_columns_are_those_the_frame_path_made() -> None:
    profile = _profile()
    arrays, frame = request_cloud_table(profile, bundled_catalog().gpus, TODAY), _frame_path(profile)
    for column in fields(CloudTable):
        ours, theirs = getattr(arrays, column.name), getattr(frame, column.name)
        assert ours.dtype.kind == theirs.dtype.kind, column.name
        np.testing.assert_array_equal(ours, theirs, err_msg=column.name)
    assert arrays.listing.any() and arrays.verified.any() and np.isnan(arrays.max_instances).any()


def test_an_unknown_gpu_names_its_row() -> None:
    profile = _profile(10)
    profile.prices.cloud[7] = profile.prices.cloud[7].model_copy(update={"gpu": "RTX 9999"})
    with pytest.raises(ProfileError) as refused:
        request_cloud_table(profile, bundled_catalog().gpus, TODAY)
    assert refused.value.field == "prices.cloud[7].gpu"


@pytest.mark.parametrize(("currency", "carbon"), [("USD", None), ("EUR", None), ("USD", 80.0), ("mixed", None)])
def test_quotes_in_usd_are_kept_and_others_converted(currency: str, carbon: float | None) -> None:
    profile = _profile(30, currency="USD" if currency == "mixed" else currency)
    if currency == "mixed":  # every other quote in euros: those are converted, the others kept as they are
        profile.prices.cloud[1::2] = [q.model_copy(update={"currency": "EUR"}) for q in profile.prices.cloud[1::2]]
        converted = prepare(profile, bundled_catalog()).profile.prices.cloud
        kept = [after is before for after, before in zip(converted, profile.prices.cloud, strict=True)]
        assert kept == [i % 2 == 0 for i in range(30)]
        assert all(q.currency == "USD" for q in converted)
        return
    if carbon is not None:
        profile = profile.model_copy(update={"options": profile.options.model_copy(
            update={"carbon_price_per_tonne": carbon})})
    catalog = bundled_catalog()
    converted = prepare(profile, catalog).profile.prices.cloud
    kept = [after is before for after, before in zip(converted, profile.prices.cloud, strict=True)]
    assert all(kept) if currency == "USD" and carbon is None else not all(kept)
    rate = catalog.fx.convert(1.0, currency, "USD")
    for after, before in zip(converted, profile.prices.cloud, strict=True):
        assert after.currency == "USD"
        assert after.usd_per_hour == pytest.approx(before.usd_per_hour * rate, rel=1e-12) or carbon is not None
        assert after.usd_per_hour >= before.usd_per_hour * rate * (1 - 1e-12)
