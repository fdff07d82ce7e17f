"""What-if: a plan made at the prices in force and not stored, for the page's sliders (which re-plan as they
move; storing each would fill the lab's list with plans nobody asked to keep)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.core.dependencies import Runtime
from service.core.errors import InvalidField
from service.plans.service import prices_now
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from solvers.replan.sensitivity import with_cloud_prices_scaled

MIN_CLOUD_SCALE, MAX_CLOUD_SCALE = 0.05, 20.0


class WhatIf(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: Profile
    cloud_price_scale: float = Field(1.0, ge=MIN_CLOUD_SCALE, le=MAX_CLOUD_SCALE, allow_inf_nan=False,
                                     description="every cloud price (catalog and the profile's own) times this")


def what_if(runtime: Runtime, key: str, asked: WhatIf, now: dt.datetime) -> PlanResult:
    catalog, _ = prices_now(runtime.catalog)
    try:
        profile, catalog = with_cloud_prices_scaled(asked.profile, catalog, asked.cloud_price_scale)
    except ValidationError as error:  # a profile price times the scale leaves the bounds an hourly rate may have
        raise InvalidField("cloud_price_scale", "bounds", "the scaled cloud prices of the profile are out of "
                           f"bounds: {error.errors()[0]['msg']}") from None
    # in the plan pool, within its bounds; the scaled catalog is a one-off, so it goes with the call
    return runtime.plan_pool.plan(key, make_plan, profile, catalog, now.date(), shared=asked.cloud_price_scale == 1)
