"""Alert e-mails: one subject line, a plain-text body and an HTML body built from the same event payload.

Both bodies are rendered from one list of sections so they always say the same thing; the HTML escapes
every value because names, providers and SKUs come from users and from price feeds. Missing or malformed
parts of a payload are left out rather than failing: an alert must still go out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SUBJECT_PREFIX = "[gpuplan] "
SUBJECT_MAX_CHARS = 150
_TITLES = {
    "price.threshold": "Price threshold reached",
    "price.move": "Price moved",
    "plan.change": "Best plan changed",
    "test": "Test alert",
}


@dataclass
class _Section:
    title: str
    lines: list[str] = field(default_factory=list)


def _single_line(value: object) -> str:
    return re.sub(r"\s+", " ", str(value)).strip()


def _get(value: object, key: str) -> Any:
    return value.get(key) if isinstance(value, Mapping) else None


def _text(value: object) -> str:
    return "" if value is None else _single_line(value)


def _number(value: object, digits: int = 2) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:,.{digits}f}"
    return _text(value)


def _percent(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:+.1f}%"
    return _text(value)


def subject_for(payload: Mapping[str, Any]) -> str:
    """Header-safe (one line) and short enough for a mail list view; the summary carries the news."""
    summary = _text(payload.get("summary")) or _TITLES.get(_text(payload.get("type")), "gpuplan alert")
    subject = SUBJECT_PREFIX + summary
    if len(subject) > SUBJECT_MAX_CHARS:
        subject = subject[: SUBJECT_MAX_CHARS - 1].rstrip() + "…"
    return subject


def _price_line(price: Mapping[str, Any]) -> str:
    what = " ".join(_text(price.get(key)) for key in ("gpu", "kind", "pricing") if price.get(key)) or "price"
    offer = " ".join(_text(price.get(key)) for key in ("provider", "name", "region") if price.get(key))
    line = f"{what} at {offer}" if offer else what
    per_gpu, usd, count = price.get("usd_per_gpu"), price.get("usd"), price.get("gpu_count")
    line += f": {_number(per_gpu if per_gpu is not None else usd)} {_text(price.get('unit')) or 'USD'}"
    if per_gpu is not None and usd is not None and isinstance(count, int) and count > 1:
        line += f" ({count} GPUs: {_number(usd)} USD)"
    if price.get("previous_usd_per_gpu") is not None:
        line += f", was {_number(price.get('previous_usd_per_gpu'))}"
        if price.get("change_pct") is not None:
            line += f" ({_percent(price.get('change_pct'))})"
    seen = [f"{label} {_text(price.get(key))}" for key, label in (("source", "source"), ("observed_at", "observed"))
            if price.get(key)]
    return "; ".join([line, ", ".join(seen)]) if seen else line


def _plan_lines(plan: object) -> list[str]:
    lines = []
    if _get(plan, "total_cost_usd") is not None:
        lines.append(f"Total cost: {_number(_get(plan, 'total_cost_usd'))} USD")
    for key, label in (("purchases", "Buy"), ("cloud", "Rent")):
        items = _get(plan, key)
        if isinstance(items, list):
            lines.extend(f"{label}: {_text(item)}" for item in items)
            if not items:
                lines.append(f"{label}: nothing")
    return lines


def _sections(payload: Mapping[str, Any]) -> list[_Section]:
    data = payload.get("data")
    sections: list[_Section] = []
    profile = _get(data, "profile")
    if payload.get("type") == "plan.change" or profile is not None:
        name = _text(_get(profile, "name")) or _text(_get(profile, "id")) or "your saved profile"
        change = _Section(f"Plan for {name}")
        old_cost, new_cost = _get(_get(data, "old"), "total_cost_usd"), _get(_get(data, "new"), "total_cost_usd")
        if old_cost is not None and new_cost is not None:
            cost = f"Total cost: {_number(old_cost)} USD → {_number(new_cost)} USD"
            if _get(data, "cost_change_pct") is not None:
                cost += f" ({_percent(_get(data, 'cost_change_pct'))})"
            change.lines.append(cost)
        reasons = _get(data, "reasons")
        if isinstance(reasons, list) and reasons:
            change.lines.append("Why: " + "; ".join(_text(reason) for reason in reasons))
        sections.append(change)
        for key, title in (("old", "Before"), ("new", "Now")):
            lines = _plan_lines(_get(data, key))
            if lines:
                sections.append(_Section(title, lines))
    prices = _get(data, "prices")
    if isinstance(prices, list):
        priced = [p for p in prices if isinstance(p, Mapping) and (p.get("usd_per_gpu"), p.get("usd")) != (None, None)]
        lines = [_price_line(price) for price in priced]
        if lines:
            title = "Prices that caused it" if payload.get("type") == "plan.change" else "Prices"
            sections.append(_Section(title, lines))
    about = _Section("About this alert")
    subscription = payload.get("subscription")
    sub_name, sub_id = _text(_get(subscription, "name")), _text(_get(subscription, "id"))
    if sub_name or sub_id:
        about.lines.append(f"Subscription: {sub_name} ({sub_id})" if sub_name and sub_id else
                           f"Subscription: {sub_name or sub_id}")
    for key, label in (("type", "Event type"), ("id", "Event id"), ("created_at", "Created")):
        if payload.get(key) is not None:
            about.lines.append(f"{label}: {_text(payload.get(key))}")
    sections.append(about)
    return [section for section in sections if section.lines]


def _render_text(heading: str, summary: str, sections: list[_Section]) -> str:
    parts = [heading, "", summary] if summary else [heading]
    for section in sections:
        parts += ["", section.title, *(f"  - {line}" for line in section.lines)]
    return "\n".join(parts) + "\n"


def _render_html(heading: str, summary: str, sections: list[_Section]) -> str:
    e = html.escape
    body = [f"<h2>{e(heading)}</h2>"]
    if summary:
        body.append(f"<p><strong>{e(summary)}</strong></p>")
    for section in sections:
        items = "".join(f"<li>{e(line)}</li>" for line in section.lines)
        body.append(f"<h3>{e(section.title)}</h3><ul>{items}</ul>")
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>gpuplan alert</title></head>'
            f'<body style="font-family: sans-serif">{"".join(body)}</body></html>\n')


def render_email(payload: dict[str, Any]) -> tuple[str, str, str]:
    """(subject, plain-text body, HTML body) for an event payload of any type."""
    heading = _TITLES.get(_text(payload.get("type")), "gpuplan alert")
    summary = _text(payload.get("summary"))
    sections = _sections(payload)
    return subject_for(payload), _render_text(heading, summary, sections), _render_html(heading, summary, sections)
