"""One row per offer, the freshest wins: the rule the bundle builder applies to every source it reads.

An offer is a provider's instance in a region under a pricing model (`provider`, `name`, `region`, `pricing`).
Sources overlap: the price monitor, page quotes and the previous bundle can all price the same instance, on
different dates, and before this rule the builder kept a row of one source whenever another source's instance
name or region was spelt differently, so a 2025 price could stand beside (or instead of) a 2026 one. Here the
newest `as_of` wins, whichever source it came from, and every row left out is reported with the row that
superseded it. A row whose region is `global` (a provider that bills one price everywhere, or a source that
does not say where) speaks for every region of its instance: it supersedes older regional rows of the same
instance and pricing model, and a newer regional row supersedes it only in that region (both are kept).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

GLOBAL = "global"

Row = dict[str, str]


@dataclass(frozen=True)
class Superseded:
    """A row left out and the fresher row that prices the same offer."""

    dropped: Row
    by: Row

    def describe(self) -> str:
        d, b = self.dropped, self.by
        return (f"{d['provider']} {d['name']} {d['region']} {d['pricing']}: {d['usd_per_hour']} USD/h of "
                f"{d['as_of']} superseded by {b['usd_per_hour']} USD/h of {b['as_of']} ({b['region']}, "
                f"{_short(b['source'])})")


def _short(source: str) -> str:
    return source if len(source) <= 70 else source[:67] + "..."


def _covers(newer: Row, older: Row) -> bool:
    """Whether `newer` prices the offer `older` prices: the same region, or a global row."""
    return newer["region"] == older["region"] or newer["region"] == GLOBAL


def freshest(rows: Iterable[Row]) -> tuple[list[Row], list[Superseded]]:
    """The rows no fresher row of the same offer supersedes, in their input order, and the superseded ones.

    Of two rows of the same offer and date the first given wins (callers pass sources in order of trust), so
    the result never holds two prices for one offer and date."""
    rows = list(rows)
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[(row["provider"], row["name"], row["pricing"])].append(i)
    dropped: dict[int, int] = {}
    for members in groups.values():
        for i in members:
            for j in members:
                if i == j or not _covers(rows[j], rows[i]):
                    continue
                newer = rows[j]["as_of"] > rows[i]["as_of"]
                same_day_first = (rows[j]["as_of"] == rows[i]["as_of"] and rows[j]["region"] == rows[i]["region"]
                                  and j < i)
                if newer or same_day_first:
                    best = dropped.get(i)
                    if best is None or rows[j]["as_of"] > rows[best]["as_of"]:
                        dropped[i] = j
    kept = [row for i, row in enumerate(rows) if i not in dropped]
    return kept, [Superseded(rows[i], rows[j]) for i, j in sorted(dropped.items())]
