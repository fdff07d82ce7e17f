"""`solvers.accounting.rounded` rounds a batch exactly as `round` rounds each value: numpy scalars and Python
floats round differently in the last digit (half-to-even of the scaled binary value vs of the exact decimal), and
plans must not change in that digit because the batch is faster."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers.accounting import round_floats, rounded


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


@pytest.mark.parametrize("digits", [2, 3, 8])
def test_round_floats_equals_round_of_each_float(digits: int) -> None:
    """Decimal halves (x.xx5 written in decimal: the binary value lies just above or below), their neighbours one
    ulp away, wide magnitudes, negative values, signed zeros and non-finite values."""
    rng = np.random.default_rng(10 + digits)
    halves = (np.round(rng.uniform(-1e6, 1e6, 3000)) + 0.5) / 10.0 ** digits
    values = np.concatenate([
        halves, np.nextafter(halves, np.inf), np.nextafter(halves, -np.inf),
        rng.uniform(-1, 1, 3000) * 10.0 ** rng.integers(-8, 16, 3000),
        [0.0, -0.0, 2.675, 1.005, 0.125, -0.125, 1e300, -1e-300, np.inf, -np.inf],
    ]).tolist()
    expected = [round(v, digits) for v in values]
    got = round_floats(values, digits)
    assert [(g, math.copysign(1.0, g)) for g in got] == [(e, math.copysign(1.0, e)) for e in expected]
    assert all(type(g) is float for g in got)


def test_round_floats_agrees_with_round_where_numpy_alone_does_not() -> None:
    """2.675 is 2.67499999... in binary: `round` gives 2.67; scaling by 100 rounds the product up to 267.5 exactly,
    and np.rint then gives 268 (even), so an implementation without the check near halves would give 2.68."""
    assert round(2.675, 2) == 2.67
    assert float(np.rint(2.675 * 100) / 100) == 2.68
    assert round_floats([2.675], 2) == [2.67]
