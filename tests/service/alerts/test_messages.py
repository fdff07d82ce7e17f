"""Alert e-mail rendering: every event type, escaping, and payloads with parts missing."""

from __future__ import annotations

from typing import Any

import pytest

from service.alerts.messages import render_email

PRICE = {"gpu": "H100 SXM", "kind": "cloud", "pricing": "on_demand", "provider": "aws", "name": "p5.48xlarge",
         "region": "us-east-1", "gpu_count": 8, "usd": 15.6, "usd_per_gpu": 1.95, "previous_usd_per_gpu": 2.4,
         "change_pct": -18.75, "unit": "USD per GPU-hour", "source": "aws", "observed_at": "2026-11-21T09:58:00Z"}


def event(type_: str, summary: str = "Something happened", **data: Any) -> dict[str, Any]:
    return {"id": "ev-1", "type": type_, "created_at": "2026-11-21T10:00:00Z",
            "subscription": {"id": "sub-1", "name": "H100 watch"}, "summary": summary, "data": data}


def test_price_threshold() -> None:
    payload = event("price.threshold", "H100 SXM is now 1.95 USD per GPU-hour", prices=[PRICE])
    subject, text, html = render_email(payload)
    assert subject == "[gpuplan] H100 SXM is now 1.95 USD per GPU-hour"
    line = ("H100 SXM cloud on_demand at aws p5.48xlarge us-east-1: 1.95 USD per GPU-hour (8 GPUs: 15.60 USD), "
            "was 2.40 (-18.8%); source aws, observed 2026-11-21T09:58:00Z")
    assert line in text
    assert line in html
    for part in ("Subscription: H100 watch (sub-1)", "Event id: ev-1", "Event type: price.threshold"):
        assert part in text and part in html


def test_price_move_without_previous_price() -> None:
    used = {"gpu": "RTX 3090", "kind": "used", "pricing": "list", "provider": "ebay", "usd": 650.0,
            "usd_per_gpu": 650.0, "gpu_count": 1, "unit": "USD per GPU", "previous_usd_per_gpu": None,
            "change_pct": None}
    _, text, _ = render_email(event("price.move", prices=[used]))
    assert "RTX 3090 used list at ebay: 650.00 USD per GPU\n" in text
    assert "was" not in text


def test_plan_change() -> None:
    payload = event(
        "plan.change", "The best plan for Lab changed", prices=[PRICE], profile={"id": "p-1", "name": "Lab"},
        old={"total_cost_usd": 12345.67, "purchases": [], "cloud": ["H100 SXM aws p5.48xlarge: 120 h"]},
        new={"total_cost_usd": 11419.74, "purchases": ["1 x used RTX 3090 (ebay)"], "cloud": []},
        cost_change_pct=-7.5, reasons=["purchases changed", "total cost moved 7.5% (more than 5%)"],
    )
    subject, text, html = render_email(payload)
    assert subject == "[gpuplan] The best plan for Lab changed"
    for part in ("Plan for Lab", "Total cost: 12,345.67 USD → 11,419.74 USD (-7.5%)",
                 "Why: purchases changed; total cost moved 7.5% (more than 5%)",
                 "Rent: H100 SXM aws p5.48xlarge: 120 h", "Buy: 1 x used RTX 3090 (ebay)", "Prices that caused it"):
        assert part in text and part in html
    order = ["Before", "Buy: nothing", "Now", "Buy: 1 x used RTX 3090", "Rent: nothing"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)


def test_test_event_has_only_a_summary() -> None:
    subject, text, html = render_email({"type": "test", "summary": "This is a test alert from gpuplan."})
    assert subject == "[gpuplan] This is a test alert from gpuplan."
    assert text.startswith("Test alert\n\nThis is a test alert from gpuplan.\n")
    assert "<p><strong>This is a test alert from gpuplan.</strong></p>" in html


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"type": "plan.change"},
        {"type": "plan.change", "data": None},
        {"type": "plan.change", "data": {"old": "broken", "new": [], "reasons": "not a list", "profile": 3}},
        {"type": "price.move", "data": {"prices": ["junk", {}, None, {"gpu": "A100"}]}},
        {"type": "price.threshold", "data": {"prices": "not a list"}, "subscription": "nope"},
        {"type": "unknown.kind", "summary": None, "created_at": 12},
    ],
)
def test_malformed_payloads_still_render(payload: dict[str, Any]) -> None:
    subject, text, html = render_email(payload)
    assert subject.startswith("[gpuplan] ") and len(subject) > len("[gpuplan] ")
    assert text.strip()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "None" not in text


def test_subject_is_one_short_line() -> None:
    subject, _, _ = render_email(event("price.move", "line one\r\nBcc: victim@example.org\n" + "x" * 400))
    assert "\n" not in subject and "\r" not in subject
    assert len(subject) <= 150
    assert subject.startswith("[gpuplan] line one Bcc: victim@example.org xxx")
    assert subject.endswith("…")


def test_every_value_is_escaped_in_html() -> None:
    evil = '<img src=x onerror="alert(1)">&'
    price = {**PRICE, "gpu": evil, "provider": evil, "name": evil, "region": evil, "source": evil}
    payload = event("plan.change", evil, prices=[price], profile={"id": "p", "name": evil},
                    old={"total_cost_usd": 1.0, "purchases": [evil], "cloud": [evil]},
                    new={"total_cost_usd": 2.0, "purchases": [], "cloud": []}, reasons=[evil])
    payload["subscription"] = {"id": evil, "name": evil}
    payload["id"] = evil
    _, text, html = render_email(payload)
    assert "<img" not in html
    assert 'onerror="' not in html
    escaped = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;"
    assert html.count(escaped) >= 10
    assert text.count(evil) >= 10  # the plain-text part shows the values as they are
