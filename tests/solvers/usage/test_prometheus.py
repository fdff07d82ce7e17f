"""DCGM_FI_DEV_GPU_UTIL from a Prometheus range query: GPUs by UUID, relabelled series, errors naming JSON paths."""

from __future__ import annotations

import copy
import datetime as dt
import json
from typing import Any

import pytest

from solvers.usage import UsageFormatError, parse_prometheus


def _document(sample) -> dict[str, Any]:
    return json.loads(sample.text("dcgm_query_range.json"))


def test_sample_hour_by_hour(sample) -> None:
    series = parse_prometheus(sample.bytes("dcgm_query_range.json"))
    assert series.start == dt.datetime(2024, 5, 1, 11, tzinfo=dt.UTC)
    # 11h: node-01 GPU 0: 87, 90, 0, 100 -> 3 of 4; GPU 1 idle; node-02 GPU 0 at 50% all hour: 0.75 + 0 + 1
    # 12h: node-01 GPU 0: 95, 96 -> 1; GPU 1: 12 and NaN (left out) -> 1; node-02 not sampled
    assert series.busy_gpus.tolist() == [1.75, 2.0]
    assert (series.gpu_count, series.host_count) == (3, 2)
    assert series.gpu_models == ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3")
    assert any("1 NaN samples" in note for note in series.notes)


def test_a_relabelled_series_of_one_gpu_is_averaged_not_added(sample) -> None:
    document = _document(sample)
    again = copy.deepcopy(document["data"]["result"][2])  # node-02's GPU again, e.g. after a pod relabel
    again["metric"]["pod"] = "dcgm-exporter-7x2kq"
    again["values"] = [[v[0], "0"] for v in again["values"]]
    document["data"]["result"].append(again)
    series = parse_prometheus(json.dumps(document))
    assert series.gpu_count == 3
    assert series.busy_gpus.tolist() == [0.75 + 0 + 0.5, 2.0]


def test_a_wrapping_query_without_metric_name_is_accepted(sample) -> None:
    document = _document(sample)
    for result in document["data"]["result"]:
        del result["metric"]["__name__"]
    assert parse_prometheus(document).busy_gpus.tolist() == [1.75, 2.0]


def _broken(sample, change) -> UsageFormatError:  # type: ignore[no-untyped-def]
    document = _document(sample)
    change(document)
    with pytest.raises(UsageFormatError) as caught:
        parse_prometheus(json.dumps(document))
    return caught.value


@pytest.mark.parametrize(("change", "path", "field"), [
    (lambda d: d.update(status="error"), "status", "status"),
    (lambda d: d["data"].update(resultType="vector"), "data.resultType", "resultType"),
    (lambda d: d["data"]["result"][1]["values"][2].__setitem__(1, "busy"), "data.result[1].values[2][1]", "value"),
    (lambda d: d["data"]["result"][1]["values"][3].__setitem__(1, "101"), "data.result[1].values[3][1]", "value"),
    (lambda d: d["data"]["result"][0]["values"][1].__setitem__(0, "soon"), "data.result[0].values[1][0]",
     "timestamp"),
    (lambda d: d["data"]["result"][2]["values"].__setitem__(0, [1714561200]), "data.result[2].values[0]", "values"),
    (lambda d: d["data"]["result"][2]["metric"].update(__name__="DCGM_FI_DEV_MEM_COPY_UTIL"),
     "data.result[2].metric", "__name__"),
    (lambda d: [d["data"]["result"][0]["metric"].pop(k) for k in ("gpu", "UUID")], "data.result[0].metric", "gpu"),
])
def test_bad_documents_name_path_and_field(sample, change, path: str, field: str) -> None:  # type: ignore[no-untyped-def]
    error = _broken(sample, change)
    assert (error.path, error.field) == (path, field)
    assert str(error).startswith(f"{path}, field {field}")


def test_a_list_of_responses_is_one_log(sample) -> None:
    """Long ranges take several queries (11,000 points per series): split the sample's range in two."""
    first, second = _document(sample), _document(sample)
    for result in first["data"]["result"]:
        result["values"] = [v for v in result["values"] if v[0] < 1714564800]   # 11h
    for result in second["data"]["result"]:
        result["values"] = [v for v in result["values"] if v[0] >= 1714564800]  # 12h
    series = parse_prometheus(json.dumps([first, second]))
    assert series.busy_gpus.tolist() == [1.75, 2.0]
    assert series.gpu_count == 3


def test_a_bad_response_in_a_list_is_named_by_its_position(sample) -> None:
    broken = _document(sample)
    broken["data"]["result"][0]["values"][0][1] = "n/a"
    with pytest.raises(UsageFormatError) as caught:
        parse_prometheus(json.dumps([_document(sample), broken]))
    assert caught.value.path == "[1].data.result[0].values[0][1]"


def test_invalid_json_names_its_line() -> None:
    with pytest.raises(UsageFormatError) as caught:
        parse_prometheus('{"status": "success",\n "data": {"resultType": "matrix",\n "result": [}}')
    assert (caught.value.line, caught.value.field) == (3, "JSON")
