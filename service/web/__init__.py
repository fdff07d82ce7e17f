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


@cache
def _template(name: str) -> str:
    """A template file as it is (read once); `render` pastes its includes."""
    return (TEMPLATES_DIR / name).read_text(encoding="utf-8")


_TEXT_SLOT = re.compile(r"\[\[([\w.-]+)\]\]")
# a partial (its own file in templates/, e.g. one section of the planning form) pasted in place, one level deep,
# so a section of a page is one include line in the shared template
_INCLUDE = re.compile(r'^[ \t]*\{% include "([\w.-]+\.html)" %\}[ \t]*\n?', re.MULTILINE)


def render(name: str, text: Mapping[str, str] | None = None, **values: Any) -> str:
    """Paste `{% include "part.html" %}` lines with that template, then fill `[[key]]` slots with `text[key]`,
    HTML-escaped (the page's strings in its language), and `{{ key }}` slots with JSON (safe inside a
    <script type="application/json"> element).

    A `[[key]]` the mapping lacks raises KeyError, so a template cannot ship a slot no catalogue fills.
    """
    html = _INCLUDE.sub(lambda m: _template(m.group(1)), _template(name))
    if text is not None:
        html = _TEXT_SLOT.sub(lambda m: html_text.escape(text[m.group(1)]), html)
    for key, value in values.items():
        payload = json.dumps(value, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
        html = html.replace("{{ " + key + " }}", payload.replace("&", "\\u0026"))
    return html
