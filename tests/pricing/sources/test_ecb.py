"""ECB reference rates against the real eurofxref format on a loopback server, and their way into the catalog."""

from __future__ import annotations

import datetime as dt

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine

from pricing.catalog import bundled_catalog
from pricing.fx import ExchangeRates, UnknownCurrency, bundled_rates
from pricing.gpus import bundled_gpus
from pricing.live import LiveCatalog
from pricing.observation import SourceError
from pricing.refresh import refresh_source
from pricing.sources.ecb import parse_reference_rates
from tests.pricing.replays.ecb import DAILY, EcbReplay, daily_xml

NOW = dt.datetime(2026, 11, 21, 16, 30, tzinfo=dt.UTC)
REPLAY = EcbReplay()


def test_daily_file_read_as_published() -> None:
    date, rates = parse_reference_rates(DAILY.read_bytes())
    assert date == dt.date(2024, 6, 28)
    # three rates read off the ECB's file of that day by eye
    assert rates["USD"] == 1.0705 and rates["JPY"] == 171.94 and rates["GBP"] == 0.84638
    assert len(rates) == 30


def test_history_file_keeps_the_newest_day() -> None:
    hist = """<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<gesmes:subject>Reference rates</gesmes:subject><Cube>
<Cube time="2024-06-27"><Cube currency="USD" rate="1.0700"/><Cube currency="CHF" rate="0.9600"/></Cube>
<Cube time="2024-06-28"><Cube currency="USD" rate="1.0705"/><Cube currency="CHF" rate="0.9634"/></Cube>
</Cube></gesmes:Envelope>"""
    date, rates = parse_reference_rates(hist)
    assert date == dt.date(2024, 6, 28) and rates == {"USD": 1.0705, "CHF": 0.9634}


@pytest.mark.parametrize(("body", "reason"), [
    ("<not xml", "not XML"),
    ("<gesmes:Envelope xmlns:gesmes='http://www.gesmes.org/xml/2002-08-01'/>", "no dated Cube"),
    ("""<E xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube><Cube time="2024-06-28">
        <Cube currency="CHF" rate="0.9634"/></Cube></Cube></E>""", "no USD rate"),
    ("""<E xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube><Cube time="2024-06-28">
        <Cube currency="USD" rate="abc"/></Cube></Cube></E>""", "not a number"),
])
def test_answers_that_cannot_be_trusted(body: str, reason: str) -> None:
    with pytest.raises(SourceError, match=reason):
        parse_reference_rates(body)


def test_observations_are_usd_per_unit_with_the_ecb_date(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    source = REPLAY.source(httpserver)
    result = source.fetch(source.session(), bundled_gpus(), NOW)
    usd = {o.name: o.usd for o in result.observations}
    assert usd["EUR"] == pytest.approx(1.0705)  # one euro buys the USD rate
    assert usd["USD"] == pytest.approx(1.0)
    assert usd["GBP"] == pytest.approx(1.0705 / 0.84638)  # 1.2648... USD per pound
    assert all(o.kind == "fx" and o.reference.endswith("#2024-06-28") for o in result.observations)


def test_live_rates_replace_the_bundled_ones_and_survive_a_bad_fetch(engine: Engine, httpserver: HTTPServer) -> None:
    source = REPLAY.source(httpserver)
    httpserver.expect_request("/eurofxref-daily.xml").respond_with_data(
        daily_xml().replace("2024-06-28", "2026-11-20").replace("rate='1.0705'", "rate='1.1000'"),
        content_type="text/xml")
    assert refresh_source(engine, source, bundled_gpus(), NOW).outcome == "ok"
    live = LiveCatalog(engine, bundled_catalog())
    fx = live().fx
    assert (fx.origin, fx.as_of) == ("live", dt.date(2026, 11, 20))
    assert fx.units_per_eur("USD") == pytest.approx(1.1) and fx.units_per_eur("JPY") == pytest.approx(171.94)
    httpserver.clear()
    httpserver.expect_request("/eurofxref-daily.xml").respond_with_data("<gesmes:Env", content_type="text/xml")
    assert refresh_source(engine, source, bundled_gpus(), NOW + dt.timedelta(hours=12)).outcome == "failed"
    assert live().fx.as_of == dt.date(2026, 11, 20)  # the last good publication stays in force


def test_bundled_rates_are_one_dated_publication() -> None:
    rates = bundled_rates()
    # the ECB's eurofxref.csv of 06 February 2026 (read by hand): USD 1.1794, JPY 185.27, GBP 0.86790
    assert rates.as_of == dt.date(2026, 2, 6) and rates.origin == "bundled"
    assert [rates.units_per_eur(c) for c in ("USD", "JPY", "GBP")] == [1.1794, 185.27, 0.8679]
    for currency in ("USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"):
        assert rates.units_per_eur(currency) > 0
    # cross rate through the euro: 100 GBP in JPY = 100 / 0.86790 x 185.27
    assert rates.convert(100, "GBP", "JPY") == pytest.approx(100 / 0.86790 * 185.27)
    # that publication no longer quotes the Bulgarian lev (no BGN column in the file): the euro replaced it on
    # 2026-01-01 at the irrevocably fixed 1.95583 lev per euro, which stands in; a currency never quoted stays unknown
    assert "BGN" not in rates.per_eur
    assert rates.units_per_eur("BGN") == 1.95583 and rates.fixed("BGN") is not None
    assert rates.convert(195.583, "BGN", "EUR") == pytest.approx(100.0)
    assert "BGN" in rates.currencies()
    with pytest.raises(UnknownCurrency):
        rates.units_per_eur("XYZ")


def test_fixed_rates_only_stand_in_after_the_changeover() -> None:
    """A publication of before 2026-01-01 that does not quote BGN does not get the fixed rate; one that quotes it
    keeps its own (the ECB quoted the pegged lev at 1.9558)."""
    before = ExchangeRates(dt.date(2025, 12, 31), {"USD": 1.17}, "test")
    with pytest.raises(UnknownCurrency):
        before.units_per_eur("BGN")
    quoted = ExchangeRates(dt.date(2026, 2, 6), {"USD": 1.17, "BGN": 1.9558}, "test")
    assert quoted.units_per_eur("BGN") == 1.9558 and quoted.fixed("BGN") is None


def test_ecb_is_a_keyless_source_refreshed_twice_a_day() -> None:
    from pricing.sources import build_sources

    (ecb,) = [s for s in build_sources() if s.key == "ecb"]
    assert ecb.enabled and ecb.missing_credentials() == []
    assert ecb.interval == dt.timedelta(hours=12) and ecb.stale_after == dt.timedelta(hours=48)
