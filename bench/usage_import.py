"""Usage import: median time to parse and summarise a 26,000-hour nvidia-smi log (about 3 years).

The log is generated in memory in nvidia-smi's own CSV format (`--query-gpu=timestamp,index,
utilization.gpu --format=csv -l INTERVAL`), with a daily and weekly rhythm and growth, then parsed
and summarised REPEAT times. Prints the median of each step, their sum, the share of the parse in
it, and the rows per second; then the same for a sacct export of JOBS allocations over the same
hours. No target is set by the issue; the point is that years of samples import in about a
second, with numpy and pandas' C parser doing the per-sample work.

Run: python bench/usage_import.py [--hours 26000] [--gpus 4] [--interval 300] [--jobs 300000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from solvers.usage import UsageSeries, parse_nvidia_smi, parse_sacct, summarise


def synthetic_log(hours: int, gpus: int, interval: int, seed: int = 11) -> str:
    rng = np.random.default_rng(seed)
    steps = hours * 3600 // interval
    times = pd.Timestamp("2023-01-02") + pd.to_timedelta(np.arange(steps) * interval, unit="s")
    hour_of_day = times.hour.to_numpy()
    weekday = times.day_of_week.to_numpy() < 5
    growth = 1 + np.arange(steps) / steps
    busy_share = np.clip((0.25 + 0.35 * ((hour_of_day >= 9) & (hour_of_day < 20)) + 0.15 * weekday) * growth, 0, 1)
    stamps = np.repeat(times.strftime("%Y/%m/%d %H:%M:%S").to_numpy(dtype=str), gpus)
    millis = rng.integers(0, 1000, steps * gpus)
    busy = rng.random(steps * gpus) < np.repeat(busy_share, gpus)
    util = np.where(busy, rng.integers(30, 101, steps * gpus), rng.integers(0, 3, steps * gpus))
    index = np.tile(np.arange(gpus), steps)
    lines = pd.Series(stamps).str.cat([pd.Series(millis).map("{:03d}".format), pd.Series(index).astype(str),
                                       pd.Series(util).astype(str)], sep="|")
    body = lines.str.replace("|", ".", n=1).str.replace("|", ", ").str.cat(sep=" %\n")
    return "timestamp, index, utilization.gpu [%]\n" + body + " %\n"


def synthetic_sacct(hours: int, jobs: int, seed: int = 13) -> str:
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2023-01-02") + pd.to_timedelta(rng.integers(0, hours * 3600, jobs), unit="s")
    end = start + pd.to_timedelta(rng.integers(60, 48 * 3600, jobs), unit="s")
    gpus = rng.choice([0, 1, 1, 2, 4, 8], jobs).astype(str)
    tres = np.where(gpus != "0", "billing=8,cpu=8,gres/gpu:a100=" + gpus + ",gres/gpu=" + gpus + ",mem=64G,node=1",
                    "billing=4,cpu=4,mem=16G,node=1")
    columns = [pd.Series(start.strftime("%Y-%m-%dT%H:%M:%S")), pd.Series(end.strftime("%Y-%m-%dT%H:%M:%S")),
               pd.Series(tres), pd.Series(["COMPLETED"] * jobs)]
    rows = pd.Series(np.arange(jobs).astype(str)).str.cat(columns, sep="|")
    return "JobID|Start|End|AllocTRES|State\n" + rows.str.cat(sep="\n") + "\n"


def timed(parse: Callable[[str], UsageSeries], log: str, rows: int, repeat: int) -> None:
    parse_times, summary_times = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        series = parse(log)
        parsed = time.perf_counter()
        summary = summarise(series)
        summary_times.append(time.perf_counter() - parsed)
        parse_times.append(parsed - started)
    parse_median, summary_median = statistics.median(parse_times), statistics.median(summary_times)
    total = parse_median + summary_median
    print(f"  series: {series.hours:,} hours, {len(summary.months)} months, peak {summary.peak:.2f}, "
          f"mean {summary.mean:.2f}, growth {summary.trend.growth_per_month or 0:+.2%}/month")
    print(f"  median parse     {parse_median * 1000:8.1f} ms  ({rows / parse_median / 1e6:.2f} M rows/s)")
    print(f"  median summarise {summary_median * 1000:8.1f} ms")
    print(f"  median total     {total * 1000:8.1f} ms  (parse {parse_median / total:.0%} of it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hours", type=int, default=26_000)
    parser.add_argument("--gpus", type=int, default=4)
    parser.add_argument("--interval", type=int, default=300, help="seconds between samples (nvidia-smi -l)")
    parser.add_argument("--jobs", type=int, default=300_000, help="sacct allocations (0 skips the sacct case)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    log = synthetic_log(args.hours, args.gpus, args.interval)
    rows = log.count("\n") - 1
    print(f"nvidia-smi: {args.hours:,} hours, {args.gpus} GPUs every {args.interval} s = {rows:,} rows, "
          f"{len(log) / 1e6:.1f} MB")
    timed(parse_nvidia_smi, log, rows, args.repeat)
    if args.jobs:
        sacct = synthetic_sacct(args.hours, args.jobs)
        print(f"sacct: {args.jobs:,} allocations over {args.hours:,} hours, {len(sacct) / 1e6:.1f} MB")
        timed(parse_sacct, sacct, args.jobs, args.repeat)


if __name__ == "__main__":
    main()
