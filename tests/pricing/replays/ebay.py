"""eBay Browse API on loopback: the OAuth token endpoint and item_summary/search, answered from the JSON
pages in tests/pricing/sources/data/ebay/ (real response format, junk titles included).

The search handler checks what a real search must send (bearer token, category, Buy It Now, USD, the
condition ids of used or new) and routes on `q`, the condition set and `offset`; a GPU without a data file
gets eBay's answer for "nothing found" (`total` 0, no `itemSummaries`).
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pricing.sources.ebay import CATEGORY_GRAPHICS_CARDS, CONDITION_IDS, PAGE_SIZE, SEARCH_PATH, TOKEN_PATH, EbaySource
from tests.pricing.replays.base import DATA, Replay, load_json

EBAY_DATA = DATA / "ebay"
CLIENT_ID, CLIENT_SECRET = "client-id", "client-secret"
TOKEN = "v^1.1#i^1#r^0#p^1#I^3#f^0#t^H4sIAAAAAAAAAOVYa2wUVRTe7W4fWUBRgUSrAhnTWcu5"

# (search words, condition) -> data file of each page, in `offset` order (PAGE_SIZE apart)
PAGES: dict[tuple[str, str], list[str]] = {
    ("RTX 4090", "used"): ["rtx4090_used_p1.json", "rtx4090_used_p2.json"],
    ("RTX 4090", "new"): ["rtx4090_new.json"],
    ("RTX 3090", "used"): ["rtx3090_used.json"],
    ("RTX 3090", "new"): ["rtx3090_new.json"],
    ("RTX 4080", "used"): ["rtx4080_used.json"],
    ("RTX A6000", "used"): ["rtx_a6000_used.json"],
    ("A100 80GB PCIe", "used"): ["a100_80gb_pcie_used.json"],
}


def scale_prices(value: Any, scale: float) -> Any:
    """Every eBay amount ({value, currency}: item price and shipping cost) multiplied by `scale`."""
    if isinstance(value, dict):
        if "value" in value and "currency" in value:
            return {**value, "value": f"{float(value['value']) * scale:.2f}"}
        return {k: scale_prices(v, scale) for k, v in value.items()}
    if isinstance(value, list):
        return [scale_prices(v, scale) for v in value]
    return value


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")


def _token(request: Request) -> Response:
    auth = request.authorization
    if auth is None or auth.type != "basic" or (auth.username, auth.password) != (CLIENT_ID, CLIENT_SECRET):
        return _json({"error": "invalid_client", "error_description": "client authentication failed"}, 401)
    if request.form.get("grant_type") != "client_credentials" or \
            request.form.get("scope") != "https://api.ebay.com/oauth/api_scope":
        return _json({"error": "invalid_request"}, 400)
    return _json({"access_token": TOKEN, "expires_in": 7200, "token_type": "Application Access Token"})


def _condition(filter_text: str) -> str | None:
    """Which of our condition sets the filter asks for; None for a filter a real search would not send."""
    match = re.search(r"conditionIds:\{([0-9|]+)\}", filter_text)
    if match is None or "buyingOptions:{FIXED_PRICE}" not in filter_text or "priceCurrency:USD" not in filter_text:
        return None
    asked = tuple(match.group(1).split("|"))
    return next((name for name, ids in CONDITION_IDS.items() if ids == asked), None)


class EbayReplay(Replay):
    source_class = EbaySource
    credentials: ClassVar[dict[str, str]] = {"api_key": CLIENT_ID, "api_secret": CLIENT_SECRET}

    def _install(self, server: HTTPServer, price_scale: float, *, empty: bool = False,
                 failing_offset: int | None = None) -> None:
        def search(request: Request) -> Response:
            if request.headers.get("Authorization") != f"Bearer {TOKEN}":
                return _json({"errors": [{"errorId": 1001, "message": "Invalid access token"}]}, 401)
            condition = _condition(request.args.get("filter", ""))
            if condition is None or request.args.get("category_ids") != CATEGORY_GRAPHICS_CARDS:
                return _json({"errors": [{"errorId": 12001, "message": "Invalid filter or category"}]}, 400)
            offset = int(request.args.get("offset", "0"))
            if offset == failing_offset:
                return _json({"errors": [{"errorId": 10001, "message": "Internal error"}]}, 500)
            pages = [] if empty else PAGES.get((request.args.get("q", ""), condition), [])
            if offset // PAGE_SIZE >= len(pages):
                return _json({"href": request.url, "total": 0, "limit": PAGE_SIZE, "offset": offset})
            return _json(scale_prices(load_json(EBAY_DATA / pages[offset // PAGE_SIZE]), price_scale))

        server.expect_request(TOKEN_PATH, method="POST").respond_with_handler(_token)
        server.expect_request(SEARCH_PATH, method="GET").respond_with_handler(search)

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        self._install(server, price_scale)

    def install_empty(self, server: HTTPServer) -> None:
        self._install(server, 1.0, empty=True)

    def install_truncated(self, server: HTTPServer) -> None:
        """The RTX 4090 (used) search announces a second page, which then fails."""
        self._install(server, 1.0, failing_offset=PAGE_SIZE)
