"""Robust statistics of marketplace prices (Vast.ai offers, eBay listings): one outlier never becomes the price."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) with linear interpolation between order statistics (numpy's default method).

    Written out rather than `statistics.quantiles` because that needs two values and a marketplace model
    with a single offer must still get a p10 (equal to its only price).
    """
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
