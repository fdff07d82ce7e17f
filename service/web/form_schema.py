"""What the planning form needs to know of the profile's schema: each field's default (a stored profile spells out
every default; the form leaves a default out of its inputs and of the JSON box, since sending it or not means the
same) and the fields of each kind of price quote (the quote tables show the ones the API has).

Read from the pydantic models, so a field added to the schema is known to the page without a second list.
"""

from __future__ import annotations

import re
import types
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter

from solvers.base.price_inputs import CloudPriceItem, CommitmentPriceItem, OwnedPriceItem
from solvers.base.profile import Profile


def _models_in(annotation: Any) -> list[tuple[type[BaseModel], bool]]:
    """The models a field's type holds, and whether each sits in a list: `FinancingInput | None`, `list[Item]`,
    `Annotated[A | B, ...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    origin = typing.get_origin(annotation)
    if origin is list:
        return [(model, True) for model, _ in _models_in(typing.get_args(annotation)[0])]
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [found for arg in typing.get_args(annotation) for found in _models_in(arg)]
    return []


def _walk(model: type[BaseModel], prefix: str, found: dict[str, Any]) -> None:
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        if not field.is_required():
            default = field.get_default(call_default_factory=True)
            if not isinstance(default, BaseModel):
                found.setdefault(path, TypeAdapter(Any).dump_python(default, mode="json"))
        for inner, listed in _models_in(field.annotation):
            _walk(inner, f"{path}[]." if listed else f"{path}.", found)


@cache
def profile_defaults() -> dict[str, Any]:
    """Dotted path -> default, for every field of the profile that has one (`prices.owned[].currency`: a field of
    each item of a list). Where two forms of a union share a name, the first form's default is kept."""
    found: dict[str, Any] = {}
    _walk(Profile, "", found)
    return found


@cache
def quote_fields() -> dict[str, list[str]]:
    """The fields of each kind of price quote the API accepts (`prices.owned`, `prices.cloud`, `prices.commitments`)."""
    return {kind: list(model.model_fields) for kind, model in
            (("owned", OwnedPriceItem), ("cloud", CloudPriceItem), ("commitments", CommitmentPriceItem))}


_FIELD = re.compile(r'data-field="([^"]+)"([^>]*)>')
_OPTION = re.compile(r'<option value="([^"]+)">([^<]+)</option>')
# a select the page fills from its script, not from the template: path -> the catalogue keys' prefix (plan-demand.js)
_SCRIPT_OPTIONS = {"demand.reading": "ui_form.reading."}
_SLOT = re.compile(r"\[\[([\w.-]+)\]\]")
_LABEL_REACH = 400  # characters after data-field within which a field's own label or legend starts


@cache
def field_label_keys() -> dict[str, str]:
    """Profile path -> the catalogue key of the planning form's label for it (`demand.utilisation` ->
    `form.utilisation`), read from the form's templates: the first text slot after each `data-field` is its label
    or legend. Why from the templates: the compare page names a differing input as the form does, and a field added
    to the form is named there without a second list."""
    from service import web  # the package's renderer; imported here because the package imports this module's users

    html = web.render("plan.html")
    keys: dict[str, str] = {}
    for found in _FIELD.finditer(html):
        slot = _SLOT.search(html, found.end(), found.end() + _LABEL_REACH)
        if slot is not None and found.group(1) != "*":
            keys.setdefault(found.group(1), slot.group(1))
    if "workload.model" in keys:  # the model's box is labelled by its one required field, the size
        keys.setdefault("workload.model.params_b", keys["workload.model"])
    return keys


@cache
def field_value_texts() -> dict[str, dict[str, str]]:
    """Profile path -> {API value: the form's words for it, as template text} for the form's choices
    (`jobs.patience` "week" -> "[[ui_form.patience.week]]", `workload.method` "lora" -> "LoRA"), read from the
    options of each field's select. Why: the compare page writes a differing choice as the form offers it, not as
    the API's code; `fill_slots` puts a locale's words in."""
    from service import web
    from service.web.i18n import DEFAULT_LOCALE, catalogue

    html = web.render("plan.html")
    found: dict[str, dict[str, str]] = {}
    fields = list(_FIELD.finditer(html))
    for here, after in zip(fields, [*fields[1:], None], strict=True):
        region = html[here.end(): after.start() if after else len(html)]
        options = {value: shown.strip() for value, shown in _OPTION.findall(region) if shown.strip() != value}
        if options and here.group(1) != "*":
            found.setdefault(here.group(1), {}).update(options)
    for path, prefix in _SCRIPT_OPTIONS.items():
        found[path] = {key.removeprefix(prefix): f"[[{key}]]" for key in catalogue(DEFAULT_LOCALE)
                       if key.startswith(prefix)}
    return found


def fill_slots(template_text: str, strings: dict[str, str]) -> str:
    """Template text with its `[[key]]` slots in a locale's words."""
    return _SLOT.sub(lambda slot: strings.get(slot.group(1), slot.group(0)), template_text)


@cache
def percent_fields() -> list[str]:
    """Profile paths the form takes in percent and the API as a fraction (`data-unit="percent"` on the field):
    the compare page writes 0.06 as 6%, as the form shows it."""
    from service import web

    return sorted({found.group(1) for found in _FIELD.finditer(web.render("plan.html"))
                   if 'data-unit="percent"' in found.group(2)})
