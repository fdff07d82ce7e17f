"""Webhook signatures: what a receiver's `verify` accepts and what it must reject."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

import pytest

from service.alerts.signing import new_secret, sign, verify

NOW = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.UTC)
TS = int(NOW.timestamp())
SECRET = "whsec_test-secret"
BODY = b'{"id": "e1", "type": "test", "summary": "hello"}'


def test_sign_is_hmac_sha256_over_timestamp_dot_body() -> None:
    expected = hmac.new(SECRET.encode(), f"{TS}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert sign(SECRET, TS, BODY) == f"v1={expected}"


def test_round_trip() -> None:
    assert verify(SECRET, str(TS), BODY, sign(SECRET, TS, BODY), NOW)


@pytest.mark.parametrize("age_s", [-300, -1, 0, 120, 300])
def test_timestamps_within_tolerance_accepted(age_s: int) -> None:
    now = NOW + dt.timedelta(seconds=age_s)
    assert verify(SECRET, str(TS), BODY, sign(SECRET, TS, BODY), now)


@pytest.mark.parametrize(
    ("secret", "timestamp", "body", "signature", "now"),
    [
        pytest.param(SECRET, str(TS), BODY + b" ", None, NOW, id="tampered body"),
        pytest.param(SECRET, str(TS), BODY.replace(b"hello", b"hellO"), None, NOW, id="one byte changed"),
        pytest.param("whsec_other", str(TS), BODY, None, NOW, id="wrong secret"),
        pytest.param(SECRET, str(TS + 1), BODY, None, NOW, id="timestamp changed after signing"),
        pytest.param(SECRET, str(TS), BODY, None, NOW + dt.timedelta(seconds=301), id="old timestamp (replay)"),
        pytest.param(SECRET, str(TS), BODY, None, NOW - dt.timedelta(seconds=301), id="timestamp from the future"),
        pytest.param(SECRET, str(TS), BODY, None, NOW + dt.timedelta(days=1), id="day-old replay"),
        pytest.param(SECRET, "not-a-number", BODY, None, NOW, id="garbage timestamp"),
        pytest.param(SECRET, f"+{TS}", BODY, None, NOW, id="signed timestamp"),
        pytest.param(SECRET, "", BODY, None, NOW, id="empty timestamp"),
        pytest.param(SECRET, str(TS), BODY, "", NOW, id="empty signature"),
        pytest.param(SECRET, str(TS), BODY, "v1=" + "0" * 64, NOW, id="zero signature"),
        pytest.param(SECRET, str(TS), BODY, "v1=é", NOW, id="non-ascii signature"),
    ],
)
def test_rejected(secret: str, timestamp: str, body: bytes, signature: str | None, now: dt.datetime) -> None:
    # unless given, the signature is the genuine one for the original request
    assert not verify(secret, timestamp, body, signature if signature is not None else sign(SECRET, TS, BODY), now)


def test_tolerance_is_configurable() -> None:
    later = NOW + dt.timedelta(seconds=30)
    signature = sign(SECRET, TS, BODY)
    assert verify(SECRET, str(TS), BODY, signature, later, tolerance_s=30)
    assert not verify(SECRET, str(TS), BODY, signature, later, tolerance_s=29)


def test_naive_now_is_utc() -> None:
    assert verify(SECRET, str(TS), BODY, sign(SECRET, TS, BODY), NOW.replace(tzinfo=None))


def test_new_secrets_are_prefixed_long_and_distinct() -> None:
    secrets = {new_secret() for _ in range(50)}
    assert len(secrets) == 50
    assert all(s.startswith("whsec_") and len(s) >= 6 + 43 for s in secrets)
