"""The page says in the reader's language what the API says in English (static/plan-text.js, run in Node): the
recommendation composed from the plan's fields is word for word the API's sentence in English and is French or
Chinese on those pages; every warning code and API value has a string in every locale; the fixed sentences the
page translates are the API's own."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from pricing.observation import COMMITMENT_PRICING, PAYMENTS
from service.plans.examples import (
    CATALOG_EXAMPLE,
    FINANCE_EXAMPLE,
    PLACE_EXAMPLE,
    SERIES_EXAMPLE,
    WORKED_EXAMPLE,
    WORKLOAD_EXAMPLE,
)
from service.web.i18n import LOCALE_NAMES, catalogue
from solvers.base.notices import EXTRA_PARAMS, TEMPLATES
from solvers.base.plan_lines import BuyLine, CloudLine
from solvers.base.profile import Profile
from solvers.explain.break_even import THRESHOLDS_NOTE
from solvers.plan import make_plan
from solvers.replan import sensitivity
from tests.service.web.node_page import NODE, run_page

TODAY = dt.date(2026, 11, 10)
# a lab that buys one card and reserves the rest (own quotes): the sentence's "Buy ... reserve ..." clauses
RESERVES = {"workload": "transformer_training", "horizon_months": 12, "electricity_usd_per_kwh": 0.15,
            "demand": {"gpus": 4, "utilisation": 0.9, "reading": "average", "reference_gpu": "RTX 4090"},
            "options": {"allow_commitments": True, "max_owned_gpus": 1},
            "prices": {"mode": "replace",
                       "owned": [{"name": "RTX 4090 workstation", "gpu": "RTX 4090", "unit_price_usd": 2500,
                                  "includes_host": True, "watts": 600}],
                       "cloud": [{"provider": "acme", "name": "4090", "gpu": "RTX 4090", "usd_per_hour": 0.8}],
                       "commitments": [{"provider": "acme", "name": "4090-1y", "gpu": "RTX 4090", "usd_per_hour": 0.5,
                                        "term_months": 12}]}}
# cards in a host machine ("... in 1 x 2-GPU workstation"), in dollars so the money is written as the API writes it;
# at 80% use: with the 2026 host prices (USD 3,170 for a 2-GPU workstation without GPUs) two cards at the example's
# 40% no longer pay for their host against renting, and the plan would not reach the hosts clause
IN_A_HOST = {**PLACE_EXAMPLE, "currency": "USD", "demand": {**PLACE_EXAMPLE["demand"], "utilisation": 0.8},
             "prices": {"owned": [{**PLACE_EXAMPLE["prices"]["owned"][0], "currency": "USD"}]}}
# a student who buys a used card whose name says so ("RTX 3090 (used, eBay)"): the sentence says "used" once
USED_CARD = {"workload": "transformer_training", "min_gpu_memory_gb": 24, "horizon_months": 36,
             "demand": {"gpus": 1, "utilisation": 0.7, "reference_gpu": "RTX 3090"},
             "electricity_usd_per_kwh": 0.15, "options": {"allow_marketplace": False}}
# renting an offer whose name begins with its provider's ("fal-ai-b200-1x"): the provider is said once
NAMED_OFFER = {"workload": "transformer_training", "horizon_months": 12, "electricity_usd_per_kwh": 0.15,
               "demand": {"gpus": 1, "utilisation": 0.3, "reference_gpu": "RTX 3090"},
               "prices": {"mode": "replace", "owned": [],
                          "cloud": [{"provider": "fal-ai", "name": "fal-ai-b200-1x", "gpu": "RTX 3090",
                                     "usd_per_hour": 0.5}]}}
EXAMPLES = {"named_offer": NAMED_OFFER, "used_card": USED_CARD, "worked": WORKED_EXAMPLE, "catalog": CATALOG_EXAMPLE,
            "series": SERIES_EXAMPLE,
            "workload": WORKLOAD_EXAMPLE, "finance": FINANCE_EXAMPLE, "reserves": RESERVES, "in_a_host": IN_A_HOST}
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


@pytest.fixture(scope="module")
def plans() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Each example's plan as the API answers it (USD plans: the page writes their money as the API does)."""
    catalog = bundled_catalog()
    return {name: (make_plan(Profile.model_validate(p), catalog, TODAY).model_dump(mode="json"), p)
            for name, p in EXAMPLES.items()}


