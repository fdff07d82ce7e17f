"""The charts in the reader's language: formats by hand and against the page's own (Intl in Node), every chart string
in every catalogue, and each chart drawn in French and Chinese carrying translated text and locale numbers and dates
(the SVG parsed as XML; text stays text). Direct calls where a chart needs no stored plan, so this stays fast."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pandas as pd
import pytest
from fastapi.testclient import TestClient
from matplotlib import font_manager

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import PLACE_EXAMPLE, WORKED_EXAMPLE
from service.usage import chart as usage_chart
from service.web import chart_draw, history_chart, plan_chart, replay_chart, sensitivity_chart
from service.web import chart_text as chart_text_module
from service.web.chart_draw import CJK_FAMILIES
from service.web.chart_text import chart_text
from service.web.history_chart import HISTORY_SERIES, price_history_svg
from service.web.i18n import LOCALE_NAMES, catalogue
from service.web.plan_chart import comparison_chart_svg
from service.web.sensitivity_chart import sensitivity_chart_svg
from solvers.base.fields import PlanCurrency
from solvers.base.result import PlanResult
from solvers.replan.sensitivity import RANGES, Sensitivity, SensitivityRow
from solvers.usage.result import UsageSeries, summarise
from tests.service.web.node_page import NODE, run_page
from tests.service.web.test_charts import _history

SVG_NS = "{http://www.w3.org/2000/svg}"
NB, NNB = "\u00a0", "\u202f"  # no-break space, narrow no-break space (French separators, as CLDR writes them)
CHART_MODULES = (chart_draw, plan_chart, history_chart, sensitivity_chart, replay_chart, usage_chart, chart_text_module)
FRENCH_MONTHS = ("janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc.")


def chart_keys() -> set[str]:
    """Every catalogue key the chart code reads, placeholders expanded: the chart series, the plan currencies and
    the sensitivity inputs (keys are string literals in the chart modules)."""
    expand = {"{key}": list(HISTORY_SERIES), "{currency}": list(get_args(PlanCurrency)),
              "{row.input}": [r.key for r in RANGES]}
    found: set[str] = set()
    for module in CHART_MODULES:
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        for key in re.findall(r"""f?["']((?:chart|r|c|sens|wi)\.[\w.{}-]+)["']""", source):
            slot = re.search(r"\{[\w.]+\}", key)
            found |= {key.replace(slot[0], v) for v in expand[slot[0]]} if slot else {key}
    return found


def _text(svg: bytes) -> str:
    """All the text of an SVG: its text elements and its document title (parsing fails on malformed XML)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    return " ".join("".join(el.itertext()) for el in root.iter() if el.tag == f"{SVG_NS}text"
                    or el.tag.endswith("}title"))


def test_every_chart_string_is_in_every_catalogue() -> None:
    keys = chart_keys()
    assert {"chart.plan.title", "chart.cur.EUR", "chart.history.cloud-spot", "sens.discount_rate", "r.cloud_only",
            "c.plan_n", "chart.fmt.months"} <= keys  # the scan finds literal, f-string and reused page keys
    for locale in LOCALE_NAMES:
        assert keys - set(catalogue(locale)) == set(), locale
        assert len(catalogue(locale)["chart.fmt.months"].split("|")) == 12, locale
    unused = {k for k in catalogue("en") if k.startswith("chart.")} - keys
    assert unused == set()


def test_numbers_money_and_dates_by_hand() -> None:
    en, fr, zh = chart_text("en"), chart_text("fr"), chart_text("zh-Hans")
    sep = dt.date(2027, 9, 19)
    # English: as the API's charts always wrote money; dates as the English page writes them
    assert (en.money(1234.5, "USD"), en.money(12.5, "EUR"), en.compact_money(25_000, "USD")) == ("$1,235", "€12.50",
                                                                                                  "$25k")
    assert (en.date(sep), en.month_year(sep), en.percent(0.184)) == ("Sep 19, 2027", "Sep 2027", "18.4%")
    # French: narrow no-break space between thousands, comma for decimals, the symbol after (dollars are $US)
    assert fr.number(1234.5) == f"1{NNB}234,5"
    assert fr.money(1234.5, "EUR") == f"1{NNB}235{NB}€"  # 1234.5 rounds half away from zero, as Intl does
    assert fr.money(-1_234_567.4, "USD") == f"-1{NNB}234{NNB}567{NB}$US"
    assert fr.compact_money(12_500, "EUR") == f"12,5{NB}k{NB}€"  # 12,500 / 1,000
    assert (fr.percent(0.184), fr.rate_money(0.175, "EUR")) == (f"18,4{NB}%", f"0,175{NB}€")
    assert (fr.date(sep), fr.month_year(dt.date(2027, 1, 5)), fr.day_month(sep)) == ("19 sept. 2027", "janv. 2027",
                                                                                      "19 sept.")
    # Chinese: ten-thousands (万) for compact money; year-month-day with 年月日
    assert (zh.money(1234.5, "USD"), zh.money(8, "CNY"), zh.compact_money(25_000, "USD")) == ("US$1,235", "¥8.00",
                                                                                              "US$2.5万")
    assert (zh.date(sep), zh.month_year(dt.date(2027, 1, 5)), zh.year(sep)) == ("2027年9月19日", "2027年1月", "2027年")
    assert chart_text("zh-CN").locale == "zh-Hans" and chart_text("de").locale == "en"  # read as the page reads ?lang=


needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
# money (value, currency) across whole units and cents, negative and every plan currency; numbers; shares; dates
SAMPLES: dict[str, Any] = {
    "money": [[1234567.4, "USD"], [-1234.5, "EUR"], [99.5, "GBP"], [0.5, "JPY"], [100, "CNY"], [45678, "INR"],
              [1500, "CHF"], [2.25, "CAD"], [31999.99, "AUD"]],
    "num": [[1234.56, None], [0.5, 2], [36, 0], [1234567, 0]],
    "pct": [0.184, 0.15, 0.0],
    "rate": [[0.175, "EUR"], [0.1165, "USD"]],
    "dates": ["2027-09-19", "2027-01-05", "2030-12-31"],
}
PAGE_FORMATS = """
const { money, num, pct, rateMoney, date, locale } = gp;
const monthYear = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", timeZone: "UTC" });
console.log(JSON.stringify({
  money: INPUT.money.map(([v, c]) => money(v, c)),
  num: INPUT.num.map(([v, d]) => (d === null ? num(v) : num(v, d))),
  pct: INPUT.pct.map(pct),
  rate: INPUT.rate.map(([v, c]) => rateMoney(v, c)),
  dates: INPUT.dates.map(date),
  month_year: INPUT.dates.map((d) => monthYear.format(new Date(`${d}T00:00:00Z`))),
}));
"""


@needs_node
@pytest.mark.parametrize("locale", list(LOCALE_NAMES))
def test_the_charts_write_numbers_as_the_page_does(locale: str) -> None:
    """The page formats with Intl; the charts with the catalogue's formats: the two must agree."""
    page = run_page([], PAGE_FORMATS, SAMPLES, locale)
    text = chart_text(locale)
    days = [dt.date.fromisoformat(d) for d in SAMPLES["dates"]]
    ours = {
        "money": [text.money(v, c) for v, c in SAMPLES["money"]],
        "num": [text.number(v) if d is None else text.number(v, d, d) for v, d in SAMPLES["num"]],
        "pct": [text.percent(v) for v in SAMPLES["pct"]],
        "rate": [text.rate_money(v, c) for v, c in SAMPLES["rate"]],
        "dates": [text.date(d) for d in days],
        "month_year": [text.month_year(d) for d in days],
    }
    assert ours == page


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    """One service for the module (the charts only read stored plans): two plans are made once, not per test."""
    database = tmp_path_factory.mktemp("chart-text") / "gpuplan.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{database}", scheduler=False)))


