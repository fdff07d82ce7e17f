"""The web page's own files, shipped inside the package (package data) so the page needs no CDN and no network."""

from __future__ import annotations

import html as html_text
import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

STATIC_DIR = Path(__file__).parent / "static"
TEMPLATES_DIR = Path(__file__).parent / "templates"


_INCLUDE = re.compile(r'\{% include "([\w.-]+)" %\}')


@cache
def _template(name: str) -> str:
    """The template with its `{% include "partial.html" %}` lines replaced by the partials (one level): a form
    section lives in its own file, so the shared page changes by one line when a section is added."""
    html = (TEMPLATES_DIR / name).read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda m: (TEMPLATES_DIR / m.group(1)).read_text(encoding="utf-8"), html)


_TEXT_SLOT = re.compile(r"\[\[([\w.-]+)\]\]")


def render(name: str, text: Mapping[str, str] | None = None, **values: Any) -> str:
    """Fill `[[key]]` slots with `text[key]`, HTML-escaped (the page's strings in its language), and `{{ key }}`
    slots with JSON (safe inside a <script type="application/json"> element).

    A `[[key]]` the mapping lacks raises KeyError, so a template cannot ship a slot no catalogue fills.
    """
    html = _template(name)
    if text is not None:
        html = _TEXT_SLOT.sub(lambda m: html_text.escape(text[m.group(1)]), html)
    for key, value in values.items():
        payload = json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
        html = html.replace("{{ " + key + " }}", payload.replace("&", "\\u0026"))
    return html
