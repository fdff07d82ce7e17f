"""What every request model shares: strict parsing (an unknown field is an error, since a misspelt field must not
be planned without) and the field types used across the profile's parts (currency codes, workload classes,
patience)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


# ISO 4217 code of a money input; any currency the ECB rates in force quote (checked when the plan is made)
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$", description="ISO 4217 code, e.g. USD, EUR, GBP; "
                                    "any currency of the ECB reference rates; default USD")]


PlanCurrency = Literal["USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"]


Workload = Literal["cnn_training", "transformer_training", "rnn_training", "inference_16bit", "inference_8bit"]


WORKLOADS: tuple[str, ...] = Workload.__args__  # type: ignore[attr-defined]


Patience = Literal["none", "day", "week", "month"]
