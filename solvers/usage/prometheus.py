"""DCGM exporter data through Prometheus: the JSON of `GET /api/v1/query_range?query=DCGM_FI_DEV_GPU_UTIL`.

`{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {labels},
"values": [[unix_seconds, "87"], ...]}, ...]}}`: one series per GPU with the exporter's labels
(`gpu`, `UUID`, `modelName`, `Hostname`, plus the scrape's `instance` and `job`). Timestamps are
Unix seconds, so no time zone is involved. A query that wraps the metric (`avg_over_time(...)`)
drops `__name__` and is accepted; a series of another metric is refused.

Prometheus answers at most 11,000 points per series and query (prometheus/prometheus,
web/api/v1/api.go, queryRange), so three years at a 5-minute step take about thirty queries: a
file may hold a JSON list of responses, read as one log (paths then start `[k].`).

Readings: a GPU is its `UUID`, else its `Hostname`/`instance` with `gpu`; several series of one
GPU (a relabelled pod, a restarted exporter, overlapping queries) are averaged within the hour,
not added. `NaN` values are missing samples. How a percentage becomes busy GPUs: see
`solvers.usage.busy`.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from solvers.usage.binning import FloatArray, sample_load
from solvers.usage.busy import BUSY_THRESHOLD_PERCENT, busy_fraction, describe
from solvers.usage.errors import UsageFormatError
from solvers.usage.result import UsageSeries
from solvers.usage.span import RANGE_RULE, check_span, first_out_of_range
from solvers.usage.text import decode

FORMAT = "prometheus"
METRIC = "DCGM_FI_DEV_GPU_UTIL"


def parse_prometheus(data: str | bytes | dict[str, Any] | list[Any],
                     busy_threshold: float | None = BUSY_THRESHOLD_PERCENT) -> UsageSeries:
    """Average busy GPUs per UTC hour from range-query responses; raises UsageFormatError naming the JSON path."""
    document = data if isinstance(data, (dict, list)) else _load(decode(data))
    if isinstance(document, list):
        if not document:
            raise UsageFormatError("document", "an empty list of responses", path="$")
        results = [(f"[{k}].", _matrix(response, f"[{k}].")) for k, response in enumerate(document)]
    else:
        results = [("", _matrix(document, ""))]
    times: list[FloatArray] = []
    values: list[FloatArray] = []
    gpu_keys: list[str] = []
    hosts: set[str] = set()
    models: set[str] = set()
    for prefix, i, series in ((p, i, s) for p, result in results for i, s in enumerate(result)):
        where = f"{prefix}data.result[{i}]"
        if not isinstance(series, dict) or not isinstance(series.get("metric"), dict):
            raise UsageFormatError("metric", "each result needs a metric object", path=where)
        labels: dict[str, Any] = series["metric"]
        name = labels.get("__name__", METRIC)
        if name != METRIC:
            raise UsageFormatError("__name__", f"{name!r} is not {METRIC}", path=f"{where}.metric")
        host = str(labels.get("Hostname") or labels.get("instance") or "")
        if "UUID" not in labels and "gpu" not in labels:
            raise UsageFormatError("gpu", "a series needs a gpu or UUID label to tell GPUs apart",
                                   path=f"{where}.metric")
        gpu_keys.append(str(labels.get("UUID") or f"{host}/{labels['gpu']}"))
        hosts.add(host)
        if labels.get("modelName"):
            models.add(str(labels["modelName"]))
        t, v = _samples(series.get("values"), f"{where}.values")
        times.append(t)
        values.append(v)

    gpu_of_series, gpus = pd.factorize(pd.Series(gpu_keys, dtype=object))
    lengths = [t.size for t in times]
    seconds = np.concatenate(times) if times else np.zeros(0)
    percent = np.concatenate(values) if values else np.zeros(0)
    gpu_ids = np.repeat(gpu_of_series.astype(np.int64), lengths)
    keep = ~np.isnan(percent)
    if not keep.any():
        raise UsageFormatError("values", "no samples in the response", path=f"{results[0][0]}data.result")
    first, last = float(seconds[keep].min()), float(seconds[keep].max())
    check_span(first, last, "timestamp", path=f"{results[0][0]}data.result")
    load = sample_load(seconds[keep], gpu_ids[keep], busy_fraction(percent[keep], busy_threshold))
    notes = [f"{int(keep.sum())} samples of {len(gpus)} GPUs in {len(times)} series"]
    if (missing := int((~keep).sum())):
        notes.append(f"{missing} NaN samples left out")
    if (gaps := int((~load.observed).sum())):
        notes.append(f"{gaps} hours without any sample (gaps, left out of the summary)")
    return UsageSeries(
        start=dt.datetime.fromtimestamp(load.first_hour * 3600, dt.UTC), busy_gpus=load.busy_gpus,
        source_format=FORMAT, observed=load.observed, gpu_count=len(gpus), host_count=len(hosts - {""}) or None,
        gpu_models=tuple(sorted(models)), busy_rule=describe(busy_threshold), notes=tuple(notes),
    )


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageFormatError("JSON", f"{exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except RecursionError:  # nesting deeper than the parser's stack (50,000 brackets answered 500, issue 31)
        raise UsageFormatError("JSON", "nested too deeply to be a query_range response", path="$") from None


def _matrix(document: Any, prefix: str) -> list[Any]:
    if not isinstance(document, dict):
        raise UsageFormatError("document", "expected a JSON object", path=prefix.rstrip(".") or "$")
    if document.get("status") != "success":
        raise UsageFormatError("status", f"{document.get('status')!r}, expected 'success'", path=f"{prefix}status")
    data = document.get("data")
    if not isinstance(data, dict):
        raise UsageFormatError("data", "missing or not an object", path=f"{prefix}data")
    if data.get("resultType") != "matrix":
        raise UsageFormatError("resultType", f"{data.get('resultType')!r}, expected 'matrix' (use query_range)",
                               path=f"{prefix}data.resultType")
    result = data.get("result")
    if not isinstance(result, list):
        raise UsageFormatError("result", "missing or not a list", path=f"{prefix}data.result")
    return result


def _samples(raw: Any, where: str) -> tuple[FloatArray, FloatArray]:
    """Timestamps and percentages of one series, converted in numpy; the element-wise search runs only on error."""
    if not isinstance(raw, list):
        raise UsageFormatError("values", "missing or not a list", path=where)
    try:
        pairs = np.array(raw, dtype=object)
        if pairs.size == 0:
            return np.zeros(0), np.zeros(0)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError
        times = pairs[:, 0].astype(np.float64)
        percent = pairs[:, 1].astype(str).astype(np.float64)
    except (ValueError, TypeError):
        _raise_first_bad(raw, where)
    if (at := first_out_of_range(times)) is not None:  # NaN, infinite, or -1e12 s (280 million hours)
        raise UsageFormatError("timestamp", f"{str(raw[at][0])[:40]!r} (Unix seconds) {RANGE_RULE}",
                               path=f"{where}[{at}][0]")
    if (bad := (percent < 0) | (percent > 100)).any():
        at = int(np.argmax(bad))
        raise UsageFormatError("value", f"{raw[at][1]!r} is not a percentage from 0 to 100", path=f"{where}[{at}][1]")
    return times, percent


def _raise_first_bad(raw: list[Any], where: str) -> NoReturn:
    for k, pair in enumerate(raw):
        if not isinstance(pair, list) or len(pair) != 2:
            raise UsageFormatError("values", "each sample is [unix_seconds, \"value\"]", path=f"{where}[{k}]")
        for position, field, rule in ((0, "timestamp", "is not Unix seconds"), (1, "value", "is not a number")):
            try:
                float(str(pair[position]))
            except ValueError:
                raise UsageFormatError(field, f"{pair[position]!r} {rule}", path=f"{where}[{k}][{position}]") from None
    raise UsageFormatError("values", "cannot be read as samples", path=where)
