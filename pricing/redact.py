"""Error text with its secrets taken out, before it is stored as a source's `last_error`.

Why: a provider's error often quotes the URL that was called, and feed URLs and some APIs carry their token in
the query string or in user:password@ (e.g. `https://lab.example/quotes.csv?token=...`); exception texts may
quote an `Authorization: Bearer ...` header or a `password=...` setting. Stored errors are shown by
`GET /v1/sources`, the CLI and logs, so the secret would travel with them. What stays is what an operator acts
on: the scheme, host and path of the URL, the kind of failure, the status code.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# scheme://[userinfo@]host[:port][/path][?query][#fragment]
_URL = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?:[^\s/@?#]*@)?(?P<rest>[^\s?#\"'<>]*)"
                  r"(?P<query>\?[^\s#\"'<>]*)?(?P<fragment>#[^\s\"'<>]*)?")
# a query string after a path without a scheme, e.g. urllib3's "Max retries exceeded with url: /v1/list?t=..."
_QUERY = re.compile(r"(?<=[\w/.-])\?[\w.~%-]+=[^\s\"'<>)]*")
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}")
_SECRET_NAME = (r"(?:[a-z0-9_-]*(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|access[_-]?key|auth|"
                r"signature|sig|credential|session)[a-z0-9_-]*)")
_ASSIGNMENT = re.compile(rf"(?i)\b({_SECRET_NAME})(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&\"']+)")


def _url(match: re.Match[str]) -> str:
    query = REDACTED if match.group("query") else ""
    return f"{match.group('scheme')}{match.group('rest')}" + (f"?{query}" if query else "")


def redact(text: str) -> str:
    """`text` without credentials: URL user info, query strings and fragments, bearer tokens and values of
    settings whose name says secret (token, password, api_key, ...)."""
    text = _URL.sub(_url, text)
    text = _QUERY.sub(f"?{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
