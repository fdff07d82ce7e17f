"""EC2 DescribeSpotPriceHistory on loopback, answering boto3 in the EC2 Query API's XML.

The recorded pages are kept in aws-cli's JSON shape (the sample's); they are rendered to the XML that
EC2 sends (`DescribeSpotPriceHistoryResponse`, `spotPriceHistorySet/item`, `nextToken`) per request.
The region is read from the SigV4 credential scope, the page from the form field `NextToken`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar
from xml.sax.saxutils import escape

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pricing.sources.aws_spot import AwsSpotSource
from pricing.sources.base import Source, SourceConfig
from tests.pricing.replays.base import DATA, Replay, load_json

REGIONS = ("us-east-1", "us-west-2")
PAGES = {"us-east-1": ("us-east-1-page-1.json", "us-east-1-page-2.json"), "us-west-2": ("us-west-2-page-1.json",)}
NAMESPACE = "http://ec2.amazonaws.com/doc/2016-11-15/"
SCOPE = re.compile(r"Credential=[^/]+/\d{8}/([a-z0-9-]+)/ec2/aws4_request")
FIELDS = (("instanceType", "InstanceType"), ("productDescription", "ProductDescription"),
          ("spotPrice", "SpotPrice"), ("timestamp", "Timestamp"), ("availabilityZone", "AvailabilityZone"))


def recorded_pages(region: str, price_scale: float = 1.0) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = [load_json(DATA / "aws_spot" / name) for name in PAGES[region]]
    for page in pages:
        for record in page["SpotPriceHistory"]:
            record["SpotPrice"] = f"{float(record['SpotPrice']) * price_scale:.6f}"
    return pages


def spot_xml(page: dict[str, Any]) -> str:
    """A page as EC2 writes it on the wire."""
    items = "".join(
        "<item>" + "".join(f"<{tag}>{escape(str(record[key]))}</{tag}>" for tag, key in FIELDS) + "</item>"
        for record in page["SpotPriceHistory"]
    )
    token = page.get("NextToken") or ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeSpotPriceHistoryResponse xmlns="{NAMESPACE}">'
            f"<requestId>59dbff89-35bd-4eac-99ed-be587EXAMPLE</requestId>"
            f"<spotPriceHistorySet>{items}</spotPriceHistorySet><nextToken>{escape(token)}</nextToken>"
            "</DescribeSpotPriceHistoryResponse>")


def error_xml(code: str, message: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>{code}</Code>'
            f"<Message>{escape(message)}</Message></Error></Errors>"
            "<RequestID>ea966190-f9aa-478e-9ede-example</RequestID></Response>")


def request_region(request: Request) -> str:
    match = SCOPE.search(request.headers.get("Authorization", ""))
    return match.group(1) if match else ""


def serve(server: HTTPServer, bodies: Callable[[str], list[str]]) -> None:
    """Answer DescribeSpotPriceHistory: bodies(region)[k] for the page whose NextToken is page k's."""

    def handler(request: Request) -> Response:
        if request.form.get("Action") != "DescribeSpotPriceHistory":
            return Response(error_xml("InvalidAction", "unexpected action"), status=400)
        region = request_region(request)
        if region not in PAGES:
            return Response(error_xml("InvalidRegion", f"no replay for {region!r}"), status=400)
        tokens = [page.get("NextToken") for page in recorded_pages(region)]
        token = request.form.get("NextToken")
        index = 0 if not token else tokens.index(token) + 1
        return Response(bodies(region)[index], content_type="text/xml;charset=UTF-8")

    server.expect_request("/", method="POST").respond_with_handler(handler)


class AwsSpotReplay(Replay):
    source_class: ClassVar[type[Source]] = AwsSpotSource
    credentials: ClassVar[dict[str, str]] = {"api_key": "AKIDEXAMPLE", "api_secret": "secret"}

    def config(self, server: HTTPServer, **overrides: Any) -> SourceConfig:
        overrides.setdefault("regions", list(REGIONS))
        return super().config(server, **overrides)

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        serve(server, lambda region: [spot_xml(page) for page in recorded_pages(region, price_scale)])

    def install_empty(self, server: HTTPServer) -> None:
        serve(server, lambda region: [spot_xml({"SpotPriceHistory": []})])

    def install_truncated(self, server: HTTPServer) -> None:
        """us-east-1's second page stops half-way through its XML."""

        def bodies(region: str) -> list[str]:
            pages = [spot_xml(page) for page in recorded_pages(region)]
            if len(pages) > 1:
                pages[1] = pages[1][: len(pages[1]) // 2]
            return pages

        serve(server, bodies)