def _composed(plans: list[tuple[dict[str, Any], dict[str, Any]]], locale: str) -> list[str]:
    said: list[str] = run_page(["plan-text.js"], "console.log(JSON.stringify(INPUT.map(([plan, profile]) => "
                               "gpText.recommendation(plan, profile))));", plans, locale)
    return said


@needs_node
def test_the_english_page_composes_the_apis_own_sentence(plans: dict[str, Any]) -> None:
    chosen = list(plans.values())
    kinds = {"buy": False, "rent": False, "reserve": False, "no_pay": False, "hosts": False}
    for plan, _ in chosen:
        kinds["buy"] |= bool(plan["buy"])
        kinds["hosts"] |= bool(plan["hosts"])
        kinds["rent"] |= bool(plan["cloud"])
        kinds["reserve"] |= bool(plan["commitments"])
        kinds["no_pay"] |= not plan["buy"]
    assert all(kinds.values()), kinds  # the examples reach every clause of the sentence
    assert _composed(chosen, "en") == [plan["recommendation"] for plan, _ in chosen]


def test_an_offer_named_after_its_provider_names_it_once(plans: dict[str, Any]) -> None:
    plan, _ = plans["named_offer"]
    assert plan["recommendation"].startswith("Rent 2,628 h of fal-ai-b200-1x (any, on-demand)"), plan["recommendation"]
    assert "fal-ai fal-ai" not in plan["recommendation"]


def test_a_name_that_says_its_condition_is_not_followed_by_it_again(plans: dict[str, Any]) -> None:
    plan, _ = plans["used_card"]
    bought = plan["buy"][0]
    # a 2026 used price, "RTX 3090 (used, resale best deal, Sep 2026)" (issue 30; it was "(used, eBay)" of 2023)
    assert bought["condition"] == "used" and re.search(r"\(used, [^()]*\)$", bought["name"]), bought["name"]
    assert f"1 x {bought['name']} in " in plan["recommendation"], plan["recommendation"]
    assert "(used)" not in plan["recommendation"], plan["recommendation"]


@needs_node
def test_the_french_and_chinese_pages_say_the_recommendation_in_their_language(plans: dict[str, Any]) -> None:
    worked, profile = plans["worked"]
    buy = worked["buy"][0]
    days = math.ceil(worked["break_even"]["days"])
    saving = worked["alternatives"]["cloud_only"]["total_cost_usd"] - worked["total_cost_usd"]
    french, = _composed([(worked, profile)], "fr")
    # "Acheter 1 × <name> (neuf) ; économise 1 234 $US sur 36 mois ... après 293 jours." (fr-FR Intl: narrow no-break
    # spaces group thousands, "$US" follows the amount)
    assert french.startswith(f"Acheter 1 × {buy['name']} (neuf) ; économise "), french
    assert re.search(rf"{round(saving) % 1000:03d}\s\$US sur 36 mois", french), french
    assert french.endswith(f"l'achat est rentabilisé après {days} jours."), french
    chinese, = _composed([(worked, profile)], "zh-Hans")
    assert chinese.startswith(f"购买 1 × {buy['name']}（全新）；36 个月内比纯云方案节省 US$"), chinese
    assert chinese.endswith(f"；购买在 {days} 天后回本。"), chinese
    rent, rent_profile = plans["catalog"]
    assert not rent["buy"], "the catalog example rents only"
    french_rent, = _composed([(rent, rent_profile)], "fr")
    assert french_rent.startswith("Louer ") and "à la demande" in french_rent and "n'est pas rentable" in french_rent


