"""eBay Browse source against a loopback eBay (tests/pricing/replays/ebay.py, data in data/ebay/).

Expected medians and 10th percentiles below are worked out by hand from the prices in the data files
(p10 = linear interpolation at position 0.1 * (n - 1) of the sorted prices).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pricing.gpus import bundled_gpus
from pricing.observation import PriceObservation, SourceError
from pricing.sources.ebay import EBAY_GPUS, MAX_PAGES, SEARCH_PATH, TOKEN_PATH, EbaySource, keep_title
from tests.pricing.replays.base import load_json
from tests.pricing.replays.ebay import EBAY_DATA, PAGES, TOKEN, EbayReplay

NOW = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)
GPUS = bundled_gpus()
REPLAY = EbayReplay()

# title -> kept?, from reading each listing as a buyer would: the searched card alone, working, one of it
KEPT_TITLES: dict[tuple[str, str], list[str]] = {
    ("RTX 4090", "used"): [
        "NVIDIA GeForce RTX 4090 Founders Edition 24GB GDDR6X Graphics Card",
        "ASUS TUF Gaming GeForce RTX 4090 OC 24GB GDDR6X TUF-RTX4090-O24G-GAMING",
        "MSI GeForce RTX 4090 SUPRIM LIQUID X 24G Graphics Card",
        "Zotac Gaming GeForce RTX 4090 Trinity 24GB GDDR6X ZT-D40900D-10P",
        "PNY GeForce RTX 4090 24GB VERTO Triple Fan Graphics Card",
        "MSI GeForce RTX 4090 Gaming X Trio 24GB GDDR6X",
    ],
    ("RTX 4090", "new"): [
        "NEW ASUS ROG Strix GeForce RTX 4090 OC 24GB GDDR6X Sealed",
        "NVIDIA GeForce RTX 4090 Founders Edition 24GB - Brand New Sealed",
        "MSI GeForce RTX 4090 VENTUS 3X 24G OC NEW",
        "New Gigabyte AORUS GeForce RTX 4090 MASTER 24G",
    ],
    ("RTX 3090", "used"): [
        "EVGA GeForce RTX 3090 XC3 Ultra Gaming 24GB GDDR6X",
        "NVIDIA GeForce RTX 3090 Founders Edition 24GB",
        "ASUS ROG Strix RTX 3090 OC 24GB - tested, works great",
        "Gigabyte GeForce RTX 3090 Turbo 24G Blower",
    ],
    ("RTX 4080", "used"): [
        "NVIDIA GeForce RTX 4080 Founders Edition 16GB GDDR6X",
        "MSI RTX 4080 16GB Gaming X Trio",
        "Zotac RTX 4080 Trinity 16GB",
    ],
    ("RTX A6000", "used"): [
        "NVIDIA RTX A6000 48GB GDDR6 Workstation Graphics Card 900-5G133-2500-000",
        "PNY NVIDIA RTX A6000 48GB VCNRTXA6000-PB",
        "Dell NVIDIA RTX A6000 48GB GDDR6 Graphics Card 0HXC1C",
        "HP NVIDIA RTX A6000 48GB PCIe GPU",
    ],
    ("A100 80GB PCIe", "used"): [
        "NVIDIA Tesla A100 80GB PCIe GPU 900-21001-0020-000",
        "NVIDIA A100 80GB PCIe Ampere Tensor Core GPU HBM2e",
        "HPE NVIDIA A100 80GB PCIe Computational Accelerator R6V21A",
    ],
}

# (median, p10) by hand from the kept listings' prices
EXPECTED: dict[tuple[str, str], tuple[float, float]] = {
    # 1749.00 1779.95 1849.99 1899.00 1925.00 2049.00
    ("RTX 4090", "used"): ((1849.99 + 1899.00) / 2, 1749.00 + 0.5 * (1779.95 - 1749.00)),
    # 2449.00 2599.00 2899.99 3149.00
    ("RTX 4090", "new"): ((2599.00 + 2899.99) / 2, 2449.00 + 0.3 * (2599.00 - 2449.00)),
    # 749.99 799.00 829.00 849.00
    ("RTX 3090", "used"): ((799.00 + 829.00) / 2, 749.99 + 0.3 * (799.00 - 749.99)),
    # 905.00 949.00 999.99
    ("RTX 4080", "used"): (949.00, 905.00 + 0.2 * (949.00 - 905.00)),
    # 3750.00 3899.99 3999.00 4250.00
    ("RTX A6000", "used"): ((3899.99 + 3999.00) / 2, 3750.00 + 0.3 * (3899.99 - 3750.00)),
    # 11999.00 12850.00 13499.00
    ("A100 80GB PCIe", "used"): (12850.00, 11999.00 + 0.2 * (12850.00 - 11999.00)),
}


def _fetch(server: HTTPServer, **overrides: Any) -> Any:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), GPUS, NOW)


def _by_key(observations: list[PriceObservation]) -> dict[tuple[str, str], PriceObservation]:
    return {(o.gpu, o.kind): o for o in observations}


def _data_prices(key: tuple[str, str]) -> dict[str, float]:
    """title -> price of every listing in the data files of one search."""
    prices: dict[str, float] = {}
    for name in PAGES[key]:
        for item in json.loads((EBAY_DATA / name).read_text())["itemSummaries"]:
            prices[item["title"]] = float(item["price"]["value"])
    return prices


def test_good_answer_gives_median_p10_and_count_per_gpu_and_condition(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = _fetch(httpserver)
    found = _by_key(result.observations)
    # RTX 3090 new has only two clean listings (< 3): no observation
    assert set(found) == set(EXPECTED)
    for key, (median, p10) in EXPECTED.items():
        obs = found[key]
        prices = _data_prices(key)
        assert obs.listings == len(KEPT_TITLES[key])
        assert set(KEPT_TITLES[key]) <= set(prices)
        assert obs.usd == pytest.approx(median)
        assert obs.p10_usd == pytest.approx(p10)
        assert obs.name == f"{key[0]} ({key[1]}, eBay median ask)"
        assert (obs.source, obs.provider, obs.gpu_count, obs.includes_host) == ("ebay", "eBay", 1, False)
        assert obs.observed_at == NOW
        assert obs.reference.startswith(httpserver.url_for(SEARCH_PATH))
    assert result.rows_seen == sum(len(load_json(EBAY_DATA / name)["itemSummaries"])
                                   for names in PAGES.values() for name in names)
    assert result.unknown_skus == Counter({"RTX 4090 D": 2, "RTX 4080 SUPER": 2})


def test_requests_use_client_credentials_and_the_documented_search(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    _fetch(httpserver)
    token_requests = [r for r, _ in httpserver.log if r.path == TOKEN_PATH]
    assert len(token_requests) == 1  # one token per refresh
    form = parse_qs(token_requests[0].get_data(as_text=True))
    assert form == {"grant_type": ["client_credentials"], "scope": ["https://api.ebay.com/oauth/api_scope"]}
    searches = [r for r, _ in httpserver.log if r.path == SEARCH_PATH]
    first = next(r for r in searches if r.args["q"] == "RTX 3090" and "offset" not in r.args
                 and "{1000}" in r.args["filter"])
    assert first.args["category_ids"] == "27386"
    assert first.args["limit"] == "200"
    assert first.args["filter"] == "buyingOptions:{FIXED_PRICE},conditionIds:{1000},price:[50..],priceCurrency:USD"
    assert first.headers["Authorization"] == f"Bearer {TOKEN}"
    assert first.headers["X-EBAY-C-MARKETPLACE-ID"] == "EBAY_US"
    used = [r for r in searches if r.args["q"] == "RTX 3090" and "{1000}" not in r.args["filter"]]
    assert "conditionIds:{2000|2010|2020|2030|2500|3000}" in used[0].args["filter"]
    # every GPU of the documented list is searched, used and new
    assert {r.args["q"] for r in searches} >= {"RTX 5090", "Titan RTX", "NVIDIA Tesla T4", "Quadro RTX 8000"}


def test_next_page_is_followed_on_the_configured_host(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    _fetch(httpserver)
    pages = [r for r, _ in httpserver.log if r.path == SEARCH_PATH and r.args["q"] == "RTX 4090"
             and "3000" in r.args["filter"]]
    assert [r.args.get("offset") for r in pages] == [None, "200"]  # `next` said api.ebay.com: rebased here


@pytest.mark.parametrize(("title", "target", "keep", "unknown"), [
    ("EVGA GeForce RTX 3090 Ti FTW3 Ultra 24GB", "RTX 3090", False, None),  # a different card
    ("EVGA GeForce RTX 3090 Ti FTW3 Ultra 24GB", "RTX 3090 Ti", True, None),
    ("RTX 3090 box only no gpu", "RTX 3090", False, None),
    ("EKWB water block for RTX 3090 FE", "RTX 3090", False, None),
    ("RTX 4090 Laptop GPU 16GB", "RTX 4090", False, None),
    ("Gaming PC i9-13900K RTX 4090 64GB", "RTX 4090", False, None),
    ("MSI RTX 3080 Gaming X Trio 12GB LHR", "RTX 3080", False, None),  # our RTX 3080 is the 10 GB card
    ("MSI RTX 3080 Gaming X Trio 10GB triple fan", "RTX 3080", True, None),
    ("Gigabyte RTX 4080 SUPER Gaming OC 16G", "RTX 4080", False, "RTX 4080 SUPER"),
    ("PNY NVIDIA RTX 6000 Ada Generation 48GB", "Quadro RTX 6000", False, None),
    ("NVIDIA Quadro RTX 6000 24GB", "Quadro RTX 6000", True, None),
    ("NVIDIA A100 80GB GPU", "A100 80GB PCIe", False, None),  # PCIe or SXM4? never guess
    ("NVIDIA A100 SXM4 80GB", "A100 80GB PCIe", False, None),
    ("NVIDIA H100 NVL 94GB PCIe", "H100 PCIe", False, None),  # another known GPU
    ("NVIDIA L40S 48GB", "L40", False, None),
    ("NVIDIA Tesla T4 16GB PCIe", "T4", True, None),
    ("NVIDIA TITAN RTX 24GB", "Titan RTX", True, None),
    ("GTX 1080 Ti 11GB", "RTX 2080 Ti", False, "GTX 1080 TI"),
    ("Lot of 2 RTX 3070 8GB", "RTX 3070", False, None),
    ("MSI GeForce RTX 4090 VENTUS 3X 24G OC", "RTX 4090", True, None),
])
def test_title_rules(title: str, target: str, keep: bool, unknown: str | None) -> None:
    verdict = keep_title(title, target, GPUS)
    assert (verdict.keep, verdict.unknown) == (keep, unknown)


def test_zero_and_negative_prices_come_through(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver, price_scale=-1.0)
    found = _by_key(_fetch(httpserver).observations)
    assert found[("RTX 4080", "used")].usd == pytest.approx(-949.00)


def test_truncated_page_sequence_fails_the_fetch(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(requests.RequestException):
        _fetch(httpserver)


def test_no_listings_at_all_is_an_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no GPU had at least 3"):
        _fetch(httpserver)


def test_wrong_client_secret_is_an_http_error(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    with pytest.raises(requests.HTTPError):
        _fetch(httpserver, api_secret="wrong")


def test_credentials_are_required() -> None:
    assert EbaySource().missing_credentials() == ["api_key", "api_secret"]
    assert not EbaySource().enabled


def _serve(server: HTTPServer, search: Any, token_body: Any = None) -> None:
    body = {"access_token": TOKEN, "expires_in": 7200} if token_body is None else token_body
    server.expect_request(TOKEN_PATH, method="POST").respond_with_json(body)
    if callable(search):
        server.expect_request(SEARCH_PATH).respond_with_handler(search)
    else:
        server.expect_request(SEARCH_PATH).respond_with_json(search)


def test_token_answer_without_access_token_is_an_error(httpserver: HTTPServer) -> None:
    _serve(httpserver, {"total": 0}, token_body={"error": "server_error"})
    with pytest.raises(SourceError, match="access_token"):
        _fetch(httpserver)


def _one_item(**changes: Any) -> dict[str, Any]:
    item = json.loads((EBAY_DATA / "rtx4080_used.json").read_text())["itemSummaries"][0]
    item.update(changes)
    return item


@pytest.mark.parametrize(("page", "reason"), [
    ({"itemSummaries": []}, "no integer `total`"),
    ({"total": 12, "limit": 200, "offset": 0}, "cut short"),
    ({"total": 1, "itemSummaries": {"a": 1}}, "not a list"),
    ({"total": 1, "itemSummaries": [_one_item(price=None)]}, "has no price"),
    ({"total": 1, "itemSummaries": [_one_item(price={"value": "n/a", "currency": "USD"})]}, "not a number"),
    ({"total": 1, "itemSummaries": [_one_item(title=None)]}, "has no title"),
    ({"total": 9, "itemSummaries": [_one_item()], "next": "https://api.ebay.com/buy/browse/v1/item/x"},
     "outside the search"),
])
def test_untrustworthy_pages_are_errors(httpserver: HTTPServer, page: dict[str, Any], reason: str) -> None:
    _serve(httpserver, page)
    with pytest.raises(SourceError, match=reason):
        _fetch(httpserver)


def test_paging_stops_at_the_page_cap(httpserver: HTTPServer) -> None:
    """A provider that keeps announcing `next` is read for at most MAX_PAGES pages per search."""
    items = [_one_item(itemId=f"v1|{i}|0") for i in range(3)]

    def endless(request: Request) -> Response:
        offset = int(request.args.get("offset", "0"))
        page = {"total": 10_000, "offset": offset, "itemSummaries": items,
                "next": f"https://api.ebay.com{SEARCH_PATH}?q={request.args['q']}&offset={offset + 200}"}
        return Response(json.dumps(page), content_type="application/json")

    _serve(httpserver, endless)
    result = _fetch(httpserver)
    searches = [r for r, _ in httpserver.log if r.path == SEARCH_PATH]
    first_pages = [r for r in searches if "offset" not in r.args]
    assert len(first_pages) == 2 * len(EBAY_GPUS)
    assert len(searches) == MAX_PAGES * len(first_pages)
    assert _by_key(result.observations)[("RTX 4080", "used")].listings == MAX_PAGES * 3


def test_non_usd_listings_and_unasked_conditions_are_skipped(httpserver: HTTPServer) -> None:
    def only_4080(request: Request) -> Response:
        if request.args["q"] != "RTX 4080":
            return Response(json.dumps({"total": 0}), content_type="application/json")
        items = [_one_item(itemId=f"v1|{i}|0", price={"value": str(900 + i), "currency": "USD"}) for i in range(3)]
        items += [_one_item(price={"value": "5", "currency": "EUR"}),
                  _one_item(conditionId="7000", price={"value": "1", "currency": "USD"})]
        return Response(json.dumps({"total": len(items), "itemSummaries": items}), content_type="application/json")

    _serve(httpserver, only_4080)
    found = _by_key(_fetch(httpserver).observations)
    assert found[("RTX 4080", "used")].listings == 3
    assert found[("RTX 4080", "used")].usd == 901.0
    assert ("RTX 4080", "new") not in found  # the new search served used listings (3000): none kept


def test_reference_is_the_first_page_url(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    obs = _by_key(_fetch(httpserver).observations)[("RTX 4090", "used")]
    query = parse_qs(urlsplit(obs.reference).query)
    assert query["q"] == ["RTX 4090"] and "offset" not in query
