"""GET / (the planning page) and GET /prices (the price page): HTML shells; their scripts call the JSON API."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from service import web
from service.plans.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE

router = APIRouter(include_in_schema=False)

# the form starts with the first; the page offers all of them
PAGE_EXAMPLES = [
    {"id": "worked_example", "label": "Guide's worked example (2020 quotes)", "profile": WORKED_EXAMPLE},
    {"id": "catalog", "label": "15% of one RTX 3090, catalog prices", "profile": CATALOG_EXAMPLE},
    {"id": "series", "label": "Deadline bursts in March and November", "profile": SERIES_EXAMPLE},
]


@router.get("/", response_class=HTMLResponse)
def plan_page() -> HTMLResponse:
    return HTMLResponse(web.render("plan.html", examples=PAGE_EXAMPLES))


@router.get("/prices", response_class=HTMLResponse)
def prices_page() -> HTMLResponse:
    return HTMLResponse(web.render("prices.html"))
