"""Format detection and decoding, shared by the CLI's --format auto."""

from __future__ import annotations

import pytest

from solvers.usage import UsageFormatError, detect_format, parse_usage


@pytest.mark.parametrize(("name", "expected"), [
    ("sacct_allocations.txt", "slurm"), ("sacct_allocgres.txt", "slurm"),
    ("nvidia_smi.csv", "nvidia-smi"), ("dcgm_query_range.json", "prometheus"),
])
def test_each_sample_is_recognised(sample, name: str, expected: str) -> None:
    assert detect_format(sample.text(name)) == expected
    assert parse_usage(sample.bytes(name)).source_format == expected


def test_byte_order_mark_and_crlf_line_ends(sample) -> None:
    text = sample.text("sacct_allocations.txt").replace("\n", "\r\n")
    assert parse_usage(b"\xef\xbb\xbf" + text.encode()).busy_gpus.tolist() == [2.0, 4.0, 2.25, 5.75]


def test_unknown_format_is_named_on_line_1() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_usage("date,gpus\n2024-01-01,3\n")
    assert (caught.value.line, caught.value.field) == (1, "format")


def test_forced_format_reports_the_format_s_own_error(sample) -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_usage(sample.text("nvidia_smi.csv"), format="slurm")
    assert caught.value.line == 1


def test_bytes_that_are_not_utf8_name_their_line() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_usage(b"JobID|Start|End|AllocTRES|State\n1|\xff|x|y|z\n")
    assert (caught.value.line, caught.value.field) == (2, "encoding")


def test_empty_file() -> None:
    with pytest.raises(UsageFormatError):
        parse_usage("")
