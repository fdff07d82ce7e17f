"""The OpenAPI document says how errors really look: RFC 9457 problem documents, and every status they use.

FastAPI documents a 422 with its own `HTTPValidationError` body as `application/json`; the service answers
`application/problem+json` (service/core/errors.py) and also 400 (a body that is not JSON), 401/403 (API keys),
404 (an id that does not exist), 409 (conflicts) and 429 (rate limit). A client generated from the document,
or a fuzzer checking answers against it (schemathesis in .ci/run), must see those. Responses a route documents
itself are left alone.

It also says what a generated client (openapi-python-client, tests/service/test_generated_client.py) needs to be
true: the API key is optional when the service runs with auth off (an empty security requirement beside the
bearer one, as OpenAPI marks optional security; no 401/403 then), and no schema is left that nothing uses
(FastAPI's own `HTTPValidationError` and `ValidationError`, replaced by `Problem` above).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from service.core.errors import PROBLEM_JSON

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "RFC 9457 problem details; a 422 lists each field with the rule it broke.",
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "errors": {"type": "array", "items": {
            "type": "object",
            "properties": {"field": {"type": "string"}, "rule": {"type": "string"}, "message": {"type": "string"}},
            "required": ["field", "rule", "message"]}, "description": "the first 20 errors"},
        "error_count": {"type": "integer", "description": "how many errors there were (errors lists the first 20)"},
    },
    "required": ["type", "title", "status", "detail", "errors"],
}
_REF = {"$ref": "#/components/schemas/Problem"}
_DESCRIPTIONS = {
    "400": "Malformed request (e.g. a body that is not JSON)",
    "401": "No valid API key (when GPUPLAN_AUTH=on): `Authorization: Bearer <key>`",
    "403": "The API key is read-only",
    "404": "Not found",
    "409": "Conflict with the stored state (a watched profile, a concurrent change, a running idempotent request)",
    "422": "Invalid request: `errors` names each field and the rule it broke",
    "429": "Too many requests: try again after `Retry-After` seconds",
}
_METHODS = ("get", "put", "post", "delete", "patch")
# a CSV answer with its body's schema (text), so a generated client returns it instead of dropping it
CSV_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "a CSV table"}}


def problem_response(description: str) -> dict[str, Any]:
    """A problem answer an operation documents itself (a status `document_problems` does not add for it)."""
    return {"description": description, "content": {PROBLEM_JSON: {"schema": _REF}}}


def _problem_response(status: str) -> dict[str, Any]:
    return {"description": _DESCRIPTIONS[status], "content": {PROBLEM_JSON: {"schema": _REF}}}


def document_problems(schema: dict[str, Any], auth: bool = True) -> dict[str, Any]:
    """Add the problem responses to every operation of an OpenAPI document (in place; also returned); with `auth`
    off, the API key is optional and never refused. Schemas nothing refers to any more are dropped."""
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            if operation.get("security") and not auth:
                operation["security"] = [{}, *operation["security"]]
            responses = operation.setdefault("responses", {})
            statuses = ["422"] if "422" in responses or operation.get("parameters") else []
            if "requestBody" in operation:
                statuses += ["400", "422"]
            if any(p.get("in") == "path" for p in operation.get("parameters", [])):
                statuses.append("404")
            if operation.get("security") and auth:  # lab-owned objects: a key, and a writing one to change
                statuses += ["401"] if method == "get" else ["401", "403"]
            if method in ("post", "put", "delete") and path.startswith("/v1/"):
                statuses.append("409")
            if path.startswith("/v1/"):
                statuses.append("429")
            for status in dict.fromkeys(statuses):
                current = responses.get(status)
                if current is None or _is_fastapi_validation(current):
                    responses[status] = _problem_response(status)
    _drop_unused_schemas(schema)
    return schema


def _drop_unused_schemas(schema: dict[str, Any]) -> None:
    """Remove the component schemas that no path refers to, directly or through other schemas."""
    schemas: dict[str, Any] = schema["components"]["schemas"]
    used: set[str] = set()
    todo = _refs(schema.get("paths", {}))
    while todo:
        name = todo.pop()
        if name not in used:
            used.add(name)
            todo |= _refs(schemas.get(name, {}))
    for name in set(schemas) - used:
        del schemas[name]


def _refs(node: Any) -> set[str]:
    return set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(node)))


def _is_fastapi_validation(response: dict[str, Any]) -> bool:
    ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
    return bool(ref.endswith("/HTTPValidationError"))


def install(app: FastAPI, auth: bool = True) -> None:
    """Generate the document once, with the problem responses, when it is first asked for; `auth` is whether
    the service requires an API key (GPUPLAN_AUTH)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_problems(get_openapi(
                title=app.title, version=app.version, openapi_version=app.openapi_version, summary=app.summary,
                description=app.description, routes=app.routes, tags=app.openapi_tags, servers=app.servers), auth)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
