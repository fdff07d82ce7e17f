"""The catalog sent to plan workers once per catalog, not once per plan.

Why: a plan in a worker process needs the catalog in force (about 90 kB pickled: GPU facts, a few hundred cloud
offers, hardware prices). Pickling it with every plan cost the API process about 0.7 ms and the worker about
1.1 ms, and the worker got a new `Catalog` object each time, so the planner's per-catalog caches (the cloud
offers as numpy columns, the hardware rows: solvers.offers.cloud_table, solvers.offers.options) never hit there.

Here the API process pickles a catalog once into a file of its own temporary directory and sends the workers
only a token and that file's path; a worker reads a token it has not seen once and keeps the last few, so the
same `Catalog` object serves every plan until the prices change. Not the bytes themselves with every call: a
call message above the pipe's 64 kB buffer makes the pool's feeder thread write it in several turns, each one
waiting for the GIL of a busy API process while the worker that reads it sits idle (issue 18's overhead).
"""

from __future__ import annotations

import atexit
import datetime as dt
import os
import pickle
import shutil
import tempfile
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pricing.catalog import Catalog
from service.core.json_body import JsonBody
from solvers.base.profile import Profile

T = TypeVar("T")

# catalogs kept by the API process (by object) and by a worker (by token): the live one, and the few a recompute
# or a sensitivity re-planned at recorded prices used lately
_KEPT = 8
# files kept on disk: a plan still queued may name an older one, so many more than `_KEPT` (each ~90 kB)
_FILES_KEPT = 64


@dataclass(frozen=True)
class ShippedCatalog:
    token: str
    path: str  # a file holding the pickled Catalog, written once by the API process


_lock = threading.Lock()
_sent: OrderedDict[int, tuple[Catalog, ShippedCatalog]] = OrderedDict()  # API process: by id(catalog)
_files: list[str] = []
_received: OrderedDict[str, Catalog] = OrderedDict()  # worker: by token
_directory: str | None = None


def _where() -> str:
    global _directory
    if _directory is None or not os.path.isdir(_directory):
        _directory = tempfile.mkdtemp(prefix="gpuplan-catalogs-")
        atexit.register(shutil.rmtree, _directory, True)
    return _directory


def ship(catalog: Catalog) -> ShippedCatalog:
    """The catalog as a token and a file naming this catalog object (pickled and written once per object)."""
    with _lock:
        kept = _sent.get(id(catalog))
        if kept is not None and kept[0] is catalog:
            _sent.move_to_end(id(catalog))
            return kept[1]
        token = uuid.uuid4().hex
        path = os.path.join(_where(), f"{token}.pickle")
        with open(path, "wb") as out:
            pickle.dump(catalog, out, protocol=pickle.HIGHEST_PROTOCOL)
        shipped = ShippedCatalog(token, path)
        _sent[id(catalog)] = (catalog, shipped)  # the object is held, so its id is not reused meanwhile
        while len(_sent) > _KEPT:
            _sent.popitem(last=False)
        _files.append(path)
        while len(_files) > _FILES_KEPT:
            old = _files.pop(0)
            if not any(s.path == old for _, s in _sent.values()):
                os.remove(old)
        return shipped


def receive(shipped: ShippedCatalog) -> Catalog:
    """The catalog a token names: read on the first plan that brings it, kept for the next ones."""
    with _lock:
        kept = _received.get(shipped.token)
        if kept is not None:
            _received.move_to_end(shipped.token)
            return kept
        with open(shipped.path, "rb") as stored:
            catalog: Catalog = pickle.load(stored)  # a file this service wrote (never a client's bytes)
        _received[shipped.token] = catalog
        while len(_received) > _KEPT:
            _received.popitem(last=False)
        return catalog


@dataclass(frozen=True)
class ProfileJson:
    """A profile crossing to a worker as its JSON, validated there again: pickling the pydantic model took 209 ms
    at 10,000 cloud rows and unpickling it as long again; its JSON is written and read in native code, and a
    profile read back from its own JSON is the same profile (issue 31)."""

    text: str

    @classmethod
    def of(cls, profile: Profile) -> ProfileJson:
        return cls(profile.model_dump_json())


def solve_on(work: Callable[[Profile, Catalog, dt.date], T], profile: Profile | ProfileJson,
             catalog: Catalog | ShippedCatalog, today: dt.date) -> T:
    """`work(profile, catalog, today)` on a catalog given as it is or shipped (what the plan pool's workers run)."""
    if isinstance(profile, ProfileJson):
        profile = Profile.model_validate_json(profile.text)
    return work(profile, receive(catalog) if isinstance(catalog, ShippedCatalog) else catalog, today)


def solve_body(work: Callable[[Profile, Catalog, dt.date], T], body: bytes, catalog: Catalog | ShippedCatalog,
               today: dt.date) -> tuple[T, str]:
    """A request body validated as a profile (an `InvalidBody` 422 otherwise), then `work` on it: the body is read
    once, here, and never in the API process. Returns the answer and the profile's JSON, which is what is stored."""
    profile = JsonBody(body).validated(Profile)
    return solve_on(work, profile, catalog, today), profile.model_dump_json()
