"""The page's closed-form line says what the API's closed form buys: whole jobs of several GPUs, and a purchase kept
within the profile's limits (static/plan-result.js run in Node; skipped where Node is not installed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from service.web.i18n import catalogue
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile
from tests.service.web.node_page import NODE, run_page

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def _plan(profile: dict[str, Any]) -> dict[str, Any]:
    plan: dict[str, Any] = json.loads(make_plan(Profile.model_validate(profile), bundled_catalog(),
                                                TODAY).model_dump_json())
    return plan


def _formula(plan: dict[str, Any], locale: str) -> str:
    said: str = run_page(["plan-text.js", "plan-result.js"],
                         "const p = find(gpResult.thresholds(INPUT), 'p').filter((n) => n.className === 'formula');"
                         "console.log(JSON.stringify(p.map(text).join('')));", plan, locale)
    return said


def _capped() -> dict[str, Any]:
    """Four 1-GPU jobs every hour, $2,000 boxes, a $5,000 budget: the closed form buys two."""
    profile = simple_profile([owned_item(2000.0)], [cloud_item(1.0)], utilisation=1.0, pue=1.0, max_capex_usd=5000)
    profile["demand"]["gpus"] = 4
    return profile


def _wide() -> dict[str, Any]:
    """Jobs of 4 GPUs on bare cards: the closed form counts whole jobs."""
    profile = simple_profile([owned_item(700.0, watts=350, includes_host=False)],
                             [cloud_item(4.0, name="vm4", gpu_count=4)], utilisation=0.6, pue=1.0)
    profile["demand"]["gpus"] = 4
    profile["jobs"] = {"gpus_per_job": 4}
    return profile


@pytest.mark.parametrize("locale", ["en", "fr", "zh-Hans"])
def test_a_capped_closed_form_says_the_budget_keeps_it_below_the_demand(locale: str) -> None:
    plan = _plan(_capped())
    assert plan["break_even"]["simple"]["capped_by"] == "max_capex_usd"
    assert catalogue(locale)["r.simple_capped_max_capex_usd"] in _formula(plan, locale)
    uncapped = _plan({**_capped(), "options": {**_capped()["options"], "max_capex_usd": None}})
    assert catalogue(locale)["r.simple_capped_max_capex_usd"] not in _formula(uncapped, locale)


def test_wide_jobs_are_counted_in_whole_jobs() -> None:
    plan = _plan(_wide())
    simple = plan["break_even"]["simple"]
    assert (simple["gpus_per_job"], simple["units"]) == (4, 4 * simple["jobs"])
    said = _formula(plan, "en")
    assert f"{simple['units']} x RTX 3090 box 700.0 in {simple['hosts']} x " in said
    assert f"(jobs of 4 GPUs: {simple['jobs']} at once)" in said
    assert "jobs of" not in _formula(_plan(_capped()), "en")  # one-GPU jobs: nothing to add
