"""Which language a page speaks, and its strings: one JSON catalogue per locale in `locales/`.

The page's own text is translated; what the API answers (recommendation sentences, warnings, error messages)
stays English with stable rule codes, so a client can key on them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

LOCALES_DIR = Path(__file__).parent / "locales"
DEFAULT_LOCALE = "en"
# the page's locales, in the order the switch offers them, with their own names
LOCALE_NAMES = {"en": "English", "zh-Hans": "简体中文", "fr": "Français"}
LOCALE_COOKIE = "gpuplan_lang"


@cache
def catalogue(locale: str) -> dict[str, str]:
    """The strings of one locale (key -> text with `{name}` slots)."""
    strings: dict[str, str] = json.loads((LOCALES_DIR / f"{locale}.json").read_text(encoding="utf-8"))
    return strings


def _supported(tag: str) -> str | None:
    """A BCP 47 tag mapped to a page locale: any Chinese tag reads the Simplified page (the only Chinese one)."""
    primary = tag.strip().lower().split("-")[0]
    if primary == "zh":
        return "zh-Hans"
    return primary if primary in LOCALE_NAMES else None


def _accepted(header: str) -> list[str]:
    """Accept-Language tags, best first (RFC 9110 section 12.5.4); q=0 means "not this one"."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(ranked)]


def choose_locale(asked: str | None, remembered: str | None, accept_language: str | None) -> str:
    """The page's locale: `?lang=` first, then the switch's cookie, then the browser's Accept-Language."""
    for explicit in (asked, remembered):
        if explicit and (found := _supported(explicit)):
            return found
    for tag in _accepted(accept_language or ""):
        if found := _supported(tag):
            return found
    return DEFAULT_LOCALE
