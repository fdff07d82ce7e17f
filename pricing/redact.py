"""Error text with its secrets taken out, before it is stored as a source's `last_error`.

Why: a provider's error often quotes the URL that was called, and feed URLs and some APIs carry their token in
the query string or in user:password@ (e.g. `https://lab.example/quotes.csv?token=...`); exception texts may
quote an `Authorization: Bearer ...` header or a `password=...` setting. Stored errors are shown by
`GET /v1/sources`, the CLI and logs, so the secret would travel with them. What stays is what an operator acts
on: the scheme, host and path of the URL, the kind of failure, the status code.

Some feeds carry their token in the path instead (`https://lab.example/feeds/3f9a...c2/quotes.csv`, a published
sheet's id, a signed link): a path segment that looks like a credential is redacted too (issue 31). It looks like
one when it follows a segment named like a secret (`/token/...`), or when it is long (16 characters or more), is
not a file name with an extension, and mixes letters and digits or is 24 characters of letters, digits, `-` or
`_` (a random id). Words joined by `-` or `_` with a year in them are taken too: an operator loses a little
detail, never a token.
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
# a path segment that names what follows it as a secret: /token/<it>, /api-key/<it>
_SECRET_SEGMENT = re.compile(r"(?i)(?:access[_-]?)?(?:tokens?|secrets?|keys?|api[_-]?keys?|auth|sig|signature|"
                             r"credentials?|sessions?|passwords?)")
_FILE_NAME = re.compile(r".*\.[A-Za-z][A-Za-z0-9]{0,4}")
_RANDOM_ID = re.compile(r"[A-Za-z0-9_-]{24,}")
# a path after a space or colon, without a scheme: urllib3's "Max retries exceeded with url: /feeds/<token>/q.csv"
_BARE_PATH = re.compile(r"(?<=[\s:(\"'])/[^\s?#\"'<>),;:]*")


def _looks_secret(segment: str) -> bool:
    if len(segment) < 16 or _FILE_NAME.fullmatch(segment):
        return False
    mixed = any(c.isdigit() for c in segment) and any(c.isalpha() for c in segment)
    return mixed or bool(_RANDOM_ID.fullmatch(segment))


def _path(path: str) -> str:
    """`path` with the segments that look like credentials redacted (see the module's docstring)."""
    segments = path.split("/")
    kept = [REDACTED if segment and (_looks_secret(segment) or (i > 0 and _SECRET_SEGMENT.fullmatch(segments[i - 1])))
            else segment for i, segment in enumerate(segments)]
    return "/".join(kept)


def _url(match: re.Match[str]) -> str:
    query = REDACTED if match.group("query") else ""
    host, slash, path = match.group("rest").partition("/")
    return f"{match.group('scheme')}{host}{slash}{_path(path)}" + (f"?{query}" if query else "")


def redact(text: str) -> str:
    """`text` without credentials: URL user info, query strings and fragments, bearer tokens and values of
    settings whose name says secret (token, password, api_key, ...)."""
    text = _URL.sub(_url, text)
    text = _BARE_PATH.sub(lambda m: _path(m.group(0)), text)
    text = _QUERY.sub(f"?{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
