"""The audit as lines a person reads: what `gpuplan catalog audit` prints and a refresh logs."""

from __future__ import annotations

from pricing.audit.model import Audit, RowAudit


def summary(audit: Audit) -> str:
    c = audit.counts()
    return (f"{c['rows']} rows on {audit.on.isoformat()}: {c['flagged']} flagged, {c['quarantined']} quarantined, "
            f"{c['confirmed']} confirmed by a second source, {c['withdrawn']} withdrawn (no longer sold new), "
            f"{c['unexplained']} unexplained")


def flagged_rows(audit: Audit, only: tuple[str, ...] = ()) -> list[RowAudit]:
    """Rows with a flag (of the actions in `only`, when given), quarantined and unexplained first."""
    rows = [r for r in audit.rows.values() if r.flags and (not only or any(f.action in only for f in r.flags))]
    return sorted(rows, key=lambda r: (not r.unexplained, not r.quarantined, r.table, r.label))
