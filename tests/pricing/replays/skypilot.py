"""SkyPilot catalog files replayed from loopback: Nebius (a price list with spot) and Vast (a marketplace).

The data are real v8 files of skypilot-org/skypilot-catalog: `catalogs/v8/nebius/vms.csv` @ 0082b0435f39
(whole file, some CPU rows left out) and rows of `catalogs/v8/vast/vms.csv` @ 01b8cdda2878, unchanged.
"""

from __future__ import annotations

import csv
import io
from typing import ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source
from pricing.sources.skypilot import SkyPilotNebius, SkyPilotVast
from tests.pricing.replays.base import DATA, Replay

NEBIUS = DATA / "skypilot" / "nebius-vms.csv"
VAST = DATA / "skypilot" / "vast-vms.csv"


def scaled_csv(text: str, price_scale: float) -> str:
    """The file with every Price and SpotPrice multiplied, in SkyPilot's layout (empty cells stay empty)."""
    reader = csv.DictReader(io.StringIO(text))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=reader.fieldnames or [], lineterminator="\n")
    writer.writeheader()
    for row in reader:
        for column in ("Price", "SpotPrice"):
            if row.get(column):
                row[column] = f"{float(row[column]) * price_scale:g}"
        writer.writerow(row)
    return out.getvalue()


class SkyPilotNebiusReplay(Replay):
    source_class: ClassVar[type[Source]] = SkyPilotNebius
    data = NEBIUS
    path = "/catalogs/v8/nebius/vms.csv"

    def text(self, price_scale: float = 1.0) -> str:
        return scaled_csv(self.data.read_text(encoding="utf-8"), price_scale)

    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        body = self.text(price_scale)
        server.expect_request(self.path, method="GET").respond_with_data(body, content_type="text/csv")

    def install_empty(self, server: HTTPServer) -> None:
        header = self.data.read_text(encoding="utf-8").splitlines()[0]
        server.expect_request(self.path, method="GET").respond_with_data(header + "\n", content_type="text/csv")

    def install_truncated(self, server: HTTPServer) -> None:
        text = self.text()
        middle = text.index("\n", len(text) // 2) + 12  # a few characters into a row: the body ends mid-row
        server.expect_request(self.path, method="GET").respond_with_data(text[:middle], content_type="text/csv")


class SkyPilotVastReplay(SkyPilotNebiusReplay):
    source_class: ClassVar[type[Source]] = SkyPilotVast
    data = VAST
    path = "/catalogs/v8/vast/vms.csv"
