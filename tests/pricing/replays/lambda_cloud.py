"""Lambda Cloud instance types replayed from loopback (tests/pricing/sources/data/lambda/instance_types.json)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.lambda_cloud import LambdaSource
from tests.pricing.replays.base import DATA, Replay, load_json

INSTANCE_TYPES = DATA / "lambda" / "instance_types.json"
API_KEY = "test-key"


def scaled_instance_types(price_scale: float) -> dict[str, Any]:
    """The answer with every price_cents_per_hour scaled, kept a string where the sample has a string."""
    body: dict[str, Any] = load_json(INSTANCE_TYPES)
    for entry in body["data"].values():
        instance = entry["instance_type"]
        cents = instance["price_cents_per_hour"]
        scaled = float(cents) * price_scale
        instance["price_cents_per_hour"] = f"{scaled:g}" if isinstance(cents, str) else scaled
    return body


class LambdaReplay(Replay):
    source_class: ClassVar[type[Source]] = LambdaSource
    credentials: ClassVar[dict[str, str]] = {"api_key": API_KEY}

    def _expect(self, server: HTTPServer) -> Any:
        return server.expect_request("/instance-types", method="GET",
                                     headers={"Authorization": f"Bearer {API_KEY}"})

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        self._expect(server).respond_with_json(scaled_instance_types(price_scale))

    def install_empty(self, server: HTTPServer) -> None:
        self._expect(server).respond_with_json({"data": {}})

    def install_truncated(self, server: HTTPServer) -> None:
        text = json.dumps(scaled_instance_types(1.0))
        self._expect(server).respond_with_data(text[: len(text) // 2], content_type="application/json")
