"""The guide's closed-form break-even: one owned option against one cloud offer.

days = upfront / (cloud cost per day - owned running cost per day), at the profile's average
demand. DOMAIN §5: a $2,200 RTX 3090 desktop (450 W) against a $2.14/h V100 at 15% utilisation and
$0.12/kWh: 2200 / (7.704 - 0.1944) = 292.96 days.
"""

from __future__ import annotations

import math

from solvers.options import CloudOption, HostOption, OwnedOption
from solvers.result import SimpleBreakEven


def simple_break_even(owned: OwnedOption, host: HostOption | None, cloud: CloudOption,
                      ref_hours_per_day: float, availability: float, usd_per_kwh: float) -> SimpleBreakEven:
    per_unit_per_day = 24.0 * availability * owned.gpus_per_unit * owned.throughput
    units = max(1, math.ceil(ref_hours_per_day / per_unit_per_day - 1e-9))
    hosts_needed = 0 if host is None else math.ceil(units * owned.gpus_per_unit / host.host.slots)
    upfront = units * owned.unit_price_usd + (hosts_needed * host.host.base_cost_usd if host else 0.0)
    owned_per_day = usd_per_kwh * (
        ref_hours_per_day / owned.throughput * owned.marginal_kwh_per_gpu_hour
        + 24.0 * units * owned.idle_kwh_per_unit_hour
        + (24.0 * hosts_needed * host.idle_kwh_per_hour if host else 0.0)
    )
    cloud_per_day = ref_hours_per_day * cloud.usd_per_ref_hour
    saving = cloud_per_day - owned_per_day
    return SimpleBreakEven(
        owned=f"{units} x {owned.name}" + (f" in {hosts_needed} x {host.host.name}" if host else ""),
        cloud=f"{cloud.provider}/{cloud.name} ({cloud.region}, {cloud.pricing}) at {cloud.usd_per_hour} USD/h",
        units=units,
        owned_name=owned.name,
        hosts=hosts_needed,
        host_name=host.host.name if host else None,
        upfront_usd=round(upfront, 2),
        owned_usd_per_day=round(owned_per_day, 4),
        cloud_usd_per_day=round(cloud_per_day, 4),
        days=round(upfront / saving, 2) if saving > 0 else None,
        formula="days = upfront_usd / (cloud_usd_per_day - owned_usd_per_day)",
    )
