"""What the compare endpoint lists as a plan's purchases (issue 17): the cards and machines bought, the host machines
the cards go in, and reserved instances, so two plans that differ only in their hosts or commitments show it."""

from __future__ import annotations

from service.plans.compare import purchases
from solvers.base.plan_lines import BuyLine, CommitmentLine, HostLine
from solvers.base.result import PlanResult


def test_hosts_and_commitments_are_purchases_beside_the_cards() -> None:
    plan = PlanResult.model_construct(
        buy=[BuyLine(name="RTX 4090 (new, Amazon buy box)", gpu="RTX 4090", condition="new", count=4,
                     gpus_per_unit=1, includes_host=False, unit_price_usd=1600.0, resale_usd_per_unit=0.0,
                     source="s", price_as_of="2026-02-01")],
        hosts=[HostLine(name="4-GPU workstation", slots=4, count=1, unit_price_usd=3170.0, psu_watts=2000,
                        idle_watts=80, source="s", price_as_of="2025-01-01")],
        commitments=[CommitmentLine(provider="aws", name="p5.48xlarge", gpu="H100 SXM", gpu_count=8, region="us",
                                    count=2, term_months=12, terms=1, usd_per_hour=30.0, paid_hours=8760,
                                    cost_usd=525600.0, source="s", price_as_of="2026-01-01")])
    found = purchases(plan)
    assert [(p.kind, p.name, p.count) for p in found] == [("buy", "RTX 4090 (new, Amazon buy box)", 4),
                                                          ("host", "4-GPU workstation", 1),
                                                          ("commitment", "p5.48xlarge", 2)]
    assert [p.cost_usd for p in found] == [6400.0, 3170.0, 525600.0]
    assert found[1].gpu is None and found[1].condition is None
    assert (found[2].provider, found[2].term_months, found[2].gpu) == ("aws", 12, "H100 SXM")
