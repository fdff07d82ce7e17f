"""Which hosts hold which cards: a host's capacity for one card type, and the cheapest whole hosts for n cards.

Shared by the main model (host rows and the host-spend inequality) and its MIP start (`solvers.model.start`)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from pricing.hardware_fit import cards_powered
from solvers.base.options import HostOption, OwnedOption


def card_capacity(host: HostOption, option: OwnedOption) -> int:
    """Cards of `option` one host holds: its slots, and no more than its PSU powers by the hardware-fit rule
    (`pricing.hardware_fit`: cards + 150 W of host, 10% headroom; 4 x RTX 3090 want a 1,700 W PSU, DOMAIN §3)."""
    return min(host.host.slots, cards_powered(host.host.psu_watts, option.card_watts))


def _covering(cost: np.ndarray, capacity: np.ndarray, upto: int) -> tuple[np.ndarray, np.ndarray]:
    """The covering knapsack by dynamic programming: least spend for at least n cards, n = 0..upto, and the kind
    of host last added for it (-1: none). Read-only arrays, shared by every call with the same inputs."""
    spend, last = _covering_table(tuple(np.asarray(cost, dtype=float).tolist()),
                                  tuple(np.asarray(capacity, dtype=np.int64).tolist()), int(upto))
    return spend, last


@lru_cache(maxsize=256)
def _covering_table(cost: tuple[float, ...], capacity: tuple[int, ...], upto: int) -> tuple[np.ndarray, np.ndarray]:
    """Why cached: a plan asks for the same hosts' tables in its main model, its MIP start and its buy-only model,
    and a service asks for the same catalogue's again and again."""
    spend = [math.inf] * (upto + 1)
    spend[0] = 0.0
    last = [-1] * (upto + 1)
    kinds = [(k, c, n) for k, (c, n) in enumerate(zip(cost, capacity, strict=True)) if n > 0]
    for n in range(1, upto + 1):
        for k, c, cap in kinds:
            if c + spend[max(n - cap, 0)] < spend[n]:
                spend[n], last[n] = c + spend[max(n - cap, 0)], k
    spend_array, last_array = np.array(spend), np.array(last, dtype=np.int64)
    spend_array.flags.writeable = False
    last_array.flags.writeable = False
    return spend_array, last_array


def cheapest_hosts(cost: np.ndarray, capacity: np.ndarray, upto: int) -> np.ndarray:
    """H(n) for n = 0..upto: the least spend on whole hosts (any number of each kind k, cost_k each, best_k
    cards each) that hold at least n cards; inf when no host holds a card."""
    return _covering(cost, capacity, upto)[0]


def cheapest_host_mix(cost: np.ndarray, capacity: np.ndarray, cards: int) -> np.ndarray | None:
    """How many hosts of each kind make H(cards) (`cheapest_hosts`); None when no host holds a card."""
    spend, last = _covering(cost, capacity, cards)
    if not math.isfinite(spend[cards]):
        return None
    counts = np.zeros(len(cost), dtype=np.int64)
    n = cards
    while n > 0:
        k = int(last[n])
        counts[k] += 1
        n = max(n - int(capacity[k]), 0)
    return counts