def _made(client: TestClient, profile: dict[str, Any]) -> dict[str, Any]:
    made = client.post("/v1/plans", json=profile)
    assert made.status_code == 201, made.text
    plan: dict[str, Any] = made.json()
    return plan


@pytest.fixture(scope="module")
def worked(client: TestClient) -> dict[str, Any]:
    return _made(client, WORKED_EXAMPLE)


@pytest.fixture(scope="module")
def in_euros(client: TestClient) -> PlanResult:
    return PlanResult.model_validate(_made(client, PLACE_EXAMPLE))


def test_the_plan_chart_in_french_and_chinese(client: TestClient, worked: dict[str, Any]) -> None:
    days, total = worked["break_even"]["days"], worked["total_cost_usd"]
    when = dt.date.fromisoformat(worked["horizon"]["start"]) + dt.timedelta(days=days)
    french = _text(client.get(f"/v1/plans/{worked['id']}/chart.svg?lang=fr").content)
    # day 293 or so; the total in whole dollars, e.g. 2 413 $US (hand: round, group by threes with U+202F)
    assert f"Point mort : jour {days:.0f}" in french
    assert f"{when.day} {FRENCH_MONTHS[when.month - 1]} {when.year}" in french
    assert f"{total:,.0f}".replace(",", NNB) + f"{NB}$US" in french
    assert "Coût cumulé sur 36 mois, USD" in french and "Tout cloud" in french and "Tout achat" in french
    assert re.search(r"\bjanv\. 20\d\d\b", french)  # a year's first tick names its month in French
    assert "gpuplan : coût cumulé, plan" in french  # the document's own title too
    assert "Break-even" not in french and "Cloud only" not in french

    response = client.get(f"/v1/plans/{worked['id']}/chart.svg", params={"lang": "zh-CN"})
    chinese = _text(response.content)
    assert f"回本：第 {days:.0f} 天" in chinese and f"{when.year}年{when.month}月{when.day}日" in chinese
    assert f"US${total:,.0f}" in chinese and "36 个月累计成本，USD" in chinese and "纯云端" in chinese
    assert re.search(r"20\d\d年1月", chinese)
    # laid out with the first CJK font installed here, which the SVG names after DejaVu Sans
    installed = [entry.name for entry in font_manager.fontManager.ttflist if entry.name in CJK_FAMILIES]
    if installed:
        first = min(installed, key=CJK_FAMILIES.index)
        assert f"font-family: 'DejaVu Sans', '{first}'" in response.text

    # without `lang`, English as before; a malformed tag is a 422 naming the field; every chart route takes it
    english = _text(client.get(f"/v1/plans/{worked['id']}/chart.svg").content)
    assert "Break-even: day" in english and "Cumulative cost over 36 months, USD" in english  # the API's default
    refused = client.get(f"/v1/plans/{worked['id']}/chart.svg", params={"lang": "fr<script>"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "lang"
    # every chart route reads `lang` (its 422 names it beside any other field missing; the OpenAPI document would
    # say so too, but building it costs about 0.3 s)
    for method, path in [("GET", f"/v1/plans/{worked['id']}/sensitivity.svg"), ("GET", "/v1/plans/compare.svg"),
                         ("GET", "/v1/prices/history.svg"), ("GET", "/v1/profiles/p/usage.svg"),
                         ("POST", "/v1/usage/chart.svg")]:
        refused = client.request(method, path, params={"lang": "fr_FR"})
        assert refused.status_code == 422 and "lang" in {e["field"] for e in refused.json()["errors"]}, path


def _row(key: str, unit: str, low: float, high: float, totals: tuple[float, float], changes: bool) -> SensitivityRow:
    return SensitivityRow(input=key, label=key, why="", base_value=1.0, low_value=low, high_value=high, unit=unit,
                          low_total_usd=totals[0], high_total_usd=totals[1], low_decision="a", high_decision="b",
                          decision_changes=changes, swing_usd=abs(totals[1] - totals[0]))


def test_the_tornado_in_french_for_a_plan_in_euros(in_euros: PlanResult) -> None:
    plan = in_euros
    assert plan.currency == "EUR" and plan.exchange_rates is not None
    usd_per_eur = next(r.usd_per_unit for r in plan.exchange_rates.rates if r.currency == "EUR")
    found = Sensitivity(base_total_usd=4998.0, base_decision="a", note="", rows=[
        _row("horizon", "months", 18, 72, (2821.0, 7725.0), True),
        # the rows give electricity in USD: 0.10 and 0.40 EUR/kWh, written in euros as the page's table does
        _row("electricity", "USD/kWh", 0.10 * usd_per_eur, 0.40 * usd_per_eur, (3650.0, 5642.0), False),
        _row("demand_scale", "x", 0.5, 2.0, (2821.0, 7540.0), True),
        _row("discount_rate", "per year", 0.0, 0.15, (4998.0, 5642.0), False),
    ])
    text = _text(sensitivity_chart_svg(found, plan, "fr"))
    assert f"Coût total quand une entrée varie (plan : 4{NNB}998{NB}€ ; hachuré : la décision change)" in text
    assert "18 mois à 72 mois" in text and f"2{NNB}821{NB}€ à 18 mois" in text
    assert f"0,10{NB}€/kWh à 0,40{NB}€/kWh" in text
    assert "0,5× à 2×" in text and f"0,0{NB}% à 15,0{NB}%" in text
    assert "Horizon" in text and "Prix de l'électricité" in text and "Demande" in text
    chinese = _text(sensitivity_chart_svg(found, plan, "zh-Hans"))
    assert "单个输入变化时的总成本（方案：€4,998；斜线：决策改变）" in chinese and "18 个月 至 72 个月" in chinese
    assert "72 个月 时 €7,725" in chinese and "€0.10/千瓦时 至 €0.40/千瓦时" in chinese
    # two dollar signs in one label are text, not TeX math between them (matplotlib's default)
    in_dollars = Sensitivity(base_total_usd=2413.0, base_decision="a", note="",
                             rows=[_row("electricity", "USD/kWh", 0.06, 0.24, (2307.0, 2626.0), False)])
    assert "US$0.06/千瓦时 至 US$0.24/千瓦时" in _text(sensitivity_chart_svg(in_dollars, None, "zh-Hans"))
    assert "$0.06/kWh to $0.24/kWh" in _text(sensitivity_chart_svg(in_dollars, None))


def test_compare_history_and_usage_charts_in_chinese_and_french(client: TestClient, worked: dict[str, Any]) -> None:
    plan = PlanResult.model_validate(worked)
    compared = _text(comparison_chart_svg([plan, plan], lang="zh-Hans"))
    assert "方案 1" in compared and "方案 2" in compared and "各方案累计成本，USD" in compared

    history = _history([("2025-01-01", "cloud", "a", "on_demand", "vm", 2.0, None),
                        ("2025-04-01", "cloud", "a", "spot", "vm", 1.25, 3),
                        ("2025-01-01", "used", "eBay", "list", "card", 700.0, None)])
    drawn = _text(price_history_svg("X", history, until=dt.datetime(2025, 6, 1, tzinfo=dt.UTC), lang="zh-Hans"))
    assert "X：价格走势" in drawn and "云端按需" in drawn and "云端竞价" in drawn and "二手" in drawn
    assert "2025年1月" in drawn and "2月" in drawn  # month ticks: the year where it starts, then month names
    french = _text(price_history_svg("X", history, until=dt.datetime(2025, 6, 1, tzinfo=dt.UTC), lang="fr"))
    assert "Cloud à la demande" in french and f"2,00{NB}$US" in french and "févr." in french  # cloud ticks in cents
    assert "Matériel, USD par GPU (le moins cher)" in french and f"200{NB}$US" in french

    # 30 hours from 2024-05-31 20:00: four in May, 26 in June; June's peak (3.5) is the busiest
    busy = np.array([0.5] * 4 + [1.5] * 25 + [3.5])
    series = UsageSeries(start=dt.datetime(2024, 5, 31, 20, tzinfo=dt.UTC), busy_gpus=busy, source_format="test",
                         observed=np.ones(busy.size, dtype=bool))
    usage = _text(usage_chart.usage_chart_svg(summarise(series), lang="zh-Hans"))
    assert "2024年6月（最忙）" in usage and "同时忙碌的 GPU，每月负荷持续曲线（2 个月）" in usage
    assert "占当月观测小时数的比例，%" in usage
    usage_fr = _text(usage_chart.usage_chart_svg(summarise(series), lang="fr"))
    assert "juin 2024 (le plus chargé)" in usage_fr and "2,5" in usage_fr.split()  # GPU ticks with a decimal comma


def test_empty_charts_say_so_in_the_readers_language() -> None:
    assert "aucun prix enregistré pour X" in _text(price_history_svg("X", pd.DataFrame(), lang="fr"))
    assert "没有输入改变方案" in _text(sensitivity_chart_svg(
        Sensitivity(base_total_usd=1.0, base_decision="a", rows=[], note=""), None, "zh-Hans"))


def test_a_cjk_font_installed_after_matplotlibs_font_cache_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # CI installs fonts-wqy-microhei on a machine whose matplotlib font list may already be cached without it
    if not any("wqy" in path.lower() for path in font_manager.findSystemFonts()):
        pytest.skip("no WenQuanYi font file on this machine (CI installs fonts-wqy-microhei)")
    stale = [entry for entry in font_manager.fontManager.ttflist if entry.name not in chart_draw.CJK_FAMILIES]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", stale)
    assert "WenQuanYi Micro Hei" in chart_draw._installed_cjk_families()
