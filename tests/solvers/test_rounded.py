"""`solvers.accounting.rounded` rounds a batch exactly as `round` rounds each value: numpy scalars and Python
floats round differently in the last digit (half-to-even of the scaled binary value vs of the exact decimal), and
plans must not change in that digit because the batch is faster."""

from __future__ import annotations

import numpy as np
import pytest

from solvers.accounting import rounded


@pytest.mark.parametrize("digits", [2, 3])
def test_batch_equals_round_of_each(digits: int) -> None:
    rng = np.random.default_rng(digits)
    # values near a rounding edge (x.xxx5) are where numpy and Python disagree most
    edges = np.round(rng.uniform(0, 1e4, 2000), digits) + 0.5 * 10.0 ** -digits
    numpy_values = list(np.concatenate([edges, rng.uniform(0, 1e5, 2000)]))
    python_values = [float(v) for v in numpy_values]
    mixed = [v for pair in zip(numpy_values, python_values, strict=True) for v in pair] + [0, 7, 0.0]
    expected = [float(round(v, digits)) for v in mixed]
    assert rounded(mixed, digits) == expected
    # the two kinds really differ on some of these, so a batch that treated them alike would fail above
    assert any(float(round(a, digits)) != round(b, digits) for a, b in zip(numpy_values, python_values, strict=True))
