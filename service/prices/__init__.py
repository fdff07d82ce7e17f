"""Prices as the API shows them: the catalog (GPUs, prices), the sources' freshness and the price history."""
