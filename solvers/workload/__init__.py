"""The compile stage: a workload (model size, tokens and method) in, GPUs per job and hours per GPU type out
(`estimate`); for a plan, a workload-form profile in and the class-form profile planned from it out, every GPU type
at its own job widths (solvers.workload.demand). The estimate's types are in solvers.base.workload."""

from solvers.base.workload import Estimate, GpuEstimate, ModelShape, Workload
from solvers.workload.compiler import estimate

__all__ = ["Estimate", "GpuEstimate", "ModelShape", "Workload", "estimate"]
