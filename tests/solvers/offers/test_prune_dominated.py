"""Pruning rule 2 (`solvers.offers.pruning.prune_dominated`) compares only options that agree on GPUs per unit, host,
kind
and paid hours, which `_dominates` requires anyway: it must keep exactly the options the all-pairs rule kept."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import FINANCE_EXAMPLE
from solvers.base.options import OwnedOption
from solvers.base.profile import Profile
from solvers.offers.options import build_options
from solvers.offers.place_inputs import prepare
from solvers.offers.pruning import _beats, _figures, prune_dominated
from tests.conftest import TODAY
from tests.solvers.offers.by_hand import dominates as _dominates


def _all_pairs(owned: list[OwnedOption]) -> list[OwnedOption]:
    """Rule 2 as it was written: every kept option against every candidate."""
    ordered = sorted(owned, key=lambda o: (o.net_price_usd, o.unit_price_usd, o.key))
    kept: list[OwnedOption] = []
    for candidate in ordered:
        if not any(_dominates(k, candidate) for k in kept):
            kept = [k for k in kept if not _dominates(candidate, k)]
            kept.append(candidate)
    return sorted(kept, key=lambda o: o.key)


def _options(body: dict[str, object]) -> list[OwnedOption]:
    prep = prepare(Profile.model_validate(body), bundled_catalog())
    return build_options(prep.catalog, prep.profile, TODAY, 3 * 365).owned


QUOTES = {
    "workload": "transformer_training", "min_gpu_memory_gb": 24, "horizon_months": 36,
    "demand": {"gpus": 8, "utilisation": 0.6, "reference_gpu": "RTX 3090"}, "electricity_usd_per_kwh": 0.15,
    "prices": {"owned": [{"name": f"quote {i}", "gpu": ["RTX 3090", "RTX 4090", "L4"][i % 3],
                          "gpus_per_unit": [1, 2, 4][i % 3] * (1 + i % 2), "unit_price_usd": 700.0 + 37 * (i % 11),
                          "includes_host": i % 4 == 0, "condition": "used" if i % 5 == 0 else "new"}
                         for i in range(60)]},
}


@pytest.mark.parametrize("body", [QUOTES, FINANCE_EXAMPLE], ids=["quotes", "finance"])
def test_grouped_rule_two_keeps_what_all_pairs_kept(body: dict[str, object]) -> None:
    owned = _options(body)
    rng = random.Random(3)
    # near-copies that dominate or are dominated (cheaper, dearer, slower, other hosts), in shuffled order
    variants = [replace(o, key=f"{o.key}/v{j}", unit_price_usd=o.unit_price_usd * rng.choice([0.9, 1.0, 1.1]),
                        throughput=o.throughput * rng.choice([0.95, 1.0, 1.05]),
                        accepting_hosts=o.accepting_hosts[: rng.randint(0, len(o.accepting_hosts))])
                for j, o in enumerate(rng.sample(owned, min(len(owned), 40)))]
    mixed = owned + variants
    rng.shuffle(mixed)
    expected = _all_pairs(mixed)
    assert [o.key for o in prune_dominated(mixed)] == [o.key for o in expected]
    assert 0 < len(expected) < len(mixed)  # the rule removed some and kept some


@pytest.mark.parametrize("body", [QUOTES, FINANCE_EXAMPLE], ids=["quotes", "finance"])
def test_figures_compare_as_the_options_do(body: dict[str, object]) -> None:
    """`_beats` on two options' `_figures` is `_dominates` on the options, for every pair of one group (equal GPUs
    per unit, host, kind and paid hours), near-copies and commitments with fees included."""
    owned = _options(body)
    rng = random.Random(5)
    variants = [replace(o, key=f"{o.key}/v{j}", unit_price_usd=o.unit_price_usd * rng.choice([0.9, 1.0]),
                        resale_usd=o.resale_usd * rng.choice([1.0, 1.1]), width=rng.choice([o.width, o.width + 1]),
                        upfront_usd=rng.choice([0.0, 100.0]), term_months=rng.choice([12, 36]),
                        accepting_hosts=o.accepting_hosts[: rng.randint(0, len(o.accepting_hosts))])
                for j, o in enumerate(rng.sample(owned, min(len(owned), 40)))]
    mixed = owned + variants
    pairs = [(a, b) for a in mixed for b in mixed if (a.gpus_per_unit, a.includes_host, a.kind, a.paid_hours) ==
             (b.gpus_per_unit, b.includes_host, b.kind, b.paid_hours)]
    found = [_beats(_figures(a), _figures(b)) for a, b in pairs]
    assert found == [_dominates(a, b) for a, b in pairs]
    assert any(found) and not all(found)
