"""How fast an option runs the profile's jobs: GPU names to the catalog's, the speed of one job slot relative to
the reference's (measured, modelled or the profile's override), jobs across machines and serving replicas.

In: the catalog's GPU table and the profile. Out: job-slot speeds the cloud, owned and commitment options carry."""

from __future__ import annotations

import math

import numpy as np

from pricing.gpus import GpuSpec, GpuTable
from solvers.base import defaults
from solvers.base.errors import ProfileError
from solvers.base.performance import throughput_score
from solvers.base.profile import Profile


def canonical_gpu(gpus: GpuTable, spelling: str, field: str) -> str:
    name = gpus.canonical(spelling)
    if name is None:
        raise ProfileError(field, "known_gpu", f"unknown GPU {spelling!r}; GET /v1/gpus lists the known ones")
    return name


class ThroughputModel:
    """Relative throughput per canonical GPU for one profile (model or the profile's overrides)."""

    def __init__(self, gpus: GpuTable, profile: Profile) -> None:
        self._gpus = gpus
        self._workload = profile.workload_class
        self._reference = gpus[canonical_gpu(gpus, profile.planned_demand.reference_gpu, "demand.reference_gpu")]
        self._overrides = {
            canonical_gpu(gpus, name, f"throughput_overrides.{name}"): value
            for name, value in profile.throughput_overrides.items()
        }
        self._overrides.setdefault(self._reference.name, 1.0)
        self._cache: dict[str, float] = {}
        self._reference_score: float | None = None

    @property
    def reference(self) -> GpuSpec:
        return self._reference

    def __call__(self, gpu: str) -> float:
        if gpu not in self._cache:
            if gpu in self._overrides:
                self._cache[gpu] = self._overrides[gpu]
            else:
                self._cache[gpu] = self._relative(gpu)
        return self._cache[gpu]

    def _relative(self, gpu: str) -> float:
        """`performance.relative_throughput(gpu, reference)`, its two scores divided as it divides them, with the
        reference's score computed once per plan instead of once per GPU type (half the roofline evaluations of
        options building; tests/solvers/base/test_performance.py holds the two equal)."""
        score = _score(self._gpus[gpu], self._workload)
        if self._reference_score is None:
            self._reference_score = _score(self._reference, self._workload)
        return score / self._reference_score


_SCORES: dict[tuple[str, str], tuple[GpuSpec, float]] = {}


def _score(spec: GpuSpec, workload: str) -> float:
    """`performance.throughput_score`, kept per GPU spec and workload class for the process: it depends on them
    and the bundled tables alone, and each plan asked again for every GPU type it met (a few us each, some 30 types
    a plan, issue 31). Kept by the spec's identity (a catalog with other figures under a name is scored anew)."""
    found = _SCORES.get((spec.name, workload))
    if found is not None and found[0] is spec:
        return found[1]
    score = throughput_score(spec, workload)
    _SCORES[(spec.name, workload)] = (spec, score)
    return score


def cross_machine_efficiency(profile: Profile, machines: int) -> float:
    """Speed of one job on `machines` linked machines relative to one machine: measured, or MosaicML's figures."""
    if machines <= 1:
        return 1.0
    measured = profile.jobs.cross_machine_efficiency
    if measured is not None:
        return measured
    points = sorted(defaults.CROSS_MACHINE_EFFICIENCY.items())
    return float(np.interp(machines, [k for k, _ in points], [e for _, e in points]))


def serving_slots(gpus: int, throughput: float, width: int, load: str, pooled: bool,
                  most: float = math.inf) -> float:
    """Load units that `gpus` GPUs of relative `throughput` carry every hour, replicas of `width` GPUs each.

    replicas: the unit is a replica of `width` reference GPUs: one per `width` GPUs of a type at least as fast as
    the reference, none on a slower type (a replica sized on the reference would fall behind; a faster GPU does
    not carry 1.56 replicas);
    divisible: `throughput` is the load units one replica carries (periods.load_unit), so a machine or instance
    carries its whole replicas (gpus // width) x throughput, rounded down to whole units; `pooled` cards (bare
    cards sharing the plan's hosts, machines linked for a wider replica) count their share, gpus / width replicas,
    each of at most `most` units (the peak's: a replica never carries more), so a card's share of a replica that
    could carry ten peaks is not a whole replica's worth of the peak (the planner's bound on units to buy reads it).
    """
    if load == "replicas":
        if throughput < 1.0 - 1e-9:
            return 0.0
        return float(gpus // width) if not pooled else gpus / width
    if pooled:
        return gpus * min(throughput, most) / width
    return float(math.floor((gpus // width) * throughput + 1e-9))
