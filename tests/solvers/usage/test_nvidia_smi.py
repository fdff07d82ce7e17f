"""nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l N: busy rule, gaps, overlaps, errors."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.usage import UsageFormatError, parse_nvidia_smi, summarise
from solvers.usage.nvidia_smi import read_any_layout, read_standard_layout

HEADER = "timestamp, index, utilization.gpu [%]\n"
UTC = dt.UTC


def test_sample_with_the_default_threshold(sample) -> None:
    series = parse_nvidia_smi(sample.bytes("nvidia_smi.csv"))
    assert series.start == dt.datetime(2024, 5, 1, 11, tzinfo=UTC)
    # 11h: GPU 0 at 87% (busy), GPU 1 at 0%: 1 + 0
    # 12h: GPU 0 92, 40, 0, 100 -> 3 of 4 busy; GPU 1 3, 0, 55, 61 -> 2 of 4 (3% is below 5%): 0.75 + 0.5
    # 13h: GPU 0 97, 2 -> 1 of 2; GPU 1 [N/A] (left out), 100 -> 1 of 1: 0.5 + 1
    assert series.busy_gpus.tolist() == [1.0, 1.25, 1.5]
    assert (series.gpu_count, series.host_count) == (2, 1)
    assert series.observed.all()
    assert any("1 samples without a utilisation value" in note for note in series.notes)
    assert "5%" in series.busy_rule


def test_sample_with_the_fractional_rule(sample) -> None:
    series = parse_nvidia_smi(sample.text("nvidia_smi.csv"), busy_threshold=None)
    expected = [0.87, (0.92 + 0.40 + 0 + 1.0) / 4 + (0.03 + 0 + 0.55 + 0.61) / 4, (0.97 + 0.02) / 2 + 1.0]
    assert series.busy_gpus.tolist() == pytest.approx(expected)


def test_local_time_zone(sample) -> None:
    series = parse_nvidia_smi(sample.text("nvidia_smi.csv"), tz="America/New_York")  # EDT, UTC-4 in May
    assert series.start == dt.datetime(2024, 5, 1, 15, tzinfo=UTC)


def test_autumn_hour_read_twice_lands_in_one_utc_hour() -> None:
    rows = HEADER + "2024/10/27 02:30:00.000, 0, 90 %\n2024/10/27 02:30:00.000, 0, 0 %\n"
    series = parse_nvidia_smi(rows, tz="Europe/Berlin")  # 02:30 happens twice that night; read as CEST
    assert series.start == dt.datetime(2024, 10, 27, 0, tzinfo=UTC)
    assert series.busy_gpus.tolist() == [0.5]


def test_nounits_whole_seconds_extra_fields_and_repeated_header() -> None:
    rows = ("timestamp, name, index, utilization.gpu [%], memory.used [MiB]\n"
            "2024/05/01 00:10:00, NVIDIA GeForce RTX 4090, 0, 80, 20000\n"
            "timestamp, name, index, utilization.gpu [%], memory.used [MiB]\n"
            "2024/05/01 00:20:00, NVIDIA GeForce RTX 4090, 0, 0, 20000\n")
    series = parse_nvidia_smi(rows)
    assert series.busy_gpus.tolist() == [0.5]
    assert series.gpu_models == ("NVIDIA GeForce RTX 4090",)


def test_overlapping_logs_are_averaged_not_added(sample) -> None:
    once = parse_nvidia_smi(sample.text("nvidia_smi.csv"))
    body = sample.text("nvidia_smi.csv").split("\n", 1)[1]
    twice = parse_nvidia_smi(HEADER + body + body)  # the same log appended twice
    assert twice.busy_gpus.tolist() == once.busy_gpus.tolist()


def test_gaps_are_marked_and_left_out_of_the_summary() -> None:
    rows = HEADER + "2024/05/01 00:00:00.000, 0, 100 %\n2024/05/01 03:59:00.000, 0, 100 %\n"
    series = parse_nvidia_smi(rows)
    assert series.busy_gpus.tolist() == [1.0, 0.0, 0.0, 1.0]
    assert series.observed.tolist() == [True, False, False, True]
    summary = summarise(series)
    assert (summary.observed_hours, summary.mean, summary.p50) == (2, 1.0, 1.0)
    assert any("2 hours without any sample" in note for note in series.notes)


@pytest.mark.parametrize(("row", "field", "words"), [
    ("2024/05/01 25:00:00.000, 0, 50 %", "timestamp", "not a time"),
    ("2024/02/30 12:00:00.000, 0, 50 %", "timestamp", "not a time"),
    ("2024/05/01 12:00:00.000, 0, 50 %, 1", "columns", "4 fields"),
    ("May 1 2024 12:00, 0, 50 %", "timestamp", "not a time"),
    ("2024/05/01 12:00:00.000, 0, 50 percent", "utilization.gpu [%]", "not a percentage"),
    ("2024/05/01 12:00:00.000, 0, 150 %", "utilization.gpu [%]", "0 to 100"),
    ("2024/05/01 12:00:00.000, gpu0, 50 %", "index", "not a GPU index"),
    ("2024/05/01 12:00:00.000, 0", "columns", "2 fields"),
])
def test_bad_lines_name_line_and_field(row: str, field: str, words: str) -> None:
    good = "2024/05/01 12:00:00.000, 1, 10 %\n"
    with pytest.raises(UsageFormatError) as caught:
        parse_nvidia_smi(HEADER + good + good + row + "\n" + good)
    assert (caught.value.line, caught.value.field) == (4, field)
    assert words in caught.value.rule


def test_blank_lines_keep_line_numbers_right() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_nvidia_smi(HEADER + "\n2024/05/01 12:00:00.000, 0, 10 %\n\n2024/05/01 12:00:00.000, 0, x %\n")
    assert caught.value.line == 5


def test_header_must_name_utilisation() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_nvidia_smi("timestamp, index, memory.used [MiB]\n2024/05/01 12:00:00.000, 0, 10 MiB\n")
    assert (caught.value.line, caught.value.field) == (1, "utilization.gpu")


def test_a_log_of_only_missing_values_is_an_error() -> None:
    with pytest.raises(UsageFormatError, match="every sample is missing"):
        parse_nvidia_smi(HEADER + "2024/05/01 12:00:00.000, 0, [N/A]\n")


def test_the_sample_takes_the_fast_reader_and_both_readers_agree(sample) -> None:
    text = sample.text("nvidia_smi.csv")
    fast, general = read_standard_layout(text), read_any_layout(text)
    assert fast is not None
    assert fast.local_ns.tolist() == general.local_ns.tolist()
    assert np.array_equal(fast.percent, general.percent, equal_nan=True)
    assert (fast.gpu.tolist(), fast.gpus) == (general.gpu.tolist(), general.gpus)


@pytest.mark.parametrize("odd", [
    "timestamp, index, utilization.gpu [%]\n",            # a header repeated by an appended log
    "2024/05/01 12:00:00.000, 0, [Unknown]\n",            # a bracketed value outside the known list
])
def test_odd_lines_go_to_the_general_reader(sample, odd: str) -> None:
    text = sample.text("nvidia_smi.csv") + odd
    assert read_standard_layout(text) is None
    assert parse_nvidia_smi(text).hours == 3


rows = st.lists(st.tuples(
    st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2030, 12, 31)),
    st.integers(0, 7), st.one_of(st.integers(0, 100), st.just(-1)), st.booleans()), min_size=1, max_size=60)


@settings(max_examples=100, deadline=None)
@given(rows, st.booleans())
def test_fast_and_general_readers_read_the_same_samples(drawn, units: bool) -> None:  # type: ignore[no-untyped-def]
    lines = [HEADER.rstrip("\n")]
    for when, index, percent, whole_seconds in drawn:  # some nvidia-smi builds print no milliseconds
        millis = "" if whole_seconds else f".{when.microsecond // 1000:03d}"
        value = "[N/A]" if percent < 0 else f"{percent}{' %' if units else ''}"
        lines.append(f"{when:%Y/%m/%d %H:%M:%S}{millis}, {index}, {value}")
    text = "\n".join(lines) + "\n"
    fast, general = read_standard_layout(text), read_any_layout(text)
    assert fast is not None
    assert fast.local_ns.tolist() == general.local_ns.tolist()
    assert np.array_equal(fast.percent, general.percent, equal_nan=True)
    assert (fast.gpu.tolist(), fast.gpus) == (general.gpu.tolist(), general.gpus)
