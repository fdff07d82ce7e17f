"""sacct --allocations --parsable2: hand-checked hours, running and pending jobs, errors naming line and field."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.usage import UsageFormatError, parse_sacct
from solvers.usage.binning import interval_load

HEADER = "JobID|Start|End|AllocTRES|State\n"
UTC = dt.UTC


def test_sample_hour_by_hour(sample) -> None:
    series = parse_sacct(sample.bytes("sacct_allocations.txt"))
    assert series.start == dt.datetime(2024, 5, 1, 10, tzinfo=UTC)
    # 10h: job 1001 (2 GPUs); 11h: 1001 and 1002 overlap, 2 + 2; 12h: 1002 + a quarter hour of 1004_1's one GPU;
    # 13h: half an hour of 1002 (1.0) + running 1005 (4, until 14:00, the file's last time) + 45 min of 1006 (0.75)
    assert series.busy_gpus.tolist() == [2.0, 4.0, 2.25, 5.75]
    assert series.gpu_hours == pytest.approx(4 + 5 + 0.25 + 4 + 0.75)
    assert series.observed.all()
    assert series.jobs == 5
    assert series.gpu_models == ("a100", "v100")
    assert series.source_format == "slurm"
    assert any("1 running jobs" in note and "2024-05-01T14:00:00Z" in note for note in series.notes)
    assert any("2 allocations never started" in note for note in series.notes)
    # 13:15-13:30: 1002 (2) + 1005 (4) + 1006 (1) = 7 at once, while the hourly average of 13h is 5.75
    assert series.instant_peak == 7.0
    assert "GPU allocations by state: COMPLETED 2, CANCELLED 1, FAILED 1, RUNNING 1" in series.notes


def test_gpu_hours_by_job_width(sample) -> None:
    # 1 GPU: 1004_1 a quarter hour + 1006 three quarters = 1.0; 2 GPUs: 1001 2 h + 1002 2.5 h = 9.0 GPU-hours;
    # 4 GPUs: 1005 from 13:00 to the file's last time, 14:00 = 4.0; the hourly series counts GPUs only, so it says so
    series = parse_sacct(sample.bytes("sacct_allocations.txt"))
    assert series.gpu_hours_by_width == ((1, pytest.approx(1.0)), (2, pytest.approx(9.0)), (4, pytest.approx(4.0)))
    assert series.to_dict()["gpu_hours_by_job_width"] == {"1": 1.0, "2": 9.0, "4": 4.0}
    note = next(n for n in series.notes if n.startswith("GPU-hours by GPUs per allocation"))
    assert "1 GPU 7%, 2 GPUs 64%, 4 GPUs 29%" in note and "jobs.gpus_per_job" in note
    one_wide = parse_sacct(HEADER + "1|2024-05-01T10:00:00|2024-05-01T12:00:00|gres/gpu=1|COMPLETED\n")
    assert one_wide.gpu_hours_by_width == ((1, 2.0),)
    assert not any(n.startswith("GPU-hours by GPUs") for n in one_wide.notes)  # nothing left out


def test_until_extends_running_jobs(sample) -> None:
    series = parse_sacct(sample.text("sacct_allocations.txt"), until=dt.datetime(2024, 5, 1, 15, tzinfo=UTC))
    assert series.busy_gpus.tolist() == [2.0, 4.0, 2.25, 5.75, 4.0]


def test_local_time_zone_moves_the_grid(sample) -> None:
    berlin = parse_sacct(sample.text("sacct_allocations.txt"), tz="Europe/Berlin")  # CEST, UTC+2 in May
    assert berlin.start == dt.datetime(2024, 5, 1, 8, tzinfo=UTC)
    assert berlin.busy_gpus.tolist() == [2.0, 4.0, 2.25, 5.75]
    assert "times read as Europe/Berlin" in berlin.notes


def test_older_allocgres_field(sample) -> None:
    series = parse_sacct(sample.text("sacct_allocgres.txt"))
    # 9h: job 77 (2 GPUs) + half an hour of job 78 (1 GPU); 10h: job 77; job 79 has no GPU
    assert series.busy_gpus.tolist() == [2.5, 2.0]
    assert series.gpu_models == ("tesla",)


def test_step_rows_and_parsable_trailing_bar_do_not_change_the_load() -> None:
    rows = ("JobID|Start|End|AllocTRES|State|\n"
            "5|2024-01-01T00:00:00|2024-01-01T02:00:00|cpu=4,gres/gpu=3,node=1|COMPLETED|\n"
            "5.batch|2024-01-01T00:00:00|2024-01-01T02:00:00|cpu=4,gres/gpu=3,node=1|COMPLETED|\n"
            "5.extern|2024-01-01T00:00:00|2024-01-01T02:00:00|cpu=4,gres/gpu=3,node=1|COMPLETED|\n")
    assert parse_sacct(rows).busy_gpus.tolist() == [3.0, 3.0]


def test_back_to_back_jobs_do_not_count_twice_at_the_handover() -> None:
    rows = (HEADER + "1|2024-01-01T00:00:00|2024-01-01T01:00:00|gres/gpu=2|COMPLETED\n"
            "2|2024-01-01T01:00:00|2024-01-01T02:00:00|gres/gpu=3|COMPLETED\n")
    assert parse_sacct(rows).instant_peak == 3.0


def test_columns_in_another_order_with_extra_fields() -> None:
    rows = ("State|JobName|AllocTRES|End|Start|JobID\n"
            "COMPLETED|train|gres/gpu=2|2024-01-01T00:30:00|2024-01-01T00:00:00|9\n")
    assert parse_sacct(rows).busy_gpus.tolist() == [1.0]


@pytest.mark.parametrize(("row", "line", "field", "words"), [
    ("7|2024-13-01T00:00:00|2024-01-01T01:00:00|gres/gpu=1|COMPLETED", 3, "Start", "not a time"),
    ("7|2024-01-01T00:00:00|yesterday|gres/gpu=1|COMPLETED", 3, "End", "not a time"),
    ("7|2024-01-01T00:00:00|2024-01-01T01:00:00|cpu=2,gres/gpu=two|COMPLETED", 3, "AllocTRES", "whole number"),
    ("7|2024-01-01T05:00:00|2024-01-01T01:00:00|gres/gpu=1|COMPLETED", 3, "End", "before"),
    ("7|2024-01-01T00:00:00|2024-01-01T01:00:00|gres/gpu=1|COMPLETED|extra", 3, "columns", "6 fields"),
    ("7|2024-01-01T00:00:00|2024-01-01T01:00:00|gres/gpu=1", 3, "columns", "4 fields"),
])
def test_bad_rows_name_line_and_field(row: str, line: int, field: str, words: str) -> None:
    good = "6|2024-01-01T00:00:00|2024-01-01T01:00:00|gres/gpu=1|COMPLETED\n"
    with pytest.raises(UsageFormatError) as caught:
        parse_sacct(HEADER + good + row + "\n" + good)
    assert (caught.value.line, caught.value.field) == (line, field)
    assert words in caught.value.rule
    assert f"line {line}, field {field}" in str(caught.value)


def test_header_without_gpu_field_is_refused_on_line_1() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_sacct("JobID|Start|End|State\n1|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n")
    assert (caught.value.line, caught.value.field) == (1, "AllocTRES")


def test_a_log_without_gpu_jobs_is_an_error_not_an_empty_series() -> None:
    with pytest.raises(UsageFormatError, match="no job in the file held a GPU"):
        parse_sacct(HEADER + "1|2024-01-01T00:00:00|2024-01-01T01:00:00|cpu=4,mem=1G,node=1|COMPLETED\n")


def test_unknown_time_zone_is_named() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_sacct(HEADER + "1|2024-01-01T00:00:00|2024-01-01T01:00:00|gres/gpu=1|COMPLETED\n", tz="Mars/Olympus")
    assert caught.value.field == "tz"


jobs = st.lists(
    st.tuples(st.integers(0, 72 * 3600), st.integers(0, 30 * 3600), st.integers(0, 8)), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(jobs)
def test_hourly_binning_preserves_gpu_hours_and_matches_direct_overlap(drawn: list[tuple[int, int, int]]) -> None:
    origin = 1_700_000_000.0
    start = np.array([origin + s for s, _, _ in drawn])
    end = start + np.array([d for _, d, _ in drawn], dtype=np.float64)
    gpus = np.array([g for _, _, g in drawn], dtype=np.float64)
    load = interval_load(start, end, gpus)
    assert load.busy_gpus.sum() == pytest.approx(float((gpus * (end - start)).sum() / 3600), abs=1e-9)
    for h, value in enumerate(load.busy_gpus):  # oracle: overlap of each job with each hour, one by one
        lo, hi = (load.first_hour + h) * 3600.0, (load.first_hour + h + 1) * 3600.0
        expected = sum(g * max(0.0, min(e, hi) - max(s, lo)) for s, e, g in zip(start, end, gpus, strict=True)) / 3600
        assert value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(jobs)
def test_sacct_text_round_trip_preserves_gpu_hours(drawn: list[tuple[int, int, int]]) -> None:
    origin = dt.datetime(2024, 3, 1, tzinfo=UTC)
    lines = []
    for i, (s, d, g) in enumerate(drawn):
        a, b = origin + dt.timedelta(seconds=s), origin + dt.timedelta(seconds=s + d)
        lines.append(f"{i}|{a:%Y-%m-%dT%H:%M:%S}|{b:%Y-%m-%dT%H:%M:%S}|cpu=1,gres/gpu={g},node=1|COMPLETED")
    total = sum(g * d for _, d, g in drawn) / 3600
    if not any(g > 0 for _, _, g in drawn):
        with pytest.raises(UsageFormatError):
            parse_sacct(HEADER + "\n".join(lines))
        return
    series = parse_sacct(HEADER + "\n".join(lines))
    assert series.gpu_hours == pytest.approx(total, abs=1e-9)
    # no hourly average exceeds the most GPUs held at one moment, which no more than all jobs together hold
    assert series.busy_gpus.max() <= series.instant_peak + 1e-9
    assert series.instant_peak <= sum(g for _, _, g in drawn)
