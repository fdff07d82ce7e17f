"""The user guide's field reference (docs/reference/), made from the pydantic models so it cannot drift.

The profile a plan is made for (`solvers.base.profile.Profile`), the plan it answers (`solvers.base.result.PlanResult`)
and
the workload estimate (`solvers.base.workload`) are public contracts whose fields already carry a
`Field(description=...)` for `/docs`; this module renders the same JSON Schema the API publishes as Markdown
tables, one section per model, so the guide says what the schema says and nothing else. The MkDocs hook
(docs/hooks/reference.py) writes these pages when the site is built; `python -m service.core.schema_doc DIR`
writes them into a folder to read without MkDocs. tests/test_docs.py fails when a public field has no description.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.base.workload import Estimate, Workload

Mode = Literal["validation", "serialization"]
Schema = dict[str, Any]
REF_PREFIX = "#/$defs/"
# JSON Schema keywords that bound a value, as a reader says them
RULES = {"minimum": "`>= {}`", "exclusiveMinimum": "`> {}`", "maximum": "`<= {}`", "exclusiveMaximum": "`< {}`",
         "minLength": "at least {} characters", "maxLength": "at most {} characters",
         "minItems": "at least {} items", "maxItems": "at most {} items", "pattern": "matches `{}`"}


@dataclass(frozen=True)
class ReferencePage:
    """One generated page: its path under docs/, its title and introduction, and the models it documents."""

    path: str
    title: str
    intro: str
    roots: tuple[tuple[type[BaseModel], Mode], ...]


PAGES: tuple[ReferencePage, ...] = (
    ReferencePage(
        "reference/profile.md", "Profile fields (the plan request)",
        "Every field of the profile `POST /v1/plans` takes (also the `profile` of a saved profile), from the "
        "models in `solvers/base/profile.py` and `solvers/base/workload.py`. What the parts mean together: "
        "[Profiles and the demand model](../profiles.md).",
        ((Profile, "validation"),)),
    ReferencePage(
        "reference/plan.md", "Plan fields (the plan response)",
        "Every field of a plan as `POST /v1/plans` and `GET /v1/plans/{id}` answer it, from the models in "
        "`solvers/base/result.py`. Money is in the plan's `currency` (the `*_usd` field names are kept and mean "
        "\"in `currency`\"); dates are ISO 8601.",
        ((PlanResult, "serialization"),)),
    ReferencePage(
        "reference/estimate.md", "Workload estimate fields",
        "The workload compiler alone: what `POST /v1/estimate` and `gpuplan estimate` take (`Workload`) and "
        "answer (`Estimate`), from `solvers/base/workload.py`. In a plan the same job is the workload form "
        "([PlanWorkload](profile.md#planworkload)); see [Workloads](../workloads.md).",
        ((Workload, "validation"), (Estimate, "serialization"))),
)


def schema(page: ReferencePage) -> tuple[list[str], dict[str, Schema]]:
    """The page's root model names and every model definition they reach, as the API's JSON Schema has them."""
    keys, document = models_json_schema(list(page.roots), ref_template=REF_PREFIX + "{model}")
    roots = [_ref_name(keys[root]) for root in page.roots]
    return roots, document.get("$defs", {})


def _ref_name(node: Schema) -> str:
    return str(node["$ref"]).removeprefix(REF_PREFIX)


def _refs(node: Any) -> Iterator[str]:
    """Model names a schema node refers to, in document order."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield str(value).removeprefix(REF_PREFIX)
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _order(roots: list[str], defs: dict[str, Schema]) -> list[str]:
    """Models in reading order: each root, then what it refers to, breadth first in field order."""
    seen: list[str] = []
    queue = list(roots)
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.append(name)
        for prop in defs[name].get("properties", {}).values():
            queue += [r for r in _refs(prop) if r not in seen]
    return seen


def _paths(roots: list[str], defs: dict[str, Schema]) -> dict[str, list[str]]:
    """Where each model appears in a document (`options`, `prices.owned[]`): the first few paths from a root."""
    found: dict[str, list[str]] = {}
    stack: list[tuple[str, str, tuple[str, ...]]] = [(root, "", (root,)) for root in reversed(roots)]
    while stack:
        name, path, trail = stack.pop()
        for key, prop in defs[name].get("properties", {}).items():
            here = f"{path}.{key}" if path else key
            for child, suffix in _children(prop):
                if child in trail:
                    continue
                found.setdefault(child, [])
                if here + suffix not in found[child] and len(found[child]) < 4:
                    found[child].append(here + suffix)
                stack.append((child, here + suffix, (*trail, child)))
    return found


