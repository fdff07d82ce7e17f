"""Loopback replays of every price source, in each provider's real response format.

Each module here defines one `Replay` subclass; `all_replays()` finds them all, so the fault tests in
tests/pricing/test_faults.py run against every source without listing them by hand.
"""

from __future__ import annotations

import importlib
import pkgutil

from tests.pricing.replays.base import Replay


def all_replays() -> list[Replay]:
    found: list[Replay] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Replay) and value is not Replay \
                    and value.__module__ == module.__name__:
                found.append(value())
    return found
