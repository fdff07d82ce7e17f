"""The sparse rows and columns of a model being built, appended stage by stage and joined into HiGHS arrays once.

Why apart: the build, its MIP start and the fluid cells all append to one builder; none of them needs the others to
hold it."""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np


class Builder:
    """Columns and rows in arrays; `add_cols` returns the new columns' indices."""

    def __init__(self) -> None:
        self.cost: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.n_cols = 0
        self.rows_i: list[np.ndarray] = []
        self.rows_j: list[np.ndarray] = []
        self.rows_v: list[np.ndarray] = []
        self.row_lower: list[np.ndarray] = []
        self.row_upper: list[np.ndarray] = []
        self.n_rows = 0

    def add_cols(self, cost: np.ndarray, upper: np.ndarray | float, integer: bool | np.ndarray) -> np.ndarray:
        cost = np.asarray(cost, dtype=float).ravel()
        n = len(cost)
        self.cost.append(cost)
        self.lower.append(np.zeros(n))
        self.upper.append(_filled(upper, n, float))
        self.integer.append(_filled(integer, n, bool))
        idx = np.arange(self.n_cols, self.n_cols + n)
        self.n_cols += n
        return idx

    def add_rows(self, row: np.ndarray, col: np.ndarray, val: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray | float) -> None:
        """Rows numbered 0..len(lower)-1 locally; (row, col, val) triplets."""
        lower = np.asarray(lower, dtype=float).ravel()
        self.rows_i.append(np.asarray(row, dtype=np.int64).ravel() + self.n_rows)
        self.rows_j.append(np.asarray(col, dtype=np.int64).ravel())
        self.rows_v.append(np.asarray(val, dtype=float).ravel())
        self.row_lower.append(lower)
        self.row_upper.append(_filled(upper, len(lower), float))
        self.n_rows += len(lower)

    def arrays(self) -> Arrays:
        """The model as HiGHS takes it: columns, rows by row (zeros dropped), integrality."""
        rows, cols, vals = concat(self.rows_i, np.int64), concat(self.rows_j, np.int64), concat(self.rows_v)
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        # by row, then column: one stable sort of row x n_cols + column is np.lexsort((cols, rows))'s order (every
        # column is below n_cols, ties keep their order in both) at half its time (bursty series 20 -> 10 us)
        order = np.argsort(rows * self.n_cols + cols, kind="stable")
        start = np.zeros(self.n_rows + 1, dtype=np.int32)
        np.cumsum(np.bincount(rows, minlength=self.n_rows), out=start[1:])
        return Arrays(
            self.n_cols, self.n_rows, concat(self.cost), concat(self.lower), concat(self.upper), concat(self.row_lower),
            concat(self.row_upper), start, cols[order].astype(np.int32), vals[order], concat(self.integer, bool))

    def lp(self) -> highspy.HighsLp:
        return self.arrays().lp()


def _filled(value: np.ndarray | float | bool, n: int, dtype: type) -> np.ndarray:
    """`value` (one for all, or one per entry) as n entries of a new array. Why not `np.broadcast_to(...).copy()`:
    it costs some 2 us a call more, and a build makes about twenty of these calls (measured 2026-11-28)."""
    if not isinstance(value, np.ndarray):
        return np.full(n, value, dtype=dtype)
    array: np.ndarray = np.array(value, dtype=dtype).ravel()
    return array if len(array) == n else np.broadcast_to(array, (n,)).copy()


def tile(a: np.ndarray, k: int) -> np.ndarray:
    """`np.tile(a, k)` of a 1-D array: the same entries in one concatenation, without np.tile's Python layers
    (some 1.5 us a call; a build makes a dozen)."""
    return np.concatenate([a] * k) if k > 0 else a[:0].copy()


def concat(parts: list[np.ndarray], dtype: type = float) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


@dataclass(frozen=True)
class Arrays:
    """A built model's arrays, passed to HiGHS in one call (`pass_to`): numpy buffers go in as they are, where
    filling a `HighsLp` field by field converts every element to a Python object and back."""

    n_cols: int
    n_rows: int
    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    start: np.ndarray  # row starts (row-wise matrix)
    index: np.ndarray
    value: np.ndarray
    integer: np.ndarray

    def pass_to(self, highs: highspy.Highs, offset: float) -> None:
        integrality = np.where(self.integer, int(highspy.HighsVarType.kInteger),
                               int(highspy.HighsVarType.kContinuous)).astype(np.int32)
        highs.passModel(self.n_cols, self.n_rows, len(self.value), int(highspy.MatrixFormat.kRowwise),
                        int(highspy.ObjSense.kMinimize), offset, self.cost, self.lower, self.upper, self.row_lower,
                        self.row_upper, self.start, self.index, self.value, integrality)

    def lp(self) -> highspy.HighsLp:
        lp = highspy.HighsLp()
        lp.num_col_ = self.n_cols
        lp.num_row_ = self.n_rows
        lp.col_cost_ = self.cost
        lp.col_lower_ = self.lower
        lp.col_upper_ = self.upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = self.start
        lp.a_matrix_.index_ = self.index
        lp.a_matrix_.value_ = self.value
        lp.a_matrix_.num_col_ = self.n_cols
        lp.a_matrix_.num_row_ = self.n_rows
        lp.row_lower_ = self.row_lower
        lp.row_upper_ = self.row_upper
        if self.integer.any():
            lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                               for i in self.integer]
        return lp
