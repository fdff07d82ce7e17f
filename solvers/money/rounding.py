"""Rounding a plan's figures as Python's `round` rounds each one, in batches.

In: lists of figures (Python floats, numpy float64 scalars, now and then a Python int) or float arrays, and the
digits. Out: the rounded figures as Python's `round` of each gives them. Why a module: the accounts (solvers.money.
accounting, cash_flows) and the chart's curves (curves) round some thousand figures a plan, and `round` costs some
0.4 us a Python float and 4 us a numpy scalar."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

_EXACT = 2.0 ** 52  # below it a float's scaled value rounds to an integer that is exact in a double
_MARGIN = 2.0 ** -50  # 4 ulp of relative error: well above the half-ulp error of one multiplication


def round_floats(values: np.ndarray, digits: int) -> list[Any]:
    """`round(float(v), digits)` of each element (nested lists for a 2-D array), in a few numpy calls.

    Why: a plan's accounts round some 700 figures, and Python's `round` costs some 0.4 us each. Python rounds
    the exact decimal value of v half to even and reads the digits back as the nearest double; numpy's `rint(v x
    10^d) / 10^d` gives the same double whenever the rounded product `v x 10^d` has the same nearest integer as
    the exact one, for that integer k (below 2^52, exact) and 10^d are exact and the division is correctly
    rounded, so it is the double nearest k / 10^d, the one Python reads back. The product is within half an ulp
    of the exact value, so the two can only differ where it lies within an ulp of a half-integer: those values
    (ties included), and any batch with a value too large or not finite, go through `round` itself."""
    scale = 10.0 ** digits
    scaled = values * scale
    size = np.abs(scaled)
    if not (size < _EXACT).all():
        return [round(v, digits) for v in values.tolist()] if values.ndim == 1 else \
            [round_floats(row, digits) for row in values]
    out: list[Any] = (np.rint(scaled) / scale).tolist()
    near_half = np.abs(scaled - np.floor(scaled) - 0.5) <= size * _MARGIN
    if near_half.any():
        for at in zip(*np.nonzero(near_half), strict=True):
            row = out
            for i in at[:-1]:
                row = row[int(i)]
            row[int(at[-1])] = round(float(values[at]), digits)
    return out


def rounded(values: Sequence[float], digits: int) -> list[float]:
    """`round(v, digits)` of each value, in batches (`rounded_lists`)."""
    return rounded_lists([values], digits)[0]


def rounded_lists(lists: Sequence[Sequence[float]], digits: int) -> list[list[float]]:
    """`round(v, digits)` of each value of each list, all lists in one batch.

    Why: the figures mix Python floats and numpy float64 scalars, and `round` of a numpy scalar costs about ten
    times a Python one (a plan rounds some thousand of them), and even a Python one some 0.4 us. `np.round` of an
    array rounds each element exactly as `round` of that element's numpy scalar does (both scale, round half to
    even and unscale), while Python's `round` of a float rounds its exact decimal value, which can differ in the
    last digit: so the numpy scalars take `np.round`'s digits and the Python floats `round_floats`'s (which are
    `round`'s), and every figure is the one `round` gave before. A Python int keeps `round`'s int.
    """
    total = sum(len(values) for values in lists)
    if total < _BATCH:  # a few figures: numpy's fixed costs are more than `round`'s
        return [_rounded_each(list(values), digits) for values in lists]
    array = np.fromiter(chain.from_iterable(lists), dtype=np.float64, count=total)
    python_digits = round_floats(array, digits)
    numpy_digits: list[float] | None = None
    split, at = [], 0
    for values in lists:
        kinds = set(map(type, values))
        end = at + len(values)
        if kinds <= _PYTHON_FLOAT:
            split.append(python_digits[at:end])
        else:
            if numpy_digits is None:
                numpy_digits = np.round(array, digits).tolist()
            if kinds <= _NUMPY_FLOAT:
                split.append(numpy_digits[at:end])
            else:  # mixed, or Python ints (which `round` leaves ints)
                split.append([round(v, digits) if type(v) is int else python_digits[i] if type(v) is float
                              else numpy_digits[i] for i, v in enumerate(values, at)])
        at = end
    return split


def _rounded_each(values: list[float], digits: int) -> list[float]:
    """`round` of a few values one by one, the numpy scalars among them through one `np.round` call."""
    out = list(values)
    numpy_at = []
    for i, v in enumerate(values):
        if type(v) is float or type(v) is int:
            out[i] = round(v, digits)
        else:
            numpy_at.append(i)
    if numpy_at:
        scaled = np.round(np.array([values[i] for i in numpy_at], dtype=np.float64), digits).tolist()
        for i, v in zip(numpy_at, scaled, strict=True):
            out[i] = v
    return out


_PYTHON_FLOAT: set[type] = {float}
_NUMPY_FLOAT: set[type] = {np.float64}
_BATCH = 8
