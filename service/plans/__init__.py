"""Plans: make one from a profile and the prices in force, keep it, read, list, export and recompute it."""
