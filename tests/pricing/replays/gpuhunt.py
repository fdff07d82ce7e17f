"""gpuhunt's offline catalog replayed from loopback: the version answer and a zip of provider CSVs
(tests/pricing/sources/data/gpuhunt, see its README for where the rows come from)."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.gpuhunt import GpuHuntSource
from tests.pricing.replays.base import DATA, Replay

FILES = DATA / "gpuhunt"
VERSION = "20260818-18900"


def catalog_zip(price_scale: float = 1.0, header_only: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(FILES.glob("*.csv")):
            reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=reader.fieldnames or [], lineterminator="\n")
            writer.writeheader()
            for row in [] if header_only else reader:
                row["price"] = f"{float(row['price']) * price_scale:g}"
                writer.writerow(row)
            zipped.writestr(path.name, out.getvalue())
    return buffer.getvalue()


class GpuHuntReplay(Replay):
    source_class: ClassVar[type[Source]] = GpuHuntSource

    def _version(self, server: HTTPServer) -> None:
        server.expect_request("/v2/version", method="GET").respond_with_data(VERSION, content_type="text/plain")

    def _zip(self, server: HTTPServer, body: bytes) -> None:
        server.expect_request(f"/v2/{VERSION}/catalog.zip", method="GET").respond_with_data(
            body, content_type="application/zip")

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        self._version(server)
        self._zip(server, catalog_zip(price_scale))

    def install_empty(self, server: HTTPServer) -> None:
        self._version(server)
        self._zip(server, catalog_zip(header_only=True))

    def install_truncated(self, server: HTTPServer) -> None:
        self._version(server)
        body = catalog_zip()
        self._zip(server, body[: len(body) // 2])
