"""How a utilisation sample becomes "busy": the rule shared by nvidia-smi and DCGM logs.

Both report `utilization.gpu` / `DCGM_FI_DEV_GPU_UTIL`: the percentage of the driver's last
sample window (1/6 s to 1 s) in which a kernel was running. The planner's demand is concurrency,
GPUs needed at once, so the default rule asks whether a GPU was in use, not how hard: a sample
at or above BUSY_THRESHOLD_PERCENT counts as one busy GPU, below it as idle. A training job that
keeps its GPU 40% busy (data loading, communication) still holds a whole GPU, and a rented GPU is
paid whole, so counting it as 0.4 GPU would understate the GPUs to buy or rent.

The threshold is a documented default: idle GPUs report 0%, and a GPU that only drives a desktop
shows single-digit percentages, so 5% separates work from noise. `threshold=None` selects the
fractional rule instead (a sample counts as utilisation/100 of a GPU), which measures kernel time,
useful to compare with energy use but not with GPUs needed.
"""

from __future__ import annotations

import numpy as np

from solvers.usage.binning import FloatArray

BUSY_THRESHOLD_PERCENT = 5.0


def busy_fraction(percent: FloatArray, threshold: float | None) -> FloatArray:
    if threshold is None:
        return percent / 100.0
    return (percent >= threshold).astype(np.float64)


def describe(threshold: float | None) -> str:
    if threshold is None:
        return "a GPU sample counts by its utilisation fraction (utilisation/100)"
    return f"a GPU sample counts as busy when utilisation >= {threshold:g}%"
