"""`solvers.money.rounding.round_floats` gives `round(float(v), digits)` of every element: numpy's scale-rint-unscale
where it provably agrees with Python's rounding of the exact decimal value, `round` itself near a half (ties
included) and for values too large or not finite. Plans must not change in the last digit because it is faster."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers.money.rounding import round_floats, rounded_lists


def _same(a: float, b: float) -> bool:
    return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)


@pytest.mark.parametrize("digits", [2, 3, 8])
def test_each_element_is_rounds(digits: int) -> None:
    rng = np.random.default_rng(digits)
    parts = [
        rng.uniform(-1e6, 1e6, 20000),
        (rng.integers(-10**7, 10**7, 20000) + 0.5) / 10**digits,  # decimal ties (and their binary neighbours)
        rng.integers(-10**7, 10**7, 20000) / 10**(digits + 1),
        rng.standard_normal(20000) * 10.0 ** rng.integers(-12, 14, 20000),
        np.array([0.0, -0.0, -0.001, 0.005, -0.005, 1e-300, 5e-324, 2.0**52, 1e300]),
    ]
    values = np.concatenate(parts)
    got = round_floats(values, digits)
    assert all(_same(g, round(v, digits)) for g, v in zip(got, values.tolist(), strict=True))
    # the batch above holds values at 2^52 and more once scaled, so all of it went through `round`: each part on its
    # own too, and the wide-magnitude draws below 2^52 once scaled, so that numpy's rint path answers them
    wide = parts[3]
    parts += [wide[np.abs(wide * 10.0**digits) < 2.0**52], parts[4][:-2]]
    for part in parts:
        got_part = round_floats(part, digits)
        assert all(_same(g, round(v, digits)) for g, v in zip(got_part, part.tolist(), strict=True))
    table = round_floats(values[:40000].reshape(4, -1), digits)
    assert table == [got[i * 10000:(i + 1) * 10000] for i in range(4)]


def test_not_finite_falls_back_to_round() -> None:
    values = np.array([1.005, math.inf, -math.inf, 2.675])
    got = round_floats(values, 2)
    assert got[:3] == [round(1.005, 2), math.inf, -math.inf] and got[3] == round(2.675, 2)
    assert math.isnan(round_floats(np.array([math.nan, 1.0]), 2)[0])


def test_lists_keep_each_kind_of_rounding() -> None:
    """Python floats round as `round` of a float, numpy scalars as `round` of a numpy scalar, ints stay ints."""
    rng = np.random.default_rng(9)
    edges = list(np.round(rng.uniform(0, 1e4, 500), 2) + 0.005)
    floats = [float(v) for v in edges]
    mixed = [v for pair in zip(edges, floats, strict=True) for v in pair] + [3]
    lists = [floats, edges, mixed, []]
    got = rounded_lists(lists, 2)
    assert got == [[round(v, 2) for v in values] for values in lists]
    assert type(got[2][-1]) is int


@pytest.mark.parametrize("digits", range(9))
def test_ties_and_their_neighbours_at_every_scale(digits: int) -> None:
    """Decimal ties k.5 x 10^-d and the doubles one and two ulps either side, at magnitudes 10^-3 .. 10^16 of the
    scaled value (up to and past 2^52, where the batch goes through `round`), with signed zeros, subnormals and the
    largest doubles: each element is `round`'s (review2: no counterexample in these nor in 20,000 hypothesis
    draws of lists of any doubles at digits 0..8)."""
    rng = np.random.default_rng(100 + digits)
    ties = np.concatenate([(rng.integers(-10**6, 10**6, 500) + 0.5) * 10.0 ** e / 10.0 ** digits
                           for e in range(-3, 17)])
    near = [ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf),
            np.nextafter(np.nextafter(ties, np.inf), np.inf), np.nextafter(np.nextafter(ties, -np.inf), -np.inf)]
    bound = np.array([2.0**51 - 0.5, 2.0**52 - 1.0, 2.0**52 - 0.5, 2.0**52]) / 10.0 ** digits
    edges = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -1e-310, 0.49999999999999994,
                      -0.49999999999999994, 0.5, -0.5, 1.5, 2.5, -2.5])
    # each magnitude on its own as well: a batch with any value at 2^52 or more once scaled goes through `round`
    # whole, so the concatenation alone would hold the rint path to nothing
    by_scale = [np.concatenate([a[e * 500:(e + 1) * 500] for a in near]) for e in range(20)]
    for values in [np.concatenate(near), *by_scale, bound, -bound, np.nextafter(bound, 0.0), edges]:
        got = round_floats(values, digits)
        assert all(_same(g, round(v, digits)) for g, v in zip(got, values.tolist(), strict=True))
