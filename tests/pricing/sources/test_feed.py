"""Generic hardware feed: CSV and JSON price tables, from a loopback URL and from local files.

Expected values are read off the data files in data/feed/ by hand.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import SourceConfig
from pricing.sources.feed import FeedSource, detect_format, parse_price_table
from tests.pricing.replays.feed import FEED_FILE, FEED_PATH, FeedReplay

NOW = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)
GPUS = bundled_gpus()
JSON_FILE = FEED_FILE.with_suffix(".json")
HEADER = "gpu,condition,unit_price_usd"


def _parse(text: str | bytes, hint: str = "quotes.csv", **kw: Any) -> FetchResult:
    data = text.encode() if isinstance(text, str) else text
    return parse_price_table(data, filename_or_content_type=hint, source="feed", gpus=GPUS, now=NOW,
                             default_vendor="feed", **kw)


def _by_gpu(result: FetchResult) -> dict[str, PriceObservation]:
    return {o.gpu: o for o in result.observations}


def _fetch(url: str) -> FetchResult:
    source = FeedSource(SourceConfig(url=url, timeout_s=2.0, retries=0))
    return source.fetch(source.session(), GPUS, NOW)


def _check_csv_quotes(result: FetchResult, reference: str) -> None:
    found = _by_gpu(result)
    assert result.rows_seen == 6
    assert set(found) == {"RTX 4090", "L40S", "RTX 3090", "A100 80GB PCIe", "RTX A6000"}
    assert dict(result.unknown_skus) == {"RTX 4070 Super": 1}
    lambda_box = found["RTX 4090"]
    assert (lambda_box.kind, lambda_box.gpu_count, lambda_box.usd, lambda_box.includes_host) == ("new", 4, 16500, True)
    assert (lambda_box.watts, lambda_box.idle_watts) == (2300, 280)
    assert (lambda_box.provider, lambda_box.name) == ("Lambda", "Lambda Vector 4x RTX 4090 workstation")
    assert lambda_box.reference == "Quote Q-2025-0412"
    assert lambda_box.observed_at == dt.datetime(2025, 10, 1, tzinfo=dt.UTC)
    assert lambda_box.source == "feed"
    assert (found["L40S"].gpu_count, found["L40S"].usd) == (8, 92000)
    used = found["RTX 3090"]  # alias "NVIDIA GeForce RTX 3090"; no as_of: the refresh time
    assert (used.kind, used.usd, used.includes_host, used.observed_at) == ("used", 719, False, NOW)
    a100 = found["A100 80GB PCIe"]  # no name: default; includes_host "no"; no source: the feed location
    assert (a100.name, a100.usd, a100.includes_host) == ("A100 80GB PCIe (used, ServerMonkey)", 11250.50, False)
    assert a100.reference == reference
    a6000 = found["RTX A6000"]  # no vendor: the default vendor; no idle_watts
    assert (a6000.provider, a6000.name, a6000.idle_watts) == ("feed", "RTX A6000 (new, feed)", None)


def test_csv_from_a_loopback_url(httpserver: HTTPServer) -> None:
    replay = FeedReplay()
    replay.install_good(httpserver)
    source = replay.source(httpserver)
    _check_csv_quotes(source.fetch(source.session(), GPUS, NOW), httpserver.url_for(FEED_PATH))


def test_csv_from_a_local_path_and_a_file_url() -> None:
    _check_csv_quotes(_fetch(str(FEED_FILE)), str(FEED_FILE))
    _check_csv_quotes(_fetch(FEED_FILE.as_uri()), FEED_FILE.as_uri())


def test_json_file_with_price_and_currency() -> None:
    result = _fetch(str(JSON_FILE))
    found = _by_gpu(result)
    assert set(found) == {"RTX 4090", "RTX 3090", "T4"}
    assert dict(result.unknown_skus) == {"RTX 4070 Super": 1}
    assert (found["RTX 4090"].usd, found["RTX 4090"].gpu_count, found["RTX 4090"].includes_host) == (16500, 4, True)
    assert (found["RTX 3090"].kind, found["RTX 3090"].usd, found["RTX 3090"].idle_watts) == ("used", 719, None)
    # a date-time with a zone is converted to UTC; currency is case-insensitive
    assert found["T4"].observed_at == dt.datetime(2025, 10, 20, 13, 30, tzinfo=dt.UTC)
    assert found["T4"].usd == 612.0
    assert found["T4"].reference == str(JSON_FILE)


def test_json_list_served_without_a_useful_content_type(httpserver: HTTPServer) -> None:
    rows = json.loads(JSON_FILE.read_text())["prices"]
    httpserver.expect_request("/export").respond_with_data(json.dumps(rows), content_type="application/octet-stream")
    assert set(_by_gpu(_fetch(httpserver.url_for("/export")))) == {"RTX 4090", "RTX 3090", "T4"}


def test_csv_served_as_text_plain_is_read_by_its_extension(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/q.csv").respond_with_data(f"{HEADER}\nRTX 4090,used,1800\n", content_type="text/plain")
    assert _fetch(httpserver.url_for("/q.csv")).observations[0].usd == 1800


@pytest.mark.parametrize(("hint", "body", "expected"), [
    ("prices.json", b"gpu", "json"), ("application/json; charset=utf-8", b"gpu", "json"),
    ("text/csv", b"[", "csv"), ("feed", b"  [{}]", "json"), ("feed", b'{"prices": []}', "json"),
    ("feed", b"gpu,condition", "csv"),
])
def test_format_detection(hint: str, body: bytes, expected: str) -> None:
    assert detect_format(hint, body) == expected


def test_as_of_date_is_midnight_utc() -> None:
    result = _parse(f"{HEADER},as_of\nRTX 4090,new,2000,2025-03-04\n")
    assert result.observations[0].observed_at == dt.datetime(2025, 3, 4, tzinfo=dt.UTC)


def test_reference_defaults_to_the_file_name() -> None:
    assert _parse(f"{HEADER}\nRTX 4090,new,2000\n", hint="lab-quotes.csv").observations[0].reference == \
        "lab-quotes.csv"


def test_a_last_row_ending_in_a_line_break_of_any_kind_loads() -> None:
    for ending in ("\n", "\r\n", "\n\n", "\r\n  "):
        assert len(_parse(f"{HEADER}\nRTX 4090,new,2000{ending}").observations) == 1


def test_zero_and_negative_prices_come_through() -> None:
    result = _parse(f"{HEADER}\nRTX 4090,new,0\nRTX 3090,used,-5\n")
    assert sorted(o.usd for o in result.observations) == [-5.0, 0.0]


BAD_ROWS = [
    # (extra header, row 2 cells, expected message fragment)
    ("", "RTX 3090,refurbished,700", "row 2, field 'condition'"),
    ("", "RTX 3090,,700", "row 2, field 'condition'"),
    ("", "RTX 3090,used,\"1,299\"", "row 2, field 'unit_price_usd'"),
    ("", "RTX 3090,used,$700", "row 2, field 'unit_price_usd'"),
    ("", "RTX 3090,used,nan", "row 2, field 'unit_price_usd'"),
    ("", "RTX 3090,used,", "row 2, field 'unit_price_usd'"),
    ("", ",used,700", "row 2, field 'gpu'"),
    (",currency", "RTX 3090,used,700,EUR", "row 2, field 'currency'"),
    (",gpus_per_unit", "RTX 3090,used,700,0", "row 2, field 'gpus_per_unit'"),
    (",gpus_per_unit", "RTX 3090,used,700,1.5", "row 2, field 'gpus_per_unit'"),
    (",includes_host", "RTX 3090,used,700,maybe", "row 2, field 'includes_host'"),
    (",watts", "RTX 3090,used,700,350W", "row 2, field 'watts'"),
    (",idle_watts", "RTX 3090,used,700,low", "row 2, field 'idle_watts'"),
    (",as_of", "RTX 3090,used,700,last week", "row 2, field 'as_of'"),
    # an error on a row naming an unknown GPU still fails the file
    ("", "RTX 9999,used,cheap", "row 2, field 'unit_price_usd'"),
]


@pytest.mark.parametrize(("extra", "row", "message"), BAD_ROWS)
def test_a_bad_row_fails_the_whole_file(extra: str, row: str, message: str) -> None:
    first = "RTX 4090,new,2000" + ("," * extra.count(","))
    with pytest.raises(SourceError, match=message):
        _parse(f"{HEADER}{extra}\n{first}\n{row}\n")


@pytest.mark.parametrize(("row", "message"), [
    ({"gpu": "RTX 3090", "condition": "used", "price": 700, "currency": "GBP"}, "row 2, field 'currency'"),
    ({"gpu": "RTX 3090", "condition": "used", "price": 700}, "row 2, field 'currency'"),
    ({"gpu": "RTX 3090", "condition": "used", "unit_price_usd": [700]}, "row 2, field 'unit_price_usd'"),
    ({"gpu": "RTX 3090", "condition": "used", "unit_price_usd": True}, "row 2, field 'unit_price_usd'"),
    ({"gpu": "RTX 3090", "condition": 3, "unit_price_usd": 700}, "row 2, field 'condition'"),
])
def test_a_bad_json_row_fails_the_whole_file(row: dict[str, Any], message: str) -> None:
    rows = [{"gpu": "RTX 4090", "condition": "new", "unit_price_usd": 2000}, row]
    with pytest.raises(SourceError, match=message):
        _parse(json.dumps(rows), hint="quotes.json")


@pytest.mark.parametrize(("text", "hint", "message"), [
    ("", "q.csv", "empty"),
    (f"{HEADER}\n", "q.csv", "no rows"),
    ("gpu,price_usd\nRTX 4090,2000\n", "q.csv", "required column"),
    (f"{HEADER}\nRTX 4090,new,2000\nRTX 3090,used\n", "q.csv", "row 2: 2 cells"),
    (f"{HEADER}\nRTX 4090,new,2000\n\"RTX 3090,used", "q.csv", "not valid CSV"),
    # issue 31: cut inside the last value of a column that is not the price: the right number of cells
    (f"{HEADER},name\nRTX 4090,new,2000,Founders\nRTX 3090,used,700,Founders Ed", "q.csv",
     "row 2: the file ends inside this row"),
    (f"{HEADER},as_of\nRTX 4090,new,2000,2025-10-0", "q.csv", "row 1: the file ends inside this row"),
    (f"{HEADER}\nRTX 4070 Super,new,599\n", "q.csv", "names no known GPU"),
    (f"{HEADER},name\nRTX 4090,new,2000,FE\nRTX 4090,new,2100,FE\n", "q.csv", "rows 1 and 2 price the same"),
    ('{"prices": [{"gpu": "RTX 4090",', "q.json", "not valid JSON"),
    ('{"items": []}', "q.json", "list of objects"),
    ("[1, 2]", "q.json", "row 1: not a JSON object"),
    ("[]", "q.json", "no rows"),
])
def test_untrustworthy_tables_are_errors(text: str, hint: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        _parse(text, hint=hint)


def test_non_utf8_is_an_error() -> None:
    with pytest.raises(SourceError, match="UTF-8"):
        _parse(f"{HEADER}\nRTX 4090,new,2000\n".encode("utf-16"))


def test_truncated_feed_fails(httpserver: HTTPServer) -> None:
    replay = FeedReplay()
    replay.install_truncated(httpserver)
    source = replay.source(httpserver)
    with pytest.raises(SourceError, match="row 4"):
        source.fetch(source.session(), GPUS, NOW)


def test_empty_feed_fails(httpserver: HTTPServer) -> None:
    replay = FeedReplay()
    replay.install_empty(httpserver)
    source = replay.source(httpserver)
    with pytest.raises(SourceError, match="no rows"):
        source.fetch(source.session(), GPUS, NOW)


def test_missing_file_and_http_errors(httpserver: HTTPServer, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read price feed file"):
        _fetch(str(tmp_path / "nope.csv"))
    httpserver.expect_request("/gone.csv").respond_with_data("not here", status=404)
    with pytest.raises(requests.HTTPError):
        _fetch(httpserver.url_for("/gone.csv"))


def test_feed_needs_a_url() -> None:
    assert FeedSource().missing_credentials() == ["url"]
    assert FeedSource(SourceConfig(url="/tmp/quotes.csv")).enabled
