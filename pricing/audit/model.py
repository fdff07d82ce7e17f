"""What the catalog audit says about each price row: its flags, what was done about each, and the counts.

Kept apart from the checks so `pricing.catalog` can hold an `Audit` without importing them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

# what a flag led to: quarantined (held back from plans, kept and shown), confirmed (a second, independent source
# prices the same thing alike, so the row stays in plans), withdrawn (a new card no longer sold new: history only),
# noted (explained by the flag's own reason: an age, or the other side of a quarantined pair), unexplained (the
# audit cannot say what is right: `gpuplan catalog audit` exits non-zero)
ACTIONS = ("quarantined", "confirmed", "withdrawn", "noted", "unexplained")


@dataclass(frozen=True)
class Flag:
    check: str
    reason: str
    action: str
    confirmed_by: str = ""

    def text(self) -> str:
        extra = f"; confirmed by {self.confirmed_by}" if self.confirmed_by else ""
        return f"{self.check}: {self.reason}{extra} [{self.action}]"


@dataclass
class RowAudit:
    """One price row: which table, its key, a label a person recognises, its age and its flags."""

    table: str  # cloud | commitment | hardware
    key: str
    label: str
    as_of: str
    age_days: int
    source: str
    flags: list[Flag] = field(default_factory=list)

    @property
    def quarantined(self) -> bool:
        return any(f.action == "quarantined" for f in self.flags)

    @property
    def unexplained(self) -> bool:
        return any(f.action == "unexplained" for f in self.flags)


@dataclass
class Audit:
    on: dt.date
    rows: dict[str, RowAudit] = field(default_factory=dict)

    def flags_of(self, key: str) -> list[Flag]:
        row = self.rows.get(key)
        return list(row.flags) if row is not None else []

    def quarantined_keys(self) -> set[str]:
        return {k for k, r in self.rows.items() if r.quarantined}

    def counts(self) -> dict[str, int]:
        rows = list(self.rows.values())
        return {
            "rows": len(rows),
            "flagged": sum(1 for r in rows if r.flags),
            "quarantined": sum(1 for r in rows if r.quarantined),
            "confirmed": sum(1 for r in rows if any(f.action == "confirmed" for f in r.flags)),
            "withdrawn": sum(1 for r in rows if any(f.action == "withdrawn" for f in r.flags)),
            "unexplained": sum(1 for r in rows if r.unexplained),
        }
