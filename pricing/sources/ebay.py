"""eBay Browse API: asking prices of used and new GPU cards, summarised per GPU model as a median.

eBay is a marketplace: one listing is one seller's wish, and a search for "RTX 3090" also returns 3090 Ti
cards, empty boxes, water blocks, laptops and whole PCs. So this source (1) asks a narrow question (category
Graphics/Video Cards, Buy It Now, USD, explicit condition ids, a price floor), (2) keeps only listings whose
title names exactly the searched GPU and nothing that makes it another product (`keep_title`), and
(3) stores robust statistics (median, 10th percentile, listing count) rather than any single price.

API, as documented by eBay:
- token: POST /identity/v1/oauth2/token, HTTP Basic client_id:client_secret, form body
  grant_type=client_credentials&scope=https://api.ebay.com/oauth/api_scope -> {"access_token", "expires_in",
  "token_type"}  (https://developer.ebay.com/api-docs/static/oauth-client-credentials-grant.html)
- search: GET /buy/browse/v1/item_summary/search?q=&category_ids=&filter=&limit= (limit at most 200) ->
  {"href", "total", "limit", "offset", "next"?, "itemSummaries"?: [{"itemId", "title", "price": {"value",
  "currency"}, "condition", "conditionId", ...}]}; `itemSummaries` is absent when nothing matched
  (https://developer.ebay.com/api-docs/buy/browse/resources/item_summary/methods/search,
  https://developer.ebay.com/api-docs/buy/browse/types/gct:SearchPagedCollection<gct:ItemSummary>)
- filter syntax buyingOptions:{FIXED_PRICE},conditionIds:{a|b},price:[lo..],priceCurrency:USD
  (https://developer.ebay.com/api-docs/buy/static/ref-buy-browse-filters.html)
- condition ids (https://developer.ebay.com/api-docs/sell/static/metadata/condition-id-values.html):
  1000 New; 1500 New other/open box; 2000 Certified refurbished; 2010/2020/2030 Excellent/Very good/Good -
  refurbished; 2500 Seller refurbished; 3000 Used; 7000 For parts or not working.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

import numpy as np
import requests

from pricing.gpus import GpuTable, normalise_gpu_name
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

TOKEN_PATH = "/identity/v1/oauth2/token"
SEARCH_PATH = "/buy/browse/v1/item_summary/search"
OAUTH_SCOPE = "https://api.ebay.com/oauth/api_scope"
MARKETPLACE = "EBAY_US"  # USD prices; listings from other sites come converted, with price.currency USD
CATEGORY_GRAPHICS_CARDS = "27386"  # eBay US "Graphics/Video Cards" (Computers > Components & Parts)

# Used = every pre-owned state that is still a working card; 7000 (for parts) is never asked for.
# New = 1000 only: 1500 "open box / new other" may be returned or tested goods and is neither new nor used.
CONDITION_IDS: dict[str, tuple[str, ...]] = {
    "used": ("2000", "2010", "2020", "2030", "2500", "3000"),
    "new": ("1000",),
}
MIN_ASK_USD = 50  # no card below is sold this cheap; keeps out $5-$40 brackets, fans and boxes titles miss
PAGE_SIZE = 200  # the API maximum
MAX_ITEMS = 400  # per GPU and condition: two pages, plenty for a median and a 10th percentile
MAX_PAGES = 4  # guard against a provider that keeps sending `next` with empty pages
MIN_LISTINGS = 3  # fewer usable listings than this: no observation for that GPU and condition

# GPU (canonical name in pricing/data/gpus.csv) -> search words. Cards people buy as loose PCIe boards.
# Left out on purpose: SXM modules (H100 SXM, H200, B200, A100 40GB/80GB SXM4, V100, V100 32GB) need an
# HGX/DGX baseboard and are not priced as loose cards; our V100 rows are SXM2 boards, and the V100 PCIe card
# sold on eBay is a different board; A10G is an AWS-only part that is not sold.
EBAY_GPUS: dict[str, str] = {
    "RTX 5090": "RTX 5090",
    "RTX 4090": "RTX 4090",
    "RTX 4080": "RTX 4080",
    "RTX 4070 Ti": "RTX 4070 Ti",
    "RTX 3090 Ti": "RTX 3090 Ti",
    "RTX 3090": "RTX 3090",
    "RTX 3080": "RTX 3080",
    "RTX 3070": "RTX 3070",
    "RTX 2080 Ti": "RTX 2080 Ti",
    "RTX 2080": "RTX 2080",
    "RTX 2070": "RTX 2070",
    "RTX 2060 Super": "RTX 2060 Super",
    "RTX 2060": "RTX 2060",
    "Titan RTX": "Titan RTX",
    "RTX A6000": "RTX A6000",
    "RTX A5000": "RTX A5000",
    "RTX 6000 Ada": "RTX 6000 Ada",
    "Quadro RTX 6000": "Quadro RTX 6000",
    "Quadro RTX 8000": "Quadro RTX 8000",
    "A100 40GB PCIe": "A100 40GB PCIe",
    "A100 80GB PCIe": "A100 80GB PCIe",
    "H100 PCIe": "H100 PCIe",
    "L40S": "NVIDIA L40S",
    "L40": "NVIDIA L40",
    "L4": "NVIDIA L4",
    "A40": "NVIDIA A40",
    "A10": "NVIDIA A10",
    "T4": "NVIDIA Tesla T4",
}

# Title words that make a listing something other than one working card (matched as whole words on the
# normalised title: lower case, every non-alphanumeric run turned into one space). A good listing dropped by
# these costs one sample of the median; a bad one kept can move it, so the list errs on dropping.
JUNK_PHRASES: tuple[str, ...] = (
    # not a working card
    "for parts", "parts only", "not working", "broken", "defective", "faulty", "as is", "untested",
    "no display", "artifacts", "artifacting", "needs repair", "repair", "cracked", "damaged",
    # packaging without the card
    "box only", "empty box", "packaging only", "no gpu", "no card", "gpu not included", "card not included",
    # parts and accessories
    "bracket", "backplate", "back plate", "water block", "waterblock", "heatsink", "heat sink", "shroud",
    "cooler only", "fan only", "fans only", "fan for", "fans for", "cooling fan", "replacement",
    "thermal pad", "thermal pads", "bios chip", "cable", "adapter", "riser", "bridge", "anti sag", "sag",
    "holder", "egpu", "enclosure", "sticker", "decal", "keychain", "miniature", "dummy", "replica", "mockup",
    # a laptop GPU or a laptop module
    "laptop", "notebook", "mobile", "max q", "mxm",
    # a whole computer around the card
    "gaming pc", "gaming computer", "desktop pc", "desktop computer", "tower", "prebuilt", "pre built",
    "i5", "i7", "i9", "ryzen", "xeon", "threadripper", "core ultra", "poweredge", "proliant",
    # more than one card ("x2" but not "2x": MSI's Ventus 2X/3X are single cards)
    "lot", "lots", "bundle", "pair", "set of", "x2", "x3", "x4", "x8",
)
_JUNK = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in JUNK_PHRASES) + r")\b")

# Model numbers in a normalised title. Each match becomes a spelling that `GpuTable.canonical` resolves.
_GEFORCE = re.compile(r"\b(rtx|gtx)?\s?([1-5]0[5-9]0)(?:\s?(ti\s?super|ti|super|d))?\b")
_TITAN = re.compile(r"\btitan(?:\s(rtx|v|xp|x|z|black))?\b")
_QUADRO = re.compile(r"\b(?:quadro\s)?rtx\s?([2-8]000|4500|5500)(\sada)?\b")
_RTX_A = re.compile(r"\b(?:rtx\s)?a([2-6][05]00)(\sada)?\b")
_DATACENTER = re.compile(r"\b(a\d{2,3}g?|h\d{3}|l\d{1,2}s?|t4|v100|p\d{2,3})\b")
_MEMORY = re.compile(r"\b(\d{1,3})\s?gb?\b")
_PCIE = re.compile(r"\bpci\s?e\b|\bpci express\b")
_SXM = re.compile(r"\bsxm\d?\b")
_FORM_FACTOR_PARTS = ("a100", "h100")  # sold as PCIe cards and SXM modules: the title must say which


@dataclass(frozen=True)
class Mention:
    """A GPU model named in a title. `spelling` goes to `GpuTable.canonical`; `ambiguous` means the title
    does not say enough to tell which of our GPUs it is (an A100 without memory size or form factor)."""

    spelling: str
    ambiguous: bool = False


def normalise_title(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


def _datacenter_mention(part: str, text: str) -> Mention:
    """A100/H100 come as PCIe cards and SXM modules with different prices: never guess which."""
    if part not in _FORM_FACTOR_PARTS:
        return Mention(part.upper())
    if part == "h100" and re.search(r"\bnvl\b", text):
        return Mention("H100 NVL")  # a different board (94 GB); maps to no GPU of ours
    form = "PCIe" if _PCIE.search(text) else "SXM" if _SXM.search(text) else ""
    sizes = {int(m) for m in _MEMORY.findall(text)}
    if part == "h100":
        return Mention(f"H100 {form}", ambiguous=not form)
    if not form or len(sizes) != 1:
        return Mention("A100", ambiguous=True)
    size = sizes.pop()
    return Mention(f"A100 PCIe {size}GB" if form == "PCIe" else f"A100 SXM4 {size}GB")


def title_mentions(title: str) -> list[Mention]:
    """Every GPU model a listing title names, in the spelling our GPU table's aliases understand."""
    text = normalise_title(title)
    found: list[Mention] = []
    for m in _GEFORCE.finditer(text):
        prefix, number, suffix = (m.group(1) or "rtx").upper(), m.group(2), m.group(3)
        found.append(Mention(f"{prefix} {number} {suffix.upper()}" if suffix else f"{prefix} {number}"))
    for m in _TITAN.finditer(text):
        found.append(Mention(f"TITAN {(m.group(1) or '').upper()}".strip(), ambiguous=m.group(1) is None))
    for m in _QUADRO.finditer(text):
        found.append(Mention(f"RTX {m.group(1)} Ada" if m.group(2) else f"Quadro RTX {m.group(1)}"))
    for m in _RTX_A.finditer(text):
        found.append(Mention(f"A{m.group(1)} Ada" if m.group(2) else f"RTX A{m.group(1)}"))
    for m in _DATACENTER.finditer(text):
        found.append(_datacenter_mention(m.group(1), text))
    return found


