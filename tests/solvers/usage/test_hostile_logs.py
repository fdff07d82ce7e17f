"""Issue 31: usage logs whose times could not become hours, or would become hundreds of millions of them, are
refused before anything is expanded, naming the field and where in the file."""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

import pytest

from solvers.usage import UsageFormatError, parse_nvidia_smi, parse_prometheus, parse_sacct
from solvers.usage.span import MAX_HOURS

SACCT = "JobID|Start|End|AllocTRES|State\n"
SMI = "timestamp, index, utilization.gpu [%]\n"
SMI_WIDE = "timestamp, index, name, utilization.gpu [%]\n"  # another layout: the general reader


def refused(call: Any, field: str, where: str | None = None) -> UsageFormatError:
    """The parser raises at once (well under the seconds an expansion of millions of hours took)."""
    began = time.perf_counter()
    with pytest.raises(UsageFormatError) as raised:
        call()
    assert time.perf_counter() - began < 2.0
    assert raised.value.field == field, raised.value
    if where is not None:
        assert where in raised.value.message, raised.value
    return raised.value


def test_a_running_job_until_the_end_of_the_calendar_names_until() -> None:
    log = SACCT + "1|2026-01-01T00:00:00|Unknown|gres/gpu=1|RUNNING\n"
    refused(lambda: parse_sacct(log, until=dt.datetime(9999, 12, 31, tzinfo=dt.UTC)), "until")
    # within the calendar's bounds but still longer than any profile may be
    error = refused(lambda: parse_sacct(log, until=dt.datetime(2099, 1, 1, tzinfo=dt.UTC)), "until")
    assert f"{MAX_HOURS:,}" in error.message


def test_an_allocation_spanning_a_century_names_its_end_and_line() -> None:
    log = SACCT + "1|2026-01-01T00:00:00|2026-01-02T00:00:00|gres/gpu=1|COMPLETED\n" \
                  "2|2026-01-01T00:00:00|2099-01-02T00:00:00|gres/gpu=1|COMPLETED\n"
    assert refused(lambda: parse_sacct(log), "End").line == 3


def test_sacct_times_outside_the_bounds_are_refused() -> None:
    log = SACCT + "1|1999-12-31T00:00:00|2026-01-02T00:00:00|gres/gpu=1|COMPLETED\n"
    assert refused(lambda: parse_sacct(log), "Start", "2000-01-01").line == 2


def test_a_gpu_count_of_ten_to_the_twentieth_is_a_format_error() -> None:
    log = SACCT + "1|2026-01-01T00:00:00|2026-01-02T00:00:00|gres/gpu=100000000000000000000|COMPLETED\n"
    assert refused(lambda: parse_sacct(log), "AllocTRES", "100,000").line == 2
    log = SACCT + "1|2026-01-01T00:00:00|2026-01-02T00:00:00|gres/gpu=100000|COMPLETED\n"
    assert parse_sacct(log).busy_gpus.max() == 100_000


def _dcgm(values: list[list[Any]]) -> str:
    series = {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0", "Hostname": "node1"}, "values": values}
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}})


@pytest.mark.parametrize("stamp", ["NaN", "Infinity", "-Infinity", "1e300", "-1e12", "1e12"])
def test_dcgm_timestamps_that_are_no_time_are_refused(stamp: str) -> None:
    text = _dcgm([[1.767e9, "50"], ["PLACEHOLDER", "50"]]).replace('"PLACEHOLDER"', stamp)
    refused(lambda: parse_prometheus(text), "timestamp", "values[1][0]")


def test_dcgm_samples_a_century_apart_are_refused_before_binning() -> None:
    text = _dcgm([[dt.datetime(2001, 1, 1, tzinfo=dt.UTC).timestamp(), "50"],
                  [dt.datetime(2099, 1, 1, tzinfo=dt.UTC).timestamp(), "50"]])
    refused(lambda: parse_prometheus(text), "timestamp", "hours")


def test_dcgm_json_nested_fifty_thousand_deep_is_a_format_error() -> None:
    refused(lambda: parse_prometheus("[" * 50_000 + "]" * 50_000), "JSON")


@pytest.mark.parametrize("header", [SMI, SMI_WIDE])
def test_an_nvidia_smi_sample_of_year_5000_is_not_read_as_2077(header: str) -> None:
    name = ", NVIDIA A100" if header == SMI_WIDE else ""
    log = header + f"2026/01/01 00:00:00.000, 0{name}, 50 %\n5000/01/01 00:00:00.000, 0{name}, 50 %\n"
    assert refused(lambda: parse_nvidia_smi(log), "timestamp", "2100-12-31").line == 3


def test_nvidia_smi_samples_a_century_apart_are_refused_before_binning() -> None:
    log = SMI + "2001/01/01 00:00:00.000, 0, 50 %\n2099/01/01 00:00:00.000, 0, 50 %\n"
    refused(lambda: parse_nvidia_smi(log), "timestamp", "hours")


def test_a_log_of_the_longest_span_is_still_read() -> None:
    first = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    last = first + dt.timedelta(hours=MAX_HOURS - 1)
    series = parse_prometheus(_dcgm([[first.timestamp(), "50"], [last.timestamp(), "50"]]))
    assert series.hours == MAX_HOURS
