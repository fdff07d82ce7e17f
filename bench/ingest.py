"""Ingest throughput and memory: (a) 100,000 synthetic Azure items over 100 pages, parsed and stored on
SQLite; (b) a synthetic AWS EC2 region price file of 500 MB streamed, parsed and stored.

Each figure comes with a baseline measured in the same run:
(a) the floor: fetching + json-decoding the same 100 pages with bare requests, plus inserting the same
    number of rows with bare sqlite3 executemany. Target: over 20,000 rows/s stored.
(b) the same pipeline on a 5 MB file of the same format, in its own process: the ratio of the two peak
    RSS figures shows whether memory grows with file size. Target: peak RSS under 300 MB.
The HTTP servers run in other threads (a) or another process (b), so their memory is not counted.

Run: python bench/ingest.py [--aws-mb 500] [--azure-items 100000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest_data import azure_page, write_aws_region_csv

from pricing.gpus import bundled_gpus
from pricing.refresh import refresh_source
from pricing.sources.aws import AwsPriceListSource
from pricing.sources.azure import AzureSource
from pricing.sources.base import SourceConfig
from service.core.db import make_engine, migrate

NOW = dt.datetime(2026, 11, 21, tzinfo=dt.UTC)
AWS_PATH = "offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv"


def azure_case(items: int, pages: int, workdir: Path) -> None:
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    prefix = server.url_for("/api/retail/prices") + "?page="
    bodies = [json.dumps(azure_page(items // pages, p, pages, prefix)).encode() for p in range(pages)]

    def answer(request: Request) -> Response:
        return Response(bodies[int(request.args.get("page", "0"))], content_type="application/json")

    server.expect_request("/api/retail/prices").respond_with_handler(answer)
    try:
        # baseline 1: the network + JSON floor
        start = time.perf_counter()
        with requests.Session() as http:
            decoded = [http.get(f"{prefix}{p}", timeout=30).json() for p in range(pages)]
        fetch_floor = time.perf_counter() - start
        rows = [(i["armSkuName"], i["armRegionName"], i["retailPrice"]) for d in decoded for i in d["Items"]]
        # baseline 2: the storage floor
        raw = sqlite3.connect(workdir / "raw.db")
        raw.execute("CREATE TABLE t (sku TEXT, region TEXT, usd REAL)")
        start = time.perf_counter()
        raw.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        raw.commit()
        store_floor = time.perf_counter() - start
        raw.close()
        url = f"sqlite:///{workdir / 'azure.db'}"
        migrate(url)
        engine = make_engine(url)
        source = AzureSource(SourceConfig(base_url=server.url_for("/api/retail/prices")))
        start = time.perf_counter()
        outcome = refresh_source(engine, source, bundled_gpus(), NOW)
        took = time.perf_counter() - start
    finally:
        server.clear()
        server.stop()
    assert outcome.outcome == "ok", outcome.error
    floor = fetch_floor + store_floor
    print(f"(a) Azure: {outcome.rows_seen:,} items over {pages} pages -> {outcome.rows_fetched:,} rows stored "
          f"in {took:.2f} s = {outcome.rows_fetched / took:,.0f} rows/s (target > 20,000)")
    print(f"    baseline (bare requests+json {fetch_floor:.2f} s + bare sqlite3 insert {store_floor:.2f} s) "
          f"= {floor:.2f} s, {len(rows) / floor:,.0f} rows/s; ratio gpuplan/baseline = {took / floor:.2f}x")
    print(f"    peak RSS of this process (holds the 100 served pages too): {peak_rss_mb():.0f} MB")


def aws_child(base_url: str, database: str) -> None:
    """Run in its own process so ru_maxrss is this refresh's peak alone."""
    migrate(database)
    source = AwsPriceListSource(SourceConfig(base_url=base_url, regions=["us-east-1"]))
    start = time.perf_counter()
    outcome = refresh_source(make_engine(database), source, bundled_gpus(), NOW)
    took = time.perf_counter() - start
    print(json.dumps({"outcome": outcome.outcome, "error": outcome.error, "rows_seen": outcome.rows_seen,
                      "rows_stored": outcome.rows_fetched, "seconds": took,
                      "peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """VmHWM, the peak RSS of this process image (ru_maxrss would carry the forking parent's peak over exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def aws_run(size_mb: float, workdir: Path, label: str) -> dict[str, float]:
    root = workdir / label
    target = root / AWS_PATH
    target.parent.mkdir(parents=True)
    rows = write_aws_region_csv(target, int(size_mb * 1024 * 1024))
    server = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1",
                               "--directory", str(root)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port NNNNN ..."
        port = int(line.split(" port ")[1].split()[0])
        done = subprocess.run([sys.executable, __file__, "--aws-child", f"http://127.0.0.1:{port}",
                               f"sqlite:///{workdir / (label + '.db')}"], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    finally:
        server.terminate()
        server.wait()
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["outcome"] == "ok", result
    result["rows_in_file"] = rows
    result["bytes"] = target.stat().st_size
    target.unlink()
    return result


def aws_case(size_mb: float, workdir: Path) -> None:
    small = aws_run(5, workdir, "small")
    big = aws_run(size_mb, workdir, "big")
    for name, r in (("baseline", small), ("large", big)):
        print(f"(b) AWS {name}: {r['bytes'] / 1e6:,.0f} MB, {r['rows_in_file']:,} price rows -> "
              f"{r['rows_stored']:.0f} GPU rows stored in {r['seconds']:.1f} s "
              f"({r['rows_in_file'] / r['seconds']:,.0f} rows/s parsed, {r['bytes'] / 1e6 / r['seconds']:.0f} MB/s); "
              f"peak RSS {r['peak_rss_mb']:.0f} MB")
    print(f"    peak RSS ratio large/baseline = {big['peak_rss_mb'] / small['peak_rss_mb']:.2f}x for a "
          f"{big['bytes'] / small['bytes']:.0f}x larger file (target: peak under 300 MB, independent of size)")


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser()
    parser.add_argument("--azure-items", type=int, default=100_000)
    parser.add_argument("--azure-pages", type=int, default=100)
    parser.add_argument("--aws-mb", type=float, default=500)
    parser.add_argument("--aws-child", nargs=2, metavar=("BASE_URL", "DATABASE_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.aws_child:
        aws_child(*args.aws_child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        azure_case(args.azure_items, args.azure_pages, workdir)
        aws_case(args.aws_mb, workdir)


if __name__ == "__main__":
    main()
