"""Vast.ai bundles search replayed from loopback (tests/pricing/sources/data/vast/bundles.json)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.vast import VastSource
from tests.pricing.replays.base import DATA, Replay, load_json

BUNDLES = DATA / "vast" / "bundles.json"
# every field of an offer that is money (USD per hour, per GB-month or per TB), scaled together
PRICE_FIELDS = frozenset({
    "dph_base", "dph_total", "dph_total_adj", "discounted_dph_total", "discounted_hourly", "min_bid",
    "storage_cost", "storage_total_cost", "vram_costperhour", "inet_up_cost", "inet_down_cost",
    "internet_down_cost_per_tb", "internet_up_cost_per_tb",
})
PRICE_OBJECTS = ("search", "instance")  # per-hour cost breakdowns: every number in them is a price


def scaled_offers(price_scale: float) -> dict[str, Any]:
    body: dict[str, Any] = load_json(BUNDLES)
    for offer in body["offers"]:
        for name in PRICE_FIELDS:
            if isinstance(offer.get(name), int | float):
                offer[name] *= price_scale
        for name in PRICE_OBJECTS:
            offer[name] = {k: v * price_scale for k, v in offer[name].items()}
    return body


class VastReplay(Replay):
    source_class: ClassVar[type[Source]] = VastSource

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        server.expect_request("/bundles/", method="POST").respond_with_json(scaled_offers(price_scale))

    def install_empty(self, server: HTTPServer) -> None:
        server.expect_request("/bundles/", method="POST").respond_with_json({"offers": []})

    def install_truncated(self, server: HTTPServer) -> None:
        text = json.dumps(scaled_offers(1.0))
        server.expect_request("/bundles/", method="POST").respond_with_data(
            text[: len(text) // 2], content_type="application/json")
