"""How a utilisation sample becomes "busy": the rule shared by nvidia-smi and DCGM logs.

Both report the same NVML reading (`utilization.gpu`, `DCGM_FI_DEV_GPU_UTIL`): "percent of time
over the past sample period during which one or more kernels was executing on the GPU", the
period being 1/6 s to 1 s depending on the product (nvidia-smi --help-query-gpu; NVML reference,
https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html). It is a share of time with
any kernel running, not of the GPU's compute units in use.

The planner's demand is concurrency, GPUs needed at once, so the default rule asks whether a GPU
was in use, not how hard: a sample at or above BUSY_THRESHOLD_PERCENT counts as one busy GPU, below
it as idle. A training job that keeps its GPU 40% busy (data loading, communication) still holds a
whole GPU, and a rented GPU is paid whole, so counting it as 0.4 GPU would understate the GPUs to
buy or rent. The threshold (5%) is a documented default, not a measured figure: low enough that a
GPU running any real job counts, high enough that an occasional small reading on an idle GPU does
not; change it with `busy_threshold`. `busy_threshold=None` selects the fractional rule instead (a
sample counts as utilisation/100 of a GPU): kernel time, useful next to energy use, not for GPUs
needed.
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
