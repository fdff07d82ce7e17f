"""The page's card of a plan across its futures (issue 32), rendered in Node in every language of the page."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from service.web.i18n import LOCALE_NAMES
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.service.web.node_page import NODE, run_page

pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed")

RENDER = """
gp.setCurrency(INPUT.currency);
const card = gpRiskCard(INPUT);
const svgs = find(card, "svg");
console.log(JSON.stringify({text: text(card), svgs: svgs.length, bars: find(card, "rect").length,
  lines: find(card, "polyline").length, bands: find(card, "polygon").length}));
"""


@cache
def _plan() -> dict[str, Any]:
    profile = {"workload": "transformer_training",
               "demand": {"gpus": 4, "utilisation": 0.6, "reference_gpu": "RTX 4090"},
               "horizon_months": 12, "electricity_usd_per_kwh": 0.15, "uncertainty": {"scenarios": 8}}
    return make_plan(Profile.model_validate(profile), bundled_catalog(), dt.date(2026, 11, 1)).model_dump(mode="json")


@pytest.mark.parametrize("locale", sorted(LOCALE_NAMES))
def test_the_risk_card_draws_its_fan_and_histogram(locale: str) -> None:
    plan = _plan()
    shown = run_page(["plan-risk.js"], RENDER, plan, locale)
    assert shown["svgs"] == 2 and shown["lines"] == 2 and shown["bands"] == 2
    assert shown["bars"] == 2 * 12  # twelve bins, plan and cloud only
    strings_used = "risk." not in shown["text"]  # every string came from the catalogue
    assert strings_used, shown["text"]
    assert "8" in shown["text"]


def test_no_card_without_uncertainty() -> None:
    plan = {**_plan(), "risk": None}
    assert run_page(["plan-risk.js"], "console.log(JSON.stringify(gpRiskCard(INPUT)));", plan) is None
