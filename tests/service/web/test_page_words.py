"""Issue 33's server side of the page: what the compare page reads from the planning form's templates (a choice's
words, the fields taken in percent), chart text wrapped to its canvas (Chinese between characters, punctuation
kept with what it closes), the narrow tornado, and a discounted plan named so on the comparison chart. The browser
measures the drawn result (tests/e2e/test_page_fits.py, test_page_says.py); these pin the parts fast."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE
from service.web.chart_fit import _tokens
from service.web.chart_text import chart_text
from service.web.form_schema import field_value_texts, fill_slots, percent_fields
from service.web.i18n import catalogue
from service.web.plan_chart import comparison_chart_svg
from service.web.sensitivity_chart import sensitivity_chart_svg
from solvers.base.result import PlanResult
from solvers.replan.sensitivity import Sensitivity, SensitivityRow

SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    database = tmp_path_factory.mktemp("page-words") / "gpuplan.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{database}", scheduler=False)))


@pytest.fixture(scope="module")
def worked(client: TestClient) -> dict[str, Any]:
    answer = client.post("/v1/plans", json=WORKED_EXAMPLE)
    assert answer.status_code == 201, answer.text
    plan: dict[str, Any] = answer.json()
    return plan


def _texts(svg: bytes) -> list[str]:
    return ["".join(el.itertext()) for el in ET.fromstring(svg).iter(f"{SVG_NS}text")]


def test_the_forms_choices_and_percent_fields_are_read_from_its_templates() -> None:
    words = field_value_texts()
    assert words["jobs.patience"]["week"] == "[[ui_form.patience.week]]"
    assert words["workload"]["cnn_training"] == "[[workload.cnn_training]]"
    assert words["demand.reading"]["at_once"] == "[[ui_form.reading.at_once]]"  # a select the script fills
    assert words["workload.method"]["lora"] == "LoRA"  # a literal option
    assert "USD" not in words.get("currency", {})  # a value written as itself needs no words
    french = catalogue("fr")
    assert fill_slots(words["jobs.patience"]["week"], french) == french["ui_form.patience.week"]
    assert {"options.discount_rate", "options.financing.annual_rate", "options.resale_fee"} <= set(percent_fields())
    assert "options.vat_percent" not in percent_fields()  # typed and sent in percent: no conversion


def test_the_compare_page_carries_the_forms_words_in_its_language(client: TestClient) -> None:
    page = client.get("/compare?lang=fr").text
    values = json.loads(re.search(r'id="field-values">(.*?)</script>', page).group(1))  # type: ignore[union-attr]
    assert values["jobs.patience"]["week"] == catalogue("fr")["ui_form.patience.week"]
    assert "options.discount_rate" in json.loads(
        re.search(r'id="percent-fields">(.*?)</script>', page).group(1))  # type: ignore[union-attr]


def test_chinese_breaks_between_characters_and_keeps_its_punctuation() -> None:
    pieces = _tokens("总成本（方案：US$189,250；斜线）")
    assert pieces == ["总", "成", "本", "（方", "案：US$189,250；", "斜", "线）"]
    assert _tokens("Total cost (plan: $1)") == ["Total", " cost", " (plan:", " $1)"]


def _row(key: str, unit: str, low: float, high: float, totals: tuple[float, float], changes: bool) -> SensitivityRow:
    return SensitivityRow(input=key, label=key, why="", base_value=1.0, low_value=low, high_value=high, unit=unit,
                          low_total_usd=totals[0], high_total_usd=totals[1], low_decision="a", high_decision="b",
                          decision_changes=changes, swing_usd=abs(totals[1] - totals[0]))


def test_the_narrow_tornado_is_drawn_for_a_phone_and_wraps_its_title() -> None:
    found = Sensitivity(base_total_usd=189_250.0, base_decision="a", note="", rows=[
        _row("demand_scale", "x", 0.5, 2.0, (106_191.0, 346_386.0), True),
        _row("resale_decline", "per year", 0.1, 0.4, (182_590.0, 198_334.0), False),
        _row("discount_rate", "per year", 0.0, 0.15, (189_250.0, 189_250.0), False)])
    wide, narrow = sensitivity_chart_svg(found, None, "fr"), sensitivity_chart_svg(found, None, "fr", narrow=True)
    assert ET.fromstring(wide).get("width") == "576pt" and ET.fromstring(narrow).get("width") == "259.2pt"
    text = chart_text("fr")
    whole = text.t("chart.sens.title", total=text.money(189_250.0, "USD"))
    assert whole in _texts(wide)  # a desktop's chart: the title on one line
    lines = [line for line in _texts(narrow) if len(line) > 15 and line in whole]
    assert len(lines) >= 2 and " ".join(lines) == whole, lines  # a phone's: broken between its words, all of it
    assert "Demande" in _texts(narrow)


def test_the_sensitivity_chart_takes_a_size(client: TestClient, worked: dict[str, Any]) -> None:
    narrow = client.get(f"/v1/plans/{worked['id']}/sensitivity.svg", params={"size": "narrow"})
    assert narrow.status_code == 200 and ET.fromstring(narrow.content).get("width") == "259.2pt"
    refused = client.get(f"/v1/plans/{worked['id']}/sensitivity.svg", params={"size": "huge"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "size"


def test_a_discounted_plan_is_named_so_on_the_comparison_chart(worked: dict[str, Any]) -> None:
    plan = PlanResult.model_validate(worked)
    discounted = plan.model_copy(update={"discount_rate": 0.06, "break_even": plan.break_even.model_copy(
        update={"basis": "present_value"})})
    texts = _texts(comparison_chart_svg([plan, discounted], lang="en"))
    assert "Plan 1" in texts and "Plan 2 (present value, 6.0% a year)" in texts
    chart = " ".join(_texts(comparison_chart_svg([discounted, plan], lang="fr")))
    assert "Plan 1 (valeur actuelle, 6,0\u00a0% par an)" in chart
