"""Every ORM table of the service on one metadata: what Alembic compares with the migrated database.

Domain tables live in their domain (`service/<domain>/tables.py`); importing them registers them on
`Base.metadata`. Imported inside the function, so plumbing does not import the domains at module load.
"""

from __future__ import annotations

import importlib

TABLE_MODULES = (
    "service.plans.tables",
    "service.profiles.tables",
    "service.alerts.tables",
    "service.labs.tables",
    "service.core.idempotency",
)


def register_tables() -> None:
    for name in TABLE_MODULES:
        importlib.import_module(name)