def test_every_notice_code_and_api_value_has_a_string_in_every_locale() -> None:
    api_values = {f"api.condition.{v}" for v in BuyLine.model_fields["condition"].annotation.__args__}  # type: ignore[union-attr]
    api_values |= {f"api.pricing.{v}" for v in CloudLine.model_fields["pricing"].annotation.__args__}  # type: ignore[union-attr]
    api_values |= {f"api.pricing.{v}" for v in COMMITMENT_PRICING} | {f"api.payment.{v}" for v in PAYMENTS if v}
    for locale in LOCALE_NAMES:
        strings = catalogue(locale)
        for code, template in TEMPLATES.items():
            key = f"notice.{code}"
            assert key in strings, (locale, key)
            params = {m.split("!")[0].split(":")[0] for m in re.findall(r"\{(\w+[^}]*)\}", template)}
            params |= set(EXTRA_PARAMS.get(code, ()))
            # a locale may leave a parameter out (the page formats it anyway) but never name one the code lacks
            extra = set(re.findall(r"\{(\w+)\}", strings[key])) - params
            assert not extra, (locale, code, extra)
        assert api_values <= set(strings), (locale, api_values - set(strings))


def test_the_fixed_sentences_the_page_translates_are_the_apis_own() -> None:
    english = catalogue("en")
    assert english["r.thresholds_note"] == THRESHOLDS_NOTE
    assert english["r.sens_note"] == sensitivity.NOTE
    assert (english["sens.rent_only"], english["sens.no_plan"]) == (sensitivity.RENT_ONLY, sensitivity.NO_PLAN)


@needs_node
def test_warnings_and_offers_are_said_in_french(plans: dict[str, Any]) -> None:
    plan, _ = plans["catalog"]
    plan = {**plan, "notices": [{"code": "electricity_default", "params": {"usd_per_kwh": 0.175}, "text": "x"},
                                {"code": "not_known_to_the_page", "params": {}, "text": "kept as the API said"}]}
    offer = plan["break_even"]["cloud_price_threshold_offer"]
    said = run_page(["plan-text.js"], "console.log(JSON.stringify([INPUT.notices.map((n) => gpText.notice(INPUT, n)),"
                    " gpText.offer(INPUT, INPUT.break_even.cloud_price_threshold_offer)]));", plan, "fr")
    notices, offer_fr = said
    assert re.match(r"Aucun prix de l'électricité indiqué : 0,175\s\$US/kWh", notices[0]), notices[0]
    assert notices[1] == "kept as the API said"  # an unknown code falls back to the English text
    name = offer.split(" (")[0]
    assert offer_fr.startswith(f"{name} (") and " à " in offer_fr and "USD/h" not in offer_fr, (offer, offer_fr)


NAMES = ["RTX 4090 (used, eBay)", "RTX 5090 (new, street price, Feb 2026)", "RTX 3090 desktop (guide 2020)",
         "H100 PCIe (new, Amazon buy box)"]


@needs_node
@pytest.mark.parametrize(("locale", "expected"), [
    ("en", [*NAMES, "Dec 2026", "Jan 4, 2027", "start"]),
    ("fr", ["RTX 4090 (d'occasion, eBay)", "RTX 5090 (neuf, prix constaté, févr. 2026)",
            "RTX 3090 desktop (guide 2020)", "H100 PCIe (neuf, prix Amazon mis en avant)", "déc. 2026",
            "4 janv. 2027", "start"]),
    ("zh-Hans", ["RTX 4090（二手、eBay）", "RTX 5090（全新、市场价、2026年2月）", "RTX 3090 desktop (guide 2020)",
                 "H100 PCIe（全新、亚马逊推荐购买价）", "2026年12月", "2027年1月4日", "start"]),
])
def test_catalog_qualifiers_and_period_labels_are_in_the_readers_words(locale: str, expected: list[str]) -> None:
    """A catalog item's qualifier is translated where the page knows its words (a user's own name stays as written,
    English stays the API's), and a period's "2026-12" or "2027-01-04" is written as the locale writes dates."""
    said = run_page(["plan-text.js"], "console.log(JSON.stringify([...INPUT.map(gpText.productName),"
                    " gp.period('2026-12'), gp.period('2027-01-04'), gp.period('start')]))", NAMES, locale)
    assert said == expected
