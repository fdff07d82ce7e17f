"""Issue 19: values that passed the plan request's schema and then failed inside the planner (a 500) are refused
where the request is read, naming the field and the rule (solvers/base/bounds.py); ordinary values are unchanged."""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from pricing.catalog import bundled_catalog
from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE, FINANCE_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE, WORKLOAD_EXAMPLE
from solvers.base.profile import Profile
from solvers.plan import make_plan

CLOUD = {"provider": "x", "name": "y", "gpu": "RTX 3090", "usd_per_hour": 1.0}
OWNED = {"name": "box", "gpu": "RTX 3090", "unit_price_usd": 2200}


def _with(base: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    target = out
    for part in path[:-1]:
        target = target.setdefault(part, {}) if isinstance(part, str) else target[part]
    target[path[-1]] = value
    return out


PRICED = {**CATALOG_EXAMPLE, "prices": {"cloud": [CLOUD], "owned": [OWNED]}}
# (request, field the 422 names, rule): the probe's cases first, then their neighbours
REFUSED = [
    (_with(SERIES_EXAMPLE, ("demand", "series", 0, "month"), "9999-12"), "demand.series[0].month", "date_range"),
    (_with(SERIES_EXAMPLE, ("demand", "series", 0, "month"), "0000-01"), "demand.series[0].month", "date_range"),
    (_with(CATALOG_EXAMPLE, ("demand", "start"), "9999-12-01"), "demand.start", "date_range"),
    (_with(CATALOG_EXAMPLE, ("demand", "start"), "0001-01-01"), "demand.start", "date_range"),
    (_with(CATALOG_EXAMPLE, ("demand", "start"), "1900-01-01"), "demand.start", "date_range"),
    (_with(SERIES_EXAMPLE, ("demand", "series", 0, "reference_gpu_hours"), 1e308),
     "demand.series[0].reference_gpu_hours", "less_than_equal"),
    (_with(PRICED, ("prices", "cloud", 0, "max_instances"), 10**400), "prices.cloud[0].max_instances", None),
    (_with(CATALOG_EXAMPLE, ("options", "availability"), 1e-320), "options.availability", "greater_than_equal"),
    (_with(PRICED, ("prices", "owned", 0, "unit_price_usd"), 1e-320), "prices.owned[0].unit_price_usd", "too_small"),
    (_with(PRICED, ("prices", "owned", 0, "unit_price_usd"), 1e308), "prices.owned[0].unit_price_usd",
     "less_than_equal"),
    (_with(PRICED, ("prices", "cloud", 0, "usd_per_hour"), 5e-324), "prices.cloud[0].usd_per_hour",
     "greater_than_equal"),
    (_with(PRICED, ("prices", "owned", 0, "as_of"), "0001-01-01"), "prices.owned[0].as_of", "date_range"),
    (_with(CATALOG_EXAMPLE, ("demand", "utilisation"), 1e-320), "demand.utilisation", "greater_than_equal"),
    (_with(CATALOG_EXAMPLE, ("options", "max_capex_usd"), 1e308), "options.max_capex_usd", "less_than_equal"),
    (_with(CATALOG_EXAMPLE, ("throughput_overrides", "RTX 4090"), 1e-320), "throughput_overrides.RTX 4090",
     "greater_than_equal"),
    # issue 31: a monthly rate that vanishes beside 1 divided the annuity by zero; a subnormal job size or token
    # count made hours infinite
    *[(_with(FINANCE_EXAMPLE, ("options", "financing", "annual_rate"), rate), "options.financing.annual_rate",
       "too_small") for rate in (1e-320, 1e-16, 1e-15)],
    (_with(WORKLOAD_EXAMPLE, ("workload", "tokens"), 1e-320), "workload.tokens", "greater_than_equal"),
    (_with(WORKLOAD_EXAMPLE, ("workload", "model", "params_b"), 5e-324), "workload.model.params_b",
     "greater_than_equal"),
    # issue 31: names are short (a 3.9 MB quote name became a 488 MB answer)
    *[(_with(PRICED, ("prices", kind, 0, key), "n" * 201), f"prices.{kind}[0].{key}", "string_too_long")
      for kind, key in (("owned", "name"), ("owned", "gpu"), ("owned", "source"), ("cloud", "name"),
                        ("cloud", "provider"), ("cloud", "region"))],
    (_with(CATALOG_EXAMPLE, ("demand", "reference_gpu"), "g" * 201), "demand.reference_gpu", "string_too_long"),
    (_with(CATALOG_EXAMPLE, ("options", "providers"), ["p" * 201]), "options.providers[0]", "string_too_long"),
]


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False)),
                    raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize(("body", "field", "rule"), REFUSED)
