"""GET /v1/sources: how fresh each price source is."""
