"""Azure Retail Prices API on loopback: two real-format pages linked by an absolute NextPageLink."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pricing.sources.azure import AzureSource
from pricing.sources.base import Source, SourceConfig
from tests.pricing.replays.base import DATA, Replay, load_json

PATH = "/api/retail/prices"
REAL_PREFIX = "https://prices.azure.com:443/api/retail/prices"  # as the API writes NextPageLink
PAGE_FILES = ("gpu-vms-page-1.json", "gpu-vms-page-2.json")


def azure_pages(server: HTTPServer, price_scale: float = 1.0) -> list[dict[str, Any]]:
    """The recorded pages with every price scaled and NextPageLink pointing at the loopback server."""
    pages: list[dict[str, Any]] = [load_json(DATA / "azure" / name) for name in PAGE_FILES]
    for page in pages:
        for item in page["Items"]:
            item["retailPrice"] *= price_scale
            item["unitPrice"] *= price_scale
        if page["NextPageLink"]:
            page["NextPageLink"] = page["NextPageLink"].replace(REAL_PREFIX, server.url_for(PATH))
    return pages


def split_reservations(pages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The recorded pages without their Reservation items, and one page holding just those: what the API
    answers to `priceType eq 'Consumption'` and to `priceType eq 'Reservation'`."""
    reserved = [item for page in pages for item in page["Items"] if item["type"] == "Reservation"]
    for page in pages:
        page["Items"] = [item for item in page["Items"] if item["type"] != "Reservation"]
        page["Count"] = len(page["Items"])
    return pages, {"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                   "Items": reserved, "NextPageLink": None, "Count": len(reserved)}


def serve_pages(server: HTTPServer, bodies: list[str], reservations: str | None = None) -> None:
    """Answer the first request (no $skip) with bodies[0] and `$skip=1000*k` with bodies[k]; a request for
    reservations gets `reservations` (by default the same pages)."""

    def handler(request: Request) -> Response:
        if reservations is not None and "Reservation" in request.args.get("$filter", ""):
            return Response(reservations, content_type="application/json")
        skip = int(request.args.get("$skip", "0"))
        index = skip // 1000
        if index >= len(bodies):
            return Response("no such page", status=404)
        return Response(bodies[index], content_type="application/json")

    server.expect_request(PATH).respond_with_handler(handler)


class AzureReplay(Replay):
    source_class: ClassVar[type[Source]] = AzureSource

    def config(self, server: HTTPServer, **overrides: Any) -> SourceConfig:
        overrides.setdefault("base_url", server.url_for(PATH))
        return super().config(server, **overrides)

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        pages, reserved = split_reservations(azure_pages(server, price_scale))
        serve_pages(server, [json.dumps(page) for page in pages], json.dumps(reserved))

    def install_empty(self, server: HTTPServer) -> None:
        empty: dict[str, Any] = {"BillingCurrency": "USD", "CustomerEntityId": "Default",
                                 "CustomerEntityType": "Retail", "Items": [], "NextPageLink": None, "Count": 0}
        serve_pages(server, [json.dumps(empty)])

    def install_truncated(self, server: HTTPServer) -> None:
        first, second = (json.dumps(page) for page in azure_pages(server))
        serve_pages(server, [first, second[: len(second) // 2]])
