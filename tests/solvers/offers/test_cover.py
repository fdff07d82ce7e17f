"""The covering-knapsack table against enumeration, and its read-back of the chosen instances."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.base.options import CloudOption
from solvers.offers.cover import CoverTable


def offer(i: int, price: float, slots: int, quota: int | None) -> CloudOption:
    return CloudOption(key=f"c{i}", provider="p", name=f"vm{i}", gpu="RTX 3090", gpu_count=slots, usd_per_hour=price,
                       region="r", pricing="on_demand", ref_hours_per_hour=float(slots), max_instances=quota,
                       source="test", as_of="2027-01-01", feed="test", slots=slots, speed=1.0)


@settings(max_examples=60, deadline=None)
@given(spec=st.lists(st.tuples(st.floats(0.1, 10), st.sampled_from([1, 2, 3, 4, 8]),
                               st.one_of(st.none(), st.integers(1, 3))), min_size=1, max_size=3),
       jobs=st.integers(0, 12))
def test_table_price_and_counts_match_enumeration(spec: list[tuple[float, int, int | None]], jobs: int) -> None:
    cloud = [offer(i, p, s, q) for i, (p, s, q) in enumerate(spec)]
    table = CoverTable(cloud, 12)
    ranges = [range(0, (q if q is not None else math.ceil(12 / s)) + 1) for _, s, q in spec]
    best = min((sum(n * p for n, (p, _, _) in zip(counts, spec, strict=True))
                for counts in itertools.product(*ranges)
                if sum(n * s for n, (_, s, _) in zip(counts, spec, strict=True)) >= jobs), default=math.inf)
    assert table.price[jobs] == pytest.approx(best)
    chosen = table.counts(jobs)
    if math.isfinite(best) and jobs > 0:
        assert sum(n * cloud[i].slots for i, n in chosen.items()) >= jobs
        assert sum(n * cloud[i].usd_per_hour for i, n in chosen.items()) == pytest.approx(best)
        assert all(cloud[i].max_instances is None or n <= cloud[i].max_instances for i, n in chosen.items())
