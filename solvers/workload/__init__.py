"""The workload compiler: model size, tokens and method in, GPUs per job and hours per GPU type out."""

from solvers.workload.compiler import estimate
from solvers.base.workload import Estimate, GpuEstimate, ModelShape, Workload

__all__ = ["Estimate", "GpuEstimate", "ModelShape", "Workload", "estimate"]
