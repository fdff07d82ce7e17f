"""The generic hardware feed on loopback: a vendor quote CSV (tests/pricing/sources/data/feed/) at a URL.

The feed has no API base URL: `config()` points the source's `url` at the file on the loopback server.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from pytest_httpserver import HTTPServer

from pricing.sources.base import SourceConfig
from pricing.sources.feed import FeedSource
from tests.pricing.replays.base import DATA, Replay

FEED_PATH = "/feeds/vendor_quotes.csv"
FEED_FILE = DATA / "feed" / "vendor_quotes.csv"


def scaled_csv(scale: float) -> str:
    """The quote file with every unit_price_usd multiplied by `scale` (the file has no other price column)."""
    reader = csv.DictReader(io.StringIO(FEED_FILE.read_text(encoding="utf-8"), newline=""))
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(reader.fieldnames or []), lineterminator="\n")
    writer.writeheader()
    for row in reader:
        writer.writerow({**row, "unit_price_usd": f"{float(row['unit_price_usd']) * scale:.2f}"})
    return out.getvalue()


class FeedReplay(Replay):
    source_class = FeedSource

    def config(self, server: HTTPServer, **overrides: Any) -> SourceConfig:
        return super().config(server, **{"url": server.url_for(FEED_PATH), **overrides})

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        server.expect_request(FEED_PATH).respond_with_data(scaled_csv(price_scale), content_type="text/csv")

    def install_empty(self, server: HTTPServer) -> None:
        header = FEED_FILE.read_text(encoding="utf-8").splitlines()[0]
        server.expect_request(FEED_PATH).respond_with_data(header + "\n", content_type="text/csv")

    def install_truncated(self, server: HTTPServer) -> None:
        """The body ends in the middle of the fourth data row."""
        lines = scaled_csv(1.0).splitlines(keepends=True)
        cut = "".join(lines[:4]) + lines[4][: len(lines[4]) // 3]
        server.expect_request(FEED_PATH).respond_with_data(cut, content_type="text/csv")
