"""What a source replay provides: good, empty and truncated answers on a pytest-httpserver instance."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from pytest_httpserver import HTTPServer

from pricing.sources.base import Source, SourceConfig

# replay data lives in the repository (CI checks out only the project, never ../shared)
DATA = Path(__file__).resolve().parent.parent / "sources" / "data"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class Replay(ABC):
    """One source served from loopback. Subclasses set `source_class` and the three installers.

    `price_scale` multiplies every price the good answer carries, so the same data can play a drop of
    80% (0.2), a rise of 400% (5.0), a zero (0.0) or a negative price (-1.0).
    """

    source_class: ClassVar[type[Source]]
    credentials: ClassVar[dict[str, str]] = {}  # config fields to set so a credentialed source is enabled

    @property
    def key(self) -> str:
        return self.source_class.key

    def config(self, server: HTTPServer, **overrides: Any) -> SourceConfig:
        """Short timeout, few retries and no back-off, so fault tests run in well under a second each."""
        values: dict[str, Any] = {
            "base_url": server.url_for("/").rstrip("/"), "timeout_s": 1.0, "retries": 2, "backoff_s": 0.0,
            "max_wait_s": 0.0, **self.credentials, **overrides,
        }
        return SourceConfig(**values)

    def source(self, server: HTTPServer, **overrides: Any) -> Source:
        return self.source_class(self.config(server, **overrides))

    @abstractmethod
    def install_good(self, server: HTTPServer, price_scale: float = 1.0) -> None:
        """Serve a complete, valid answer (all pages) with at least two GPUs priced."""

    @abstractmethod
    def install_empty(self, server: HTTPServer) -> None:
        """Serve a well-formed answer that holds no prices at all."""

    @abstractmethod
    def install_truncated(self, server: HTTPServer) -> None:
        """Serve the answer cut short: a page sequence whose next page fails, or a body that ends mid-way."""
