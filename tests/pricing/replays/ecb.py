"""ECB euro reference rates: the real `eurofxref-daily.xml` (gesmes envelope, dated Cube of currency/rate Cubes)."""

from __future__ import annotations

import re
from typing import ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.ecb import EcbSource
from tests.pricing.replays.base import DATA, Replay

DAILY = DATA / "ecb" / "eurofxref-daily.xml"
PATH = "/eurofxref-daily.xml"
RATE = re.compile(r"currency='([A-Z]{3})' rate='([0-9.]+)'")


def daily_xml(price_scale: float = 1.0) -> str:
    """The real file; `price_scale` scales what one unit of each currency is worth in USD (the observations' `usd`)
    by dividing its rate per euro (the USD rate itself is kept, so the scale is not cancelled out)."""
    text = DAILY.read_text(encoding="utf-8")
    if price_scale == 1.0:
        return text

    def scaled(match: re.Match[str]) -> str:
        currency, rate = match.group(1), float(match.group(2))
        if currency == "USD":
            return match.group(0)
        value = rate / price_scale if price_scale > 0 else rate * price_scale
        return f"currency='{currency}' rate='{value:.6f}'"
    return RATE.sub(scaled, text)


class EcbReplay(Replay):
    source_class: ClassVar[type[Source]] = EcbSource

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        server.expect_request(PATH).respond_with_data(daily_xml(price_scale), content_type="text/xml")

    def install_empty(self, server: HTTPServer) -> None:
        text = DAILY.read_text(encoding="utf-8")
        empty = re.sub(r"<Cube time='[^']+'>.*?</Cube>\s*</Cube>", "</Cube>", text, flags=re.S)
        server.expect_request(PATH).respond_with_data(empty, content_type="text/xml")

    def install_truncated(self, server: HTTPServer) -> None:
        text = DAILY.read_text(encoding="utf-8")
        server.expect_request(PATH).respond_with_data(text[: len(text) // 2], content_type="text/xml")