@dataclass(frozen=True)
class TitleVerdict:
    keep: bool
    unknown: str | None = None  # a single-card listing of a GPU model our table does not know


def keep_title(title: str, target: str, gpus: GpuTable) -> TitleVerdict:
    """Keep a listing only if its title names the searched GPU, no other model, and no junk word.

    Also dropped: a memory size other than the GPU's (e.g. the 12 GB RTX 3080 when the table's RTX 3080 is
    the 10 GB card). A clean single-card title naming only a model the GPU table does not know (e.g.
    "RTX 4080 SUPER" found by the "RTX 4080" search) is reported as unknown, never mapped to a neighbour.
    """
    text = normalise_title(title)
    if _JUNK.search(text):
        return TitleVerdict(False)
    mentions = title_mentions(title)
    if not mentions or any(m.ambiguous for m in mentions):
        return TitleVerdict(False)
    names = {gpus.canonical(m.spelling) for m in mentions}
    if names != {target}:
        unknown = [m.spelling for m in mentions if gpus.canonical(m.spelling) is None]
        if names == {None} and len({normalise_gpu_name(u) for u in unknown}) == 1:
            return TitleVerdict(False, unknown=unknown[0])
        return TitleVerdict(False)
    if target in gpus:
        memory = gpus[target].memory_gb
        if any(float(size) != memory for size in _MEMORY.findall(text)):
            return TitleVerdict(False)
    return TitleVerdict(True)


