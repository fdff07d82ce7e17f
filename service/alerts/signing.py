"""Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with a per-subscription secret.

The timestamp is part of the signed bytes, so a receiver that also rejects old timestamps cannot be fooled
by a captured request replayed later. `verify` is written to be copied into a receiver as it is.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets

SIGNATURE_HEADER = "X-Gpuplan-Signature"
TIMESTAMP_HEADER = "X-Gpuplan-Timestamp"
EVENT_ID_HEADER = "X-Gpuplan-Event-Id"

SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
_TIMESTAMP = re.compile(r"[0-9]{1,15}")  # int() alone would also take "+1", " 1", "1_000" and other digits


def new_secret() -> str:
    """The prefix makes a leaked secret easy to recognise (and to find with a secret scanner)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"{SIGNATURE_VERSION}={mac.hexdigest()}"


def verify(secret: str, timestamp_header: str, body: bytes, signature_header: str, now: dt.datetime,
           tolerance_s: int = 300) -> bool:
    """True only for an untampered body signed with `secret` at most `tolerance_s` seconds from `now`.

    `body` must be the raw request bytes (re-serialised JSON would not match). A naive `now` is taken as
    UTC. The comparison is constant-time so the signature cannot be guessed byte by byte.
    """
    if not _TIMESTAMP.fullmatch(timestamp_header.strip()):
        return False
    timestamp = int(timestamp_header)
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    if abs(now.timestamp() - timestamp) > tolerance_s:
        return False
    expected = sign(secret, timestamp, body).encode()
    return hmac.compare_digest(expected, signature_header.strip().encode("utf-8", "replace"))
