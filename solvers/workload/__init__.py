"""The workload compiler: model size, tokens and method in, GPUs per job and hours per GPU type out."""

from solvers.base.workload import Estimate, GpuEstimate, ModelShape, Workload
from solvers.workload.compiler import estimate

__all__ = ["Estimate", "GpuEstimate", "ModelShape", "Workload", "estimate"]
