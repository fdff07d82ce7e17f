"""The catalog sent to plan workers once per catalog, not once per plan.

Why: a plan in a worker process needs the catalog in force (about 90 kB pickled: GPU facts, a few hundred cloud
offers, hardware prices). Pickling it with every plan cost the API process about 0.7 ms and the worker about
1.1 ms, and the worker got a new `Catalog` object each time, so the planner's per-catalog caches (the cloud
offers as numpy columns, the hardware rows: solvers.cloud_table, solvers.options) never hit there. Here the API
process pickles a catalog once (the last one is kept: one catalog is in force at a time, and a refresh makes a
new object) and sends the bytes with a token; a worker unpickles a token it has not seen and keeps the last one,
so the same `Catalog` object serves every plan until the prices change.
"""

from __future__ import annotations

import datetime as dt
import pickle
import threading
import uuid
from dataclasses import dataclass

from pricing.catalog import Catalog
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult


@dataclass(frozen=True)
class ShippedCatalog:
    token: str
    blob: bytes  # the pickled Catalog


_lock = threading.Lock()
_sent: tuple[Catalog, ShippedCatalog] | None = None  # API process: the last catalog shipped
_received: tuple[str, Catalog] | None = None  # worker: the last catalog unpacked


def ship(catalog: Catalog) -> ShippedCatalog:
    """The catalog as bytes with a token naming this catalog object (pickled once per object)."""
    global _sent
    with _lock:
        if _sent is not None and _sent[0] is catalog:
            return _sent[1]
        shipped = ShippedCatalog(uuid.uuid4().hex, pickle.dumps(catalog, protocol=pickle.HIGHEST_PROTOCOL))
        _sent = (catalog, shipped)
        return shipped


def receive(shipped: ShippedCatalog) -> Catalog:
    """The catalog a token names: unpickled on the first plan that brings it, kept for the next ones."""
    global _received
    with _lock:
        if _received is not None and _received[0] == shipped.token:
            return _received[1]
        catalog: Catalog = pickle.loads(shipped.blob)  # bytes this service pickled (never a client)
        _received = (shipped.token, catalog)
        return catalog


def make_plan_shipped(profile: Profile, shipped: ShippedCatalog, today: dt.date) -> PlanResult:
    """`solvers.plan.make_plan` on a shipped catalog (what the plan pool's workers run)."""
    return make_plan(profile, receive(shipped), today)
