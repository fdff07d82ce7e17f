"""Plan warnings for GPUs whose throughput the plan takes from the model without a measurement.

Why: the throughput model (solvers/base/performance.py) reaches GPUs nobody has measured for a workload
class (AMD Instinct, Blackwell, most inference) by extrapolating from specs and a related family's
efficiency. A plan that picks such a GPU may be off by more than the fit's error, so the user should
know which chosen GPU types rest on extrapolation and how much of the plan's money is at stake.

A chosen GPU's throughput is a ratio to the profile's reference GPU, so it rests on extrapolation when
either end of the ratio has no measurement of the class, unless the profile overrides it
(`throughput_overrides`) or it is the reference itself (1.0 by definition).

The money resting on a GPU type: its purchase net of resale credit (count x (unit price - resale)) plus
its rental cost. Electricity and hosts are left out: they are shared with other cards or small beside
the purchase, and the warning's job is the order of magnitude.
"""

from __future__ import annotations

from collections import defaultdict

from pricing.gpus import GpuTable
from solvers.base.notices import Notice, notice
from solvers.base.performance import is_extrapolated
from solvers.base.plan_lines import BuyLine, CloudLine


def _canonical(gpus: GpuTable, spelling: str) -> str:
    return gpus.canonical(spelling) or spelling


def extrapolated_gpus(workload: str, reference: str, overrides: set[str], chosen: set[str]) -> list[str]:
    """The chosen GPU types (canonical names) whose throughput ratio rests on an unmeasured GPU."""
    reference_extrapolated = is_extrapolated(reference, workload)
    return sorted(g for g in chosen if g != reference and g not in overrides
                  and (reference_extrapolated or is_extrapolated(g, workload)))


def extrapolation_warnings(workload: str, reference_gpu: str, overrides: list[str], gpus: GpuTable,
                           buy: list[BuyLine], cloud: list[CloudLine], total_cost_usd: float) -> list[Notice]:
    """One warning per chosen GPU type (bought or rented) whose throughput is extrapolated."""
    at_stake: dict[str, float] = defaultdict(float)
    for line in buy:
        at_stake[_canonical(gpus, line.gpu)] += line.count * (line.unit_price_usd - line.resale_usd_per_unit)
    for c in cloud:
        at_stake[_canonical(gpus, c.gpu)] += c.cost_usd
    reference = _canonical(gpus, reference_gpu)
    flagged = extrapolated_gpus(workload, reference, {_canonical(gpus, o) for o in overrides}, set(at_stake))
    notes = []
    for gpu in flagged:
        usd = at_stake[gpu]
        share = usd / total_cost_usd if total_cost_usd > 0 else 0.0
        gpu_unmeasured, reference_unmeasured = is_extrapolated(gpu, workload), is_extrapolated(reference, workload)
        code = ("extrapolated_both" if gpu_unmeasured and reference_unmeasured
                else "extrapolated_gpu" if gpu_unmeasured else "extrapolated_reference")
        notes.append(notice(code, gpu=gpu, reference=reference, workload=workload, usd=usd, share=share))
    return notes
