"""A commitment whose count follows the scenario, at a cloud price of 0 (the lower end of the cloud-price threshold's
range when the plan buys): counts too small to cover the peak rent what the quotas cannot give, an infinite rent,
and that times a cloud price of 0 was NaN (`solvers.model.committed`). `thresholds.CloudSide.cost` takes the
cheapest way of renting with Python's `min`, which drops a NaN after a number, so renting there was infinite: the
test "buying pays" held at a cloud price of 0 and the threshold said renting never wins, where at any price below
some 0.57 of today's three commitments cost less than the three cards."""

from __future__ import annotations

import math
import warnings

import numpy as np

from solvers.base.options import CloudOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.explain.thresholds import CloudSide, find_thresholds
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase, Scenario

HOURS = 8760.0
RATE = 0.15


def _option(key: str, price: float, **more: object) -> OwnedOption:
    fields: dict[str, object] = dict(
        key=key, name=key, gpu="H100 SXM", condition="new", gpus_per_unit=1, unit_price_usd=price,
        includes_host=True, throughput=1.0, marginal_kwh_per_gpu_hour=0.0, idle_kwh_per_unit_hour=0.0,
        card_watts=700.0, resale_usd=0.0, memory_gb=80.0, slots_per_unit=1.0, vendor="v", source="s",
        as_of="2026-01-01", feed="f")
    fields.update(more)
    return OwnedOption(**fields)  # type: ignore[arg-type]


def _evaluator(fluid: bool = False) -> Evaluator:
    """Three jobs every hour of a year; one on-demand instance at most (2 USD an hour), a one-year commitment at
    1 USD an hour (8,760 a unit), or a machine at 5,000."""
    commitment = _option("ri", HOURS * 1.0, kind="commitment", usd_per_hour=1.0, term_months=12, paid_hours=HOURS,
                         terms=1, availability=1.0)
    vm = CloudOption(key="vm", provider="p", name="vm", gpu="H100 SXM", gpu_count=1, usd_per_hour=2.0, region="r",
                     pricing="on_demand", ref_hours_per_hour=1.0, max_instances=1, source="s", as_of="2026-01-01",
                     feed="f")
    block = Block(hours=HOURS, demand=3 * HOURS, periods=(0,), jobs=np.array([3.0]), level_hours=np.array([HOURS]))
    return Evaluator([_option("box", 5000.0, availability=1.0), commitment], [vm], [], [block], 1.0,
                     integer_instances=not fluid)


def test_a_scaled_commitment_at_a_free_cloud_is_a_number() -> None:
    for fluid in (False, True):
        evaluator = _evaluator(fluid)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # 0 x inf: "invalid value encountered in multiply"
            free = evaluator.committed_cloud("ri", Scenario(RATE, cloud_price=0.0))
        assert not math.isnan(free)
        # at any positive price the cost is the same line through 0: three commitments
        assert evaluator.committed_cloud("ri", Scenario(RATE, cloud_price=0.5)) == 0.5 * 3 * HOURS


def test_renting_wins_below_the_price_where_three_commitments_meet_three_machines() -> None:
    evaluator = _evaluator()
    found = find_thresholds(evaluator, [Purchase({"box": 3})], RATE, 10.0, True,
                            CloudSide([Purchase()], ["ri"])).cloud_price_factor
    meet = 3 * 5000.0 / (3 * HOURS)  # 0.5708: three machines against three commitments at that multiple
    assert found is not None and meet <= found <= meet + 1e-5
