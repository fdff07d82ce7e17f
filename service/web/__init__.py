"""The web page's own files, shipped inside the package (package data) so the page needs no CDN and no network."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

STATIC_DIR = Path(__file__).parent / "static"
TEMPLATES_DIR = Path(__file__).parent / "templates"


@cache
def _template(name: str) -> str:
    return (TEMPLATES_DIR / name).read_text(encoding="utf-8")


def render(name: str, **values: Any) -> str:
    """Fill `{{ key }}` slots with JSON (safe inside a <script type="application/json"> element)."""
    html = _template(name)
    for key, value in values.items():
        payload = json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
        html = html.replace("{{ " + key + " }}", payload.replace("&", "\\u0026"))
    return html
