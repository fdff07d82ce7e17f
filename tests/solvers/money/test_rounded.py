"""`solvers.money.rounding.rounded` rounds a batch exactly as `round` rounds each value: numpy scalars and Python
floats round differently in the last digit (half-to-even of the scaled binary value vs of the exact decimal), and
plans must not change in that digit because the batch is faster."""

from __future__ import annotations

import numpy as np
import pytest

from solvers.money.rounding import rounded


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


def test_cumulative_points_round_each_figure_as_round_did() -> None:
    """The chart's points round each curve in one batch (`curves.cumulative_points`); each figure must be the one
    `round(value, 2)` gives of that value (minus the resale on the resale point), numpy scalars and floats mixed as
    the accounts leave them."""
    from solvers.money.curves import Curve, cumulative_points

    rng = np.random.default_rng(5)
    n = 40
    edges = np.round(rng.uniform(0, 1e4, n), 2) + 0.005  # at the rounding edge, where the two kinds differ
    plan = Curve([2200.0, *np.cumsum(edges)], 812.5)
    cloud = Curve([0.0, *[float(v) for v in np.cumsum(edges[::-1])]], 0.0)
    buy = Curve(list(edges), 0.0)
    days = [float(d) for d in range(n + 1)]
    dates = [f"d{d}" for d in range(n + 1)]
    buy_mixed = Curve([*buy.values, 1.0], 0.0)  # numpy scalars then a float: `rounded`'s mixed path
    points = cumulative_points(days, dates, plan, cloud, buy_mixed)
    assert len(points) == n + 2 and points[-1].event == "resale"
    for i, point in enumerate(points[:-1]):
        assert point.plan_usd == (round(plan.values[i] - 0.0, 2) or 0.0)
        assert point.cloud_only_usd == round(cloud.values[i] - 0.0, 2)
        assert point.buy_only_usd == round(buy_mixed.values[i], 2)
    assert points[-1].plan_usd == round(plan.values[-1] - plan.resale, 2)
    assert points[-1].cloud_only_usd == round(cloud.values[-1] - 0.0, 2)
    assert points[-1].buy_only_usd == round(buy_mixed.values[-1] - 0.0, 2)