def test_extreme_values_are_a_422_naming_the_field(client: TestClient, body: dict[str, Any], field: str,
                                                   rule: str | None) -> None:
    answer = client.post("/v1/plans", json=body)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert [e["field"] for e in errors] == [field], errors
    if rule is not None:
        assert errors[0]["rule"] == rule, errors
    saved = client.post("/v1/profiles", json={"name": "extreme", "profile": body})
    assert saved.status_code == 422 and saved.json()["errors"][0]["field"] == f"profile.{field}", saved.text
    assert client.get("/healthz").status_code == 200  # the connection and the service are fine afterwards


@pytest.mark.parametrize(("path", "value"), [
    (("demand", "start"), "2000-01-01"), (("demand", "start"), "2100-12-01"), (("options", "availability"), 0.01),
    (("demand", "utilisation"), 1e-6), (("options", "max_capex_usd"), 0),
])
def test_values_at_the_bounds_still_plan(path: tuple[Any, ...], value: Any) -> None:
    profile = Profile.model_validate(_with(CATALOG_EXAMPLE, path, value))
    assert make_plan(profile, bundled_catalog(), dt.date(2026, 11, 21)).total_cost_usd >= 0


def test_edge_months_of_a_series_still_plan() -> None:
    series = {"workload": "cnn_training", "demand": {"reference_gpu": "RTX 3090", "series": [
        {"month": "2100-11", "reference_gpu_hours": 100}, {"month": "2100-12", "reference_gpu_hours": 1e9}]}}
    assert make_plan(Profile.model_validate(series), bundled_catalog(), dt.date(2026, 11, 21)).total_cost_usd > 0


def test_a_name_of_two_hundred_characters_and_a_small_rate_still_plan() -> None:
    named = _with(PRICED, ("prices", "cloud", 0, "name"), "n" * 200)
    financed = _with(FINANCE_EXAMPLE, ("options", "financing", "annual_rate"), 1e-6)
    for body in (named, financed):
        assert make_plan(Profile.model_validate(body), bundled_catalog(), dt.date(2026, 11, 21)).total_cost_usd > 0


def test_a_free_gpu_is_still_a_valid_price() -> None:
    assert Profile.model_validate(_with(PRICED, ("prices", "owned", 0, "unit_price_usd"), 0))


@pytest.mark.parametrize("month", ["2027-13", "27-01", "2027-1"])
def test_month_format_is_still_checked(month: str) -> None:
    with pytest.raises(ValidationError, match="month must be YYYY-MM"):
        Profile.model_validate(_with(SERIES_EXAMPLE, ("demand", "series", 0, "month"), month))


@pytest.mark.parametrize("efficiency", [5e-324, 0.0, 0.009, 1.01])
def test_a_scaling_efficiency_outside_its_range_is_a_field_error(efficiency: float) -> None:
    """The fuzz found 5e-324 answering 500: the work divided by it overflowed the load-duration curve."""
    profile = {**WORKED_EXAMPLE, "jobs": {"gpus_per_job": 1, "scaling_efficiency": efficiency}}
    with pytest.raises(ValidationError) as refused:
        Profile.model_validate(profile)
    assert refused.value.errors()[0]["loc"] == ("jobs", "scaling_efficiency")


def test_the_smallest_scaling_efficiency_allowed_still_plans() -> None:
    profile = Profile.model_validate({**WORKED_EXAMPLE, "jobs": {"gpus_per_job": 1, "scaling_efficiency": 0.01}})
    plan = make_plan(profile, bundled_catalog(), dt.date(2026, 11, 23))
    assert plan.total_cost_usd > 0
