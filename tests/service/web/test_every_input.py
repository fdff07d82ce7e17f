"""Every field of the API's profile has a place on the planning form (issue 17): the two profiles the browser test
round-trips through the form (tests/e2e/every_input.py) set every field of the schema to a value other than its
default, but the few another browser test covers. A field added to the API fails here until the form (and those
profiles) have it."""

from __future__ import annotations

from typing import Any

from service.web.form_schema import profile_defaults
from solvers.base.profile import Profile
from tests.e2e.every_input import EVERY_INPUT, EVERY_WORKLOAD_INPUT

# fields another browser test sends through their own controls (mutually exclusive with the profiles above)
ELSEWHERE = {
    # tests/e2e/test_demand_form.py: month/week/day series, the usage log and an always-on service
    "demand.series[].month", "demand.series[].start", "demand.series[].reference_gpu_hours",
    "demand.series[].gpus_at_once", "demand.resolution", "demand.busy_gpus", "jobs.runs", "jobs.spare_replicas",
    # tests/e2e/test_workload_form.py: fine-tuning with LoRA and serving
    "workload.method", "workload.lora_rank", "workload.requests_per_second", "workload.context_length",
    "workload.output_tokens", "workload.batch_size",
}


def _leaves(schema: dict[str, Any], defs: dict[str, Any], prefix: str = "") -> set[str]:
    """Dotted paths of the schema's leaves; items of a list of objects as "a[].b"; every form of a union."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].split("/")[-1]]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return set().union(*(_leaves(s, defs, prefix) for s in schema[key]))
    if schema.get("type") == "object" and "properties" in schema:
        properties = schema["properties"].items()
        return set().union(*(_leaves(s, defs, f"{prefix}.{k}" if prefix else k) for k, s in properties))
    items = schema.get("items")
    item = defs.get(items.get("$ref", "").split("/")[-1], items) if items else {}
    if schema.get("type") == "array" and "properties" in item:
        return _leaves(items, defs, f"{prefix}[]")
    return {prefix}


def _set(value: Any, prefix: str = "") -> dict[str, Any]:
    """The profile's leaves by path (list items merged, as the schema's "a[].b")."""
    if isinstance(value, dict):
        found: dict[str, Any] = {}
        for key, inner in value.items():
            found |= _set(inner, f"{prefix}.{key}" if prefix else key)
        return found
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return {path: v for item in value for path, v in _set(item, f"{prefix}[]").items()}
    return {prefix: value}


def test_the_round_tripped_profiles_set_every_field_but_those_tested_elsewhere() -> None:
    schema = Profile.model_json_schema()
    leaves = _leaves(schema, schema.get("$defs", {}))
    defaults = profile_defaults()
    given: dict[str, Any] = {}
    for profile in (EVERY_INPUT, EVERY_WORKLOAD_INPUT):
        Profile.model_validate(profile)  # both are valid requests
        for path, value in _set(profile).items():
            if path not in defaults or value != defaults[path]:
                given[path] = value
    # a free-form map (throughput_overrides) is a leaf of the schema; an object that is set is set
    missing = {leaf for leaf in leaves if leaf not in given and not any(p.startswith(f"{leaf}.") for p in given)}
    assert missing - ELSEWHERE == set(), sorted(missing - ELSEWHERE)
    assert len(leaves) > 100
