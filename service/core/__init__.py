"""Shared plumbing every domain uses: settings, database, errors, pagination, idempotency, logs, metrics, clock."""
