"""Rule 1's front found per instance size (`_unlimited_front`) is the front the sort finds (`_unlimited_front_sorted`):
the same offers tied with each front offer, in the same order, and the same prices and sizes, on random offers with
many ties, free offers (0.0 and -0.0), infinite prices and offers of no slots."""

from __future__ import annotations

import numpy as np

from solvers.offers.pruning import _unlimited_front, _unlimited_front_sorted


def test_front_by_size_is_the_sorted_front() -> None:
    rng = np.random.default_rng(11)
    for trial in range(3000):
        n = int(rng.integers(1, 30))
        price = (rng.choice([0.5, 1.0, 1.5, 2.0, 0.0, -0.0, np.inf], n) if trial % 2
                 else rng.uniform(0, 3, n).round(1))
        slots = rng.integers(0 if trial % 3 == 0 else 1, 5, n).astype(float)
        idx = np.flatnonzero(rng.random(n) < 0.8)
        if not len(idx):
            continue
        runs, prices, sizes = _unlimited_front(idx, price, slots)
        runs_sorted, prices_sorted, sizes_sorted = _unlimited_front_sorted(idx, price, slots)
        assert runs == runs_sorted
        assert prices.tolist() == prices_sorted.tolist()
        assert sizes.tolist() == sizes_sorted.tolist()
