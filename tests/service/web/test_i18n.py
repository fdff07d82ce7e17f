"""The page in English, Chinese (Simplified) and French: complete catalogues, the language chosen by `?lang=`,
the switch's cookie and Accept-Language, and every string the page uses present in each catalogue."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.web import STATIC_DIR, TEMPLATES_DIR
from service.web.i18n import DEFAULT_LOCALE, LOCALE_NAMES, catalogue, choose_locale
from tests.service.web.test_chart_text import chart_keys


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url, scheduler=False)))


def _slots(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_catalogue_has_every_key_with_the_same_slots() -> None:
    english = catalogue(DEFAULT_LOCALE)
    for locale in LOCALE_NAMES:
        strings = catalogue(locale)
        assert set(strings) == set(english), (locale, set(strings) ^ set(english))
        for key, text in strings.items():
            assert text.strip() or key == "chart.fmt.group", (locale, key)  # French groups with U+202F
            assert _slots(text) == _slots(english[key]), (locale, key)


def test_every_string_the_page_uses_is_in_the_catalogue() -> None:
    keys = set(catalogue(DEFAULT_LOCALE))
    used: set[str] = set()
    for template in TEMPLATES_DIR.glob("*.html"):
        used |= set(re.findall(r"\[\[([\w.-]+)\]\]", template.read_text(encoding="utf-8"))) - {"locale"}
    for script in STATIC_DIR.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        used |= set(re.findall(r"""\bt\(["'`]([\w.]+)["'`]""", text))
        used |= set(re.findall(r'mark: "(wi\.[\w]+)"', text))  # the sliders' mark texts
        used |= set(re.findall(r'"(rec\.\w+)"', text))  # the recommendation's clauses, picked by position
    assert len(used) > 100
    used |= chart_keys()  # the charts read the catalogues too (service/web/chart_draw.py)
    dynamic = {f"r.status_{s}" for s in ("off", "stale", "fresh")}  # built as t(`r.status_${...}`)
    dynamic |= {k for k in keys if k.startswith("sens.")}  # t(`sens.${row.input}`)
    dynamic |= {f"wi.{k}" for k in ("utilisation", "electricity", "horizon", "cloud")}  # t(`wi.${slider.key}`)
    dynamic |= {k for k in keys if k.startswith("ui_form.reading.")}  # t(`ui_form.reading.${value}`)
    dynamic |= {k for k in keys if k.startswith(("notice.", "api.", "r.host_units.", "q.col."))}  # codes, API values
    dynamic |= {k for k in keys if k.startswith("dep.method.")}  # t(`dep.method.${schedule.method}`)
    dynamic |= {k for k in keys if k.startswith(("wf.shard.", "wf.why.", "product.q."))}  # workload codes, qualifiers
    assert used - keys == set()
    assert keys - used - dynamic - {k for k in keys if k.startswith("ex.")} == set()


def test_translations_differ_from_english() -> None:
    """A catalogue copied from English would pass the key checks; most strings must be the locale's own."""
    english = catalogue("en")
    for locale in ("zh-Hans", "fr"):
        same = [k for k, v in catalogue(locale).items()
                if v == english[k] and not k.startswith(("chart.fmt.", "chart.cur."))]  # formats may coincide
        assert len(same) < 0.1 * len(english), (locale, same)


@pytest.mark.parametrize(("asked", "cookie", "header", "expected"), [
    (None, None, None, "en"),
    (None, None, "fr-CH, fr;q=0.9, en;q=0.8", "fr"),
    (None, None, "zh-CN,zh;q=0.9", "zh-Hans"),
    (None, None, "zh-TW", "zh-Hans"),
    (None, None, "de-DE, fr;q=0.5, en;q=0.7", "en"),
    (None, None, "de, fr;q=0", "en"),
    (None, None, "de;q=bad, fr;q=0.3", "fr"),
    (None, "fr", "zh-CN", "fr"),
    ("zh-Hans", "fr", "en", "zh-Hans"),
    ("xx", None, "fr", "fr"),
])
def test_the_locale_is_chosen_by_query_then_cookie_then_header(asked: str | None, cookie: str | None,
                                                               header: str | None, expected: str) -> None:
    assert choose_locale(asked, cookie, header) == expected


@pytest.mark.parametrize(("headers", "cookies", "query", "locale", "phrase"), [
    ({"accept-language": "fr-FR,fr;q=0.9"}, {}, "", "fr", "Acheter des GPU ou louer des heures dans le cloud ?"),
    ({"accept-language": "zh-CN"}, {}, "", "zh-Hans", "买 GPU 还是租云端算力？"),
    ({}, {"gpuplan_lang": "fr"}, "", "fr", "Taux d&#x27;utilisation (0–1)"),
    ({"accept-language": "fr"}, {}, "?lang=en", "en", "Utilisation (0–1)"),
])
def test_the_page_speaks_the_chosen_language(client: TestClient, headers: dict[str, str], cookies: dict[str, str],
                                             query: str, locale: str, phrase: str) -> None:
    client.cookies.update(cookies)
    for path in ("/", "/compare", "/prices"):
        page = client.get(f"{path}{query}", headers=headers)
        assert page.status_code == 200
        assert page.headers["content-language"] == locale
        assert "Accept-Language" in page.headers["vary"]
        assert f'<html lang="{locale}">' in page.text
        assert "[[" not in page.text and "{{" not in page.text
    assert phrase in client.get(f"/{query}", headers=headers).text


def test_api_errors_stay_english_whatever_the_page_speaks(client: TestClient) -> None:
    refused = client.post("/v1/plans", json={"workload": "nope"}, headers={"accept-language": "zh-CN"})
    assert refused.status_code == 422
    assert refused.json()["title"] == "Invalid request" and refused.json()["errors"][0]["rule"]


def test_every_sensitivity_input_has_a_name_in_every_catalogue() -> None:
    from solvers.replan.sensitivity import RANGES

    for locale in LOCALE_NAMES:
        assert {f"sens.{r.key}" for r in RANGES} <= set(catalogue(locale)), locale
