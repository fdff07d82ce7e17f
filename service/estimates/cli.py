"""`gpuplan estimate`: the workload compiler alone on a workload file, printed as a table or JSON.

Registered by service/cli.py, the entry point; the estimates domain's command, beside `POST /v1/estimate`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from service.core.cli_common import console, fail


def estimate_command(
    workload_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="workload JSON")],
    gpu: Annotated[Optional[list[str]], typer.Option("--gpu", "-g", help="only these GPUs")] = None,  # noqa: UP045
    as_json: Annotated[bool, typer.Option("--json", help="print the estimate as JSON")] = False,
) -> None:
    """The workload compiler alone: this job on each GPU type, how many GPUs and how many hours."""
    from pydantic import ValidationError

    from pricing.catalog import bundled_catalog
    from service.core.errors import validation_errors
    from solvers.workload import Workload
    from solvers.workload import estimate as compile_workload

    try:
        work = Workload.model_validate(json.loads(workload_file.read_text()))
    except json.JSONDecodeError as exc:
        fail(f"{workload_file}: not valid JSON ({exc})")
    except ValidationError as exc:
        fail("\n".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in validation_errors(exc.errors())))
    catalog = bundled_catalog()
    specs = list(catalog.gpus)
    if gpu:
        names = [catalog.gpus.canonical(g) for g in gpu]
        unknown = [g for g, n in zip(gpu, names, strict=True) if n is None]
        if unknown:
            fail(f"gpu: unknown GPU {unknown[0]!r} (known_gpu)")
        specs = [catalog.gpus[n] for n in dict.fromkeys(n for n in names if n is not None)]
    result = compile_workload(work, specs)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    t = Table(title=f"{work.kind}: {result.params / 1e9:g}B parameters"
                    + (f", {result.flops:.3g} FLOPs" if result.flops else ""))
    for col in ("GPU", "GPUs/job", "hours/job", "GPU-hours", "GB/GPU", "sharding or why left out", "extrapolated"):
        t.add_column(col)
    for row in result.gpus:
        if row.fits:
            t.add_row(row.gpu, str(row.gpus_per_job), f"{row.hours_per_job:,.1f}", f"{row.gpu_hours:,.1f}",
                      f"{row.memory_per_gpu_gb:.1f}", row.sharding or "", "yes" if row.extrapolated else "no")
        else:
            t.add_row(row.gpu, "-", "-", "-", "-", row.excluded_reason or "", "yes" if row.extrapolated else "no")
    console.print(t)
    for note in result.assumptions:
        console.print(f"- {note}")
