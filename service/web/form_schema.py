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

from solvers.profile import CloudPriceItem, CommitmentPriceItem, OwnedPriceItem, Profile


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


_FIELD = re.compile(r'data-field="([^"]+)"')
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
