from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def sample() -> type[SampleFiles]:
    return SampleFiles


class SampleFiles:
    @staticmethod
    def text(name: str) -> str:
        return (DATA / name).read_text(encoding="utf-8")

    @staticmethod
    def bytes(name: str) -> bytes:
        return (DATA / name).read_bytes()
