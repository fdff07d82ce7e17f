"""Is this database ready to serve: reachable, and migrated to the schema this code expects?

Why not just "can connect": a replica of a newer release started before `gpuplan migrate` finished would
answer with errors about missing columns; a load balancer should keep traffic away until the migration
is done, and an old replica after an upgrade should be taken out as well.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from service.core.db import alembic_config, make_engine, migrate
from service.operations.leader import exclusive

log = logging.getLogger(__name__)
VERSION_TABLE = "alembic_version"


@dataclass(frozen=True)
class Readiness:
    database: bool
    current: tuple[str, ...]  # the revisions the database is at (empty before the first migration)
    head: tuple[str, ...]     # the revisions this code's migrations end at
    error: str | None = None

    @property
    def migrated(self) -> bool:
        return self.database and set(self.current) == set(self.head)

    @property
    def ready(self) -> bool:
        return self.migrated

    def reason(self) -> str:
        if not self.database:
            return f"database unreachable: {self.error}"
        if not self.current:
            return "database not migrated yet: run `gpuplan migrate`"
        if not self.migrated:
            return (f"database schema at {', '.join(self.current)}, this release needs {', '.join(self.head)}: "
                    "run `gpuplan migrate`")
        return "ready"


@functools.cache
def migration_heads() -> tuple[str, ...]:
    """The head revisions of the bundled migrations (read once: they are files shipped with the code)."""
    return tuple(sorted(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads()))


def check(engine: Engine) -> Readiness:
    head = migration_heads()
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            # read the version table directly: MigrationContext logs two INFO lines per probe
            current: tuple[str, ...] = ()
            if inspect(conn).has_table(VERSION_TABLE):
                current = tuple(sorted(conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars()))
    except Exception as exc:  # any failure to reach or read the database means "not ready"
        # the details (host, port, user) go to the log, not to whoever can reach the probe
        log.warning("readiness: database unreachable: %s", str(exc).splitlines()[0][:300] if str(exc) else exc)
        return Readiness(False, (), head, type(exc).__name__)
    return Readiness(True, current, head)


def migrate_on_start(url: str, enabled: bool = True) -> None:
    """Migrate at start-up unless a separate step does it (`GPUPLAN_MIGRATE_ON_START=false`); replicas that
    start together take turns, and all but the first find nothing left to do."""
    if not enabled:
        return
    engine = make_engine(url)
    try:
        with exclusive(engine, "migrate"):
            migrate(url)
    finally:
        engine.dispose()
