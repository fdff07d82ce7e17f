"""RunPod GraphQL gpuTypes replayed from loopback (tests/pricing/sources/data/runpod/gpu_types.json)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.runpod import PRICE_FIELDS, RunPodSource
from tests.pricing.replays.base import DATA, Replay, load_json

GPU_TYPES = DATA / "runpod" / "gpu_types.json"
EXTRA_PRICE_FIELDS = ("oneWeekPrice", "oneMonthPrice", "threeMonthPrice")
LOWEST_PRICE_FIELDS = ("minimumBidPrice", "uninterruptablePrice")


def _scale(value: Any, price_scale: float) -> Any:
    return value * price_scale if isinstance(value, int | float) and not isinstance(value, bool) else value


def scaled_gpu_types(price_scale: float) -> dict[str, Any]:
    body: dict[str, Any] = load_json(GPU_TYPES)
    for gpu_type in body["data"]["gpuTypes"]:
        for name in (*PRICE_FIELDS, *EXTRA_PRICE_FIELDS):
            gpu_type[name] = _scale(gpu_type.get(name), price_scale)
        lowest = gpu_type.get("lowestPrice") or {}
        for name in LOWEST_PRICE_FIELDS:
            lowest[name] = _scale(lowest.get(name), price_scale)
    return body


class RunPodReplay(Replay):
    source_class: ClassVar[type[Source]] = RunPodSource

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        server.expect_request("/graphql", method="POST").respond_with_json(scaled_gpu_types(price_scale))

    def install_empty(self, server: HTTPServer) -> None:
        server.expect_request("/graphql", method="POST").respond_with_json({"data": {"gpuTypes": []}})

    def install_truncated(self, server: HTTPServer) -> None:
        text = json.dumps(scaled_gpu_types(1.0))
        server.expect_request("/graphql", method="POST").respond_with_data(
            text[: len(text) // 2], content_type="application/json")
