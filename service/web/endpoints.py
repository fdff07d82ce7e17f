"""GET / (the planning page), GET /compare and GET /prices: HTML shells; their scripts call the JSON API.

The planning, compare and price pages speak the reader's language (`service/web/i18n.py`): `?lang=`, then the
language switch's cookie, then Accept-Language.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Cookie, Header, Query
from fastapi.responses import HTMLResponse

from service import web
from service.plans.examples import (
    CATALOG_EXAMPLE,
    FINANCE_EXAMPLE,
    PLACE_EXAMPLE,
    SERIES_EXAMPLE,
    WORKED_EXAMPLE,
    WORKLOAD_EXAMPLE,
)
from service.web.form_schema import (
    field_label_keys,
    field_value_texts,
    fill_slots,
    percent_fields,
    profile_defaults,
    quote_fields,
)
from service.web.i18n import LOCALE_COOKIE, LOCALE_NAMES, catalogue, choose_locale

router = APIRouter(include_in_schema=False)

# the form starts with the first; the page offers all of them (labels are catalogue keys `ex.<id>`)
PAGE_EXAMPLES = [
    {"id": "worked_example", "profile": WORKED_EXAMPLE},
    {"id": "catalog", "profile": CATALOG_EXAMPLE},
    {"id": "series", "profile": SERIES_EXAMPLE},
    {"id": "workload", "profile": WORKLOAD_EXAMPLE},
    {"id": "place", "profile": PLACE_EXAMPLE},
    {"id": "finance", "profile": FINANCE_EXAMPLE},
]

LangQuery = Annotated[str | None, Query(max_length=35)]
LangCookie = Annotated[str | None, Cookie(alias=LOCALE_COOKIE, max_length=35)]
AcceptLanguage = Annotated[str | None, Header(max_length=1000)]


def _localised(template: str, lang: str | None, remembered: str | None, accept_language: str | None,
               **values: object) -> HTMLResponse:
    locale = choose_locale(lang, remembered, accept_language)
    strings = {**catalogue(locale), "locale": locale}
    html = web.render(template, text=strings, strings=strings, locales=LOCALE_NAMES, **values)
    # one address, several languages: caches must key on what chose it
    return HTMLResponse(html, headers={"Content-Language": locale, "Vary": "Accept-Language, Cookie"})


@router.get("/", response_class=HTMLResponse)
def plan_page(lang: LangQuery = None, gpuplan_lang: LangCookie = None,
              accept_language: AcceptLanguage = None) -> HTMLResponse:
    locale = choose_locale(lang, gpuplan_lang, accept_language)
    examples = [{**e, "label": catalogue(locale)[f"ex.{e['id']}"]} for e in PAGE_EXAMPLES]
    return _localised("plan.html", lang, gpuplan_lang, accept_language, examples=examples,
                      profile_defaults=profile_defaults(), quote_fields=quote_fields())


@router.get("/prices", response_class=HTMLResponse)
def prices_page(lang: LangQuery = None, gpuplan_lang: LangCookie = None,
                accept_language: AcceptLanguage = None) -> HTMLResponse:
    return _localised("prices.html", lang, gpuplan_lang, accept_language)


@router.get("/compare", response_class=HTMLResponse)
def compare_page(lang: LangQuery = None, gpuplan_lang: LangCookie = None,
                 accept_language: AcceptLanguage = None) -> HTMLResponse:
    strings = catalogue(choose_locale(lang, gpuplan_lang, accept_language))
    # the inputs that differ are named by the planning form's own labels (path -> label in the page's language)
    labels = {path: strings[key] for path, key in field_label_keys().items() if key in strings}
    # and a differing choice by the form's words for it; a percent as the form takes it
    values = {path: {value: fill_slots(shown, strings) for value, shown in options.items()}
              for path, options in field_value_texts().items()}
    return _localised("compare.html", lang, gpuplan_lang, accept_language, field_labels=labels,
                      field_values=values, percent_fields=percent_fields())
