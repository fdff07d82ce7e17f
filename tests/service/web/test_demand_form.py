"""The demand-shape section of the planning form (templates/plan-demand.html, static/plan-demand.js): pasted into
the page once, its choices the ones the API accepts, and each in every language."""

from __future__ import annotations

import re
import typing

from service import web
from service.web import STATIC_DIR
from service.web.i18n import DEFAULT_LOCALE, LOCALE_NAMES, catalogue
from solvers.base.demand_forms import JobShape, SeriesDemand, UtilisationDemand
from solvers.base.plan_options import PlanOptions


def _page() -> str:
    strings = {**catalogue(DEFAULT_LOCALE), "locale": DEFAULT_LOCALE}
    return web.render("plan.html", text=strings, strings=strings, locales=LOCALE_NAMES, examples=[])


def _options(page: str, select_id: str) -> list[str]:
    block = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', page, re.DOTALL)
    assert block, select_id
    return re.findall(r'<option value="([^"]+)"', block.group(1))


def _literal(annotation: object) -> set[str]:
    return {a for a in typing.get_args(annotation) if isinstance(a, str)}


def test_the_partial_is_pasted_into_the_page_once() -> None:
    page = _page()
    assert "{% include" not in page
    for element in ('id="patience"', 'id="reading"', 'id="log-file"', 'id="gpus_per_job"', 'id="machine_on"',
                    'id="allow_marketplace"', 'id="resolution"'):
        assert page.count(element) == 1, element
    # inside the form, after the series and before the form's own "more" box
    assert page.index('id="series-fields"') < page.index('id="patience"') < page.index('id="advanced-box"')


def test_the_choices_are_the_ones_the_api_accepts() -> None:
    page = _page()
    assert set(_options(page, "patience")) == _literal(JobShape.model_fields["patience"].annotation)
    assert set(_options(page, "resolution")) == _literal(SeriesDemand.model_fields["resolution"].annotation)
    machine_on = PlanOptions.model_fields["machine_on"].annotation
    words = set().union(*(_literal(a) for a in typing.get_args(machine_on)))
    assert set(_options(page, "machine_on")) == words | {"hours"}  # "hours": the number of hours a day


def test_the_readings_are_one_list_matching_the_schema_and_named_in_every_language() -> None:
    script = (STATIC_DIR / "plan-demand.js").read_text(encoding="utf-8")
    found = re.search(r"const READINGS = \[([^\]]*)\];", script)
    assert found, "plan-demand.js keeps the readings in one list"
    readings = re.findall(r'"(\w+)"', found.group(1))
    schema = UtilisationDemand.model_fields["reading"]
    assert set(readings) == _literal(schema.annotation)  # a reading added to the API must be added to the form
    assert readings[0] == schema.default  # the form's first choice is the API's default, left out of requests
    for locale in LOCALE_NAMES:
        assert {f"ui_form.reading.{r}" for r in readings} <= set(catalogue(locale)), locale
