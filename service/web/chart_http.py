"""How the chart endpoints describe their answer and their options in OpenAPI: an SVG body, `size` and `lang`.

Separate from the drawing (`chart_draw.py`) so the routes of every domain that serves a chart say it the same way,
and a generated client reads the same schema everywhere.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Query

SVG_MEDIA_TYPE = "image/svg+xml"
# how the chart endpoints describe their answer and their one option in OpenAPI
# the body's schema too: without one, a generated client (openapi-python-client) drops the answer and a strict one
# fails on the 200 (issue 33)
SVG_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {SVG_MEDIA_TYPE: {"schema": {"type": "string"}}}, "description": "an SVG image"}}
ChartSize = Annotated[Literal["wide", "narrow"], Query(description="`narrow` for a phone-width column")]
ChartLang = Annotated[str | None, Query(max_length=35, pattern=r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$", description=(
    "the chart's language: `en` (the default), `fr` or `zh-Hans`: titles, labels, legends and numbers, money and "
    "dates as that locale writes them. Any language tag is read as the page reads `?lang=` (`zh-CN` draws in "
    "Simplified Chinese, `fr-CH` in French); a language the page does not speak draws in English."))]
