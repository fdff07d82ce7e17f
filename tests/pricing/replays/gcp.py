"""GCP Cloud Billing Catalog replayed from loopback: two SKU pages (tests/pricing/sources/data/gcp/)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.gcp import COMPUTE_SERVICE, GcpSource
from tests.pricing.replays.base import DATA, Replay, load_json

PAGES = (DATA / "gcp" / "skus_page1.json", DATA / "gcp" / "skus_page2.json")
API_KEY = "test-key"
SKUS_PATH = f"/{COMPUTE_SERVICE}/skus"


def scale_money(money: dict[str, Any], price_scale: float) -> None:
    """Scale a google.type.Money in place: units (int64 as text) and nanos keep the same sign, as the API's do."""
    total = (int(money.get("units", 0)) + money.get("nanos", 0) / 1e9) * price_scale
    units = math.trunc(total)
    money["units"] = str(units)
    money["nanos"] = round((total - units) * 1e9)


def scaled_pages(price_scale: float) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = [load_json(path) for path in PAGES]
    for page in pages:
        for sku in page["skus"]:
            for info in sku["pricingInfo"]:
                for rate in info["pricingExpression"]["tieredRates"]:
                    scale_money(rate["unitPrice"], price_scale)
    return pages


class GcpReplay(Replay):
    source_class: ClassVar[type[Source]] = GcpSource
    credentials: ClassVar[dict[str, str]] = {"api_key": API_KEY}

    def _expect(self, server: HTTPServer, token: str | None) -> Any:
        query: dict[str, str] = {"pageSize": "5000"}
        if token is not None:
            query["pageToken"] = token
        return server.expect_request(SKUS_PATH, method="GET", query_string=query,
                                     headers={"X-Goog-Api-Key": API_KEY})

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        first, second = scaled_pages(price_scale)
        self._expect(server, None).respond_with_json(first)
        self._expect(server, first["nextPageToken"]).respond_with_json(second)

    def install_empty(self, server: HTTPServer) -> None:
        self._expect(server, None).respond_with_json({"skus": [], "nextPageToken": ""})

    def install_truncated(self, server: HTTPServer) -> None:
        """The first page is whole and points to a second page that fails (500 on every retry)."""
        first, _ = scaled_pages(1.0)
        self._expect(server, None).respond_with_json(first)
        self._expect(server, first["nextPageToken"]).respond_with_data("backend error", status=500)
