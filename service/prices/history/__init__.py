"""GET /v1/prices/history and its chart: how prices moved."""
