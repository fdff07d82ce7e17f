"""AWS EC2 Price List bulk files on loopback: one real-format CSV per region."""

from __future__ import annotations

import csv
import io
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricing.sources.aws import AwsPriceListSource
from pricing.sources.base import Source, SourceConfig
from tests.pricing.replays.base import DATA, Replay

REGIONS = ("us-east-1", "us-west-2")
METADATA_ROWS = 5


def region_path(region: str) -> str:
    return f"/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"


def region_csv(region: str) -> str:
    return (DATA / "aws" / f"{region}.csv").read_text(encoding="utf-8")


def _line(cells: list[str]) -> str:
    """AWS's quoting: non-empty cells quoted, empty cells bare."""
    return ",".join('"' + cell.replace('"', '""') + '"' if cell else "" for cell in cells) + "\n"


def scale_prices(text: str, price_scale: float) -> str:
    """The same file with every PricePerUnit multiplied by `price_scale`."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[METADATA_ROWS]
    price = header.index("PricePerUnit")
    for row in rows[METADATA_ROWS + 1:]:
        row[price] = f"{float(row[price]) * price_scale:.10f}"
    return "".join(_line(row) for row in rows)


def header_only(region: str) -> str:
    """Metadata rows and header, no price rows: a well-formed file that prices nothing."""
    return "".join(region_csv(region).splitlines(keepends=True)[: METADATA_ROWS + 1])


def cut_response(text: str) -> Response:
    """Half the body, but a Content-Length for all of it: the connection ends mid-file."""
    body = text.encode("utf-8")
    response = Response(body[: len(body) // 2], content_type="text/csv")
    response.headers["Content-Length"] = str(len(body))
    return response


class AwsReplay(Replay):
    source_class: ClassVar[type[Source]] = AwsPriceListSource

    def config(self, server: HTTPServer, **overrides: Any) -> SourceConfig:
        overrides.setdefault("regions", list(REGIONS))
        return super().config(server, **overrides)

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        for region in REGIONS:
            server.expect_request(region_path(region)).respond_with_data(
                scale_prices(region_csv(region), price_scale), content_type="text/csv")

    def install_empty(self, server: HTTPServer) -> None:
        for region in REGIONS:
            server.expect_request(region_path(region)).respond_with_data(header_only(region), content_type="text/csv")

    def install_truncated(self, server: HTTPServer) -> None:
        first, second = REGIONS
        server.expect_request(region_path(first)).respond_with_data(region_csv(first), content_type="text/csv")
        server.expect_request(region_path(second)).respond_with_response(cut_response(region_csv(second)))