def _price(item: dict[str, Any], where: str) -> tuple[float, str]:
    price = item.get("price")
    if not isinstance(price, dict) or "value" not in price or "currency" not in price:
        raise SourceError(f"{where}: item {item.get('itemId')!r} has no price {{value, currency}}")
    try:
        return float(price["value"]), str(price["currency"])
    except (TypeError, ValueError):
        raise SourceError(f"{where}: item {item.get('itemId')!r} price {price['value']!r} is not a number") from None


@dataclass
class Search:
    """All pages of one search (one GPU, one condition): the listings and the URL of the first page."""

    items: list[dict[str, Any]]
    url: str


class EbaySource(Source):
    key: ClassVar[str] = "ebay"
    kind: ClassVar[Literal["cloud", "hardware"]] = "hardware"
    default_base_url: ClassVar[str] = "https://api.ebay.com"
    default_interval_hours: ClassVar[float] = 24.0
    credentials: ClassVar[tuple[str, ...]] = ("api_key", "api_secret")
    description: ClassVar[str] = (
        "eBay Browse API (US): median and 10th-percentile Buy It Now asking price of used and new GPU cards, "
        "junk listings filtered by title. api_key/api_secret = eBay application client id and client secret."
    )
    min_kept_ratio: ClassVar[float] = 0.5  # a model drops out when it has fewer than 3 clean listings

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        token = self._token(http)
        result = FetchResult()
        for gpu, query in EBAY_GPUS.items():
            if gpu not in gpus:
                continue
            for condition in CONDITION_IDS:
                search = self._search(http, token, query, condition)
                result.rows_seen += len(search.items)
                observation = self._summarise(search, gpu, condition, gpus, now, result.unknown_skus)
                if observation is not None:
                    result.observations.append(observation)
        if not result.observations:
            raise SourceError(
                f"eBay: no GPU had at least {MIN_LISTINGS} usable listings ({result.rows_seen} listings read)")
        return result

    def _token(self, http: requests.Session) -> str:
        """An application access token (client credentials grant), valid two hours: one per refresh."""
        api_key, api_secret = self.config.api_key, self.config.api_secret
        if api_key is None or api_secret is None:
            raise SourceError("eBay: api_key (client id) and api_secret (client secret) are required")
        response = http.post(
            f"{self.base_url}{TOKEN_PATH}",
            auth=(api_key.get_secret_value(), api_secret.get_secret_value()),
            data={"grant_type": "client_credentials", "scope": OAUTH_SCOPE},
            headers={"Accept": "application/json"},
        )
        body = json_body(response, "eBay OAuth token")
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise SourceError("eBay OAuth token: answer has no access_token")
        return token

    def _search_params(self, query: str, condition: str) -> dict[str, str]:
        ids = "|".join(CONDITION_IDS[condition])
        return {
            "q": query,
            "category_ids": CATEGORY_GRAPHICS_CARDS,
            "filter": f"buyingOptions:{{FIXED_PRICE}},conditionIds:{{{ids}}},price:[{MIN_ASK_USD}..],"
                      "priceCurrency:USD",
            "limit": str(PAGE_SIZE),
        }

    def _next_url(self, next_href: Any, where: str) -> str:
        """eBay's `next` is absolute (https://api.ebay.com/...). Only its path and query are used, on our
        configured host, so the bearer token never goes to a host we were not configured for."""
        if not isinstance(next_href, str):
            raise SourceError(f"{where}: `next` is not a URL")
        parts = urlsplit(next_href)
        if not parts.path.endswith(SEARCH_PATH):
            raise SourceError(f"{where}: `next` points outside the search resource: {next_href!r}")
        return f"{self.base_url}{SEARCH_PATH}?{parts.query}"

    def _search(self, http: requests.Session, token: str, query: str, condition: str) -> Search:
        """Follow `next` until it ends or MAX_ITEMS listings are read; a failed page fails the whole fetch."""
        headers = {"Authorization": f"Bearer {token}", "X-EBAY-C-MARKETPLACE-ID": MARKETPLACE,
                   "Accept": "application/json"}
        where = f"eBay search {query!r} ({condition})"
        response = http.get(f"{self.base_url}{SEARCH_PATH}", params=self._search_params(query, condition),
                            headers=headers)
        first_url = response.url
        items: list[dict[str, Any]] = []
        for page_no in range(1, MAX_PAGES + 1):
            page = json_body(response, where)
            page_items, next_href = self._page(page, f"{where} page {page_no}")
            items.extend(page_items)
            if next_href is None or len(items) >= MAX_ITEMS or page_no == MAX_PAGES:
                break
            response = http.get(self._next_url(next_href, where), headers=headers)
        return Search(items[:MAX_ITEMS], first_url)

    @staticmethod
    def _page(page: Any, where: str) -> tuple[list[dict[str, Any]], Any]:
        if not isinstance(page, dict) or not isinstance(page.get("total"), int):
            raise SourceError(f"{where}: not a search result (no integer `total`)")
        summaries = page.get("itemSummaries")
        if summaries is None:
            offset = page.get("offset", 0)
            if page["total"] > (offset if isinstance(offset, int) else 0):
                raise SourceError(f"{where}: no itemSummaries although total is {page['total']}: answer cut short")
            return [], None
        if not isinstance(summaries, list) or not all(isinstance(i, dict) for i in summaries):
            raise SourceError(f"{where}: itemSummaries is not a list of objects")
        return summaries, page.get("next")

    def _summarise(self, search: Search, gpu: str, condition: str, gpus: GpuTable, now: dt.datetime,
                   unknown: Counter[str]) -> PriceObservation | None:
        where = f"eBay search {EBAY_GPUS[gpu]!r} ({condition})"
        allowed = set(CONDITION_IDS[condition])
        prices: list[float] = []
        for item in search.items:
            title = item.get("title")
            if not isinstance(title, str):
                raise SourceError(f"{where}: item {item.get('itemId')!r} has no title")
            value, currency = _price(item, where)
            if currency != "USD" or str(item.get("conditionId", "")) not in allowed:
                continue  # only USD; a listing outside the asked conditions is eBay ignoring the filter
            verdict = keep_title(title, gpu, gpus)
            if verdict.unknown is not None:
                unknown[verdict.unknown] += 1
            if verdict.keep:
                prices.append(value)
        if len(prices) < MIN_LISTINGS:
            return None
        return PriceObservation(
            source=self.key, kind="used" if condition == "used" else "new", gpu=gpu, gpu_count=1,
            name=f"{gpu} ({condition}, eBay median ask)", usd=statistics.median(prices), observed_at=now,
            provider="eBay", p10_usd=float(np.quantile(prices, 0.10)), listings=len(prices), includes_host=False,
            reference=search.url,
        )