def _children(node: Schema, suffix: str = "") -> Iterator[tuple[str, str]]:
    """Models directly under a property, with `[]` for list items and `{}` for map values."""
    if "$ref" in node:
        yield _ref_name(node), suffix
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key, []):
            yield from _children(branch, suffix)
    if isinstance(node.get("items"), dict):
        yield from _children(node["items"], suffix + "[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from _children(node["additionalProperties"], suffix + "{}")


def anchor(name: str) -> str:
    return name.lower()


def _code(value: Any) -> str:
    return f"`{json.dumps(value)}`"


def type_text(node: Schema) -> str:
    """A property's type as a reader writes it: `"a"`, `"b"`, number or null, list of [Model](#model)."""
    if "$ref" in node:
        name = _ref_name(node)
        return f"[{name}](#{anchor(name)})"
    if "const" in node:
        return _code(node["const"])
    if "enum" in node:
        return ", ".join(_code(v) for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(dict.fromkeys(type_text(branch) for branch in node[key]))
    kind = node.get("type")
    if kind == "array":
        return f"list of {type_text(node.get('items', {}))}"
    if kind == "object":
        values = node.get("additionalProperties")
        return f"map of {type_text(values)}" if isinstance(values, dict) else "object"
    if kind == "string" and "format" in node:
        return str(node["format"])
    return str(kind) if kind else "any"


def rules_text(node: Schema) -> str:
    """The bounds on a value (its own, its non-null branches', its items') as `>= 0`, `at most 120 items`."""
    rules = [RULES[key].format(node[key]) for key in RULES if key in node]
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key, []):
            if branch.get("type") != "null" and "$ref" not in branch:
                rules += [r for r in _branch_rules(branch) if r not in rules]
    return "; ".join(rules)


def _branch_rules(node: Schema) -> list[str]:
    own = [RULES[key].format(node[key]) for key in RULES if key in node]
    items = node.get("items")
    if isinstance(items, dict):
        own += [f"each {r}" for r in _branch_rules(items)]
    return own


def _default_text(name: str, node: Schema, required: set[str], answered: bool) -> str:
    """What a request may leave out, and what it then gets; in an answer (`answered`) every field is there."""
    if name in required:
        return "" if answered else "required"
    if "default" in node:
        return _code(node["default"])
    if "$ref" in node:
        return "its defaults"
    return "empty" if node.get("type") in ("array", "object") else ""


_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell: pipes escaped, angle brackets shown (outside code spans), one line."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    return "".join(p if p.startswith("`") else p.replace("<", "&lt;").replace(">", "&gt;")
                   for p in parts).replace("|", "\\|")


def undocumented(page: ReferencePage) -> list[str]:
    """`Model.field` of every public field on the page without a description."""
    roots, defs = schema(page)
    return [f"{name}.{key}" for name in _order(roots, defs)
            for key, prop in defs[name].get("properties", {}).items() if not prop.get("description")]


def render(page: ReferencePage) -> str:
    """The page as Markdown: its introduction, then per model a table of field, type, default, rules and meaning."""
    roots, defs = schema(page)
    paths = _paths(roots, defs)
    answers = {name for root, (_, mode) in zip(roots, page.roots, strict=True) if mode == "serialization"
               for name in _order([root], defs)}
    lines = [f"# {page.title}", "", page.intro, "",
             "Generated from the models when the site is built (`service/core/schema_doc.py`); "
             "the same descriptions are in the OpenAPI document at `/docs`.", ""]
    for name in _order(roots, defs):
        model = defs[name]
        lines += [f"## {name} {{#{anchor(name)}}}", ""]
        if model.get("description"):
            lines += [" ".join(str(model["description"]).split()), ""]
        if name in paths:
            lines += ["At " + ", ".join(f"`{p}`" for p in paths[name]) + ".", ""]
        required = set(model.get("required", []))
        lines += ["| field | type | default | rules | meaning |", "|---|---|---|---|---|"]
        for key, prop in model.get("properties", {}).items():
            cells = [f"`{key}`", type_text(prop), _default_text(key, prop, required, name in answers),
                     rules_text(prop), str(prop.get("description", ""))]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """`python -m service.core.schema_doc DIR`: write the reference pages under DIR (as docs/ would hold them)."""
    if len(argv) != 1:
        print("usage: python -m service.core.schema_doc DIR", file=sys.stderr)
        return 2
    for page in PAGES:
        target = Path(argv[0]) / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(page))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
