"""Saved profiles: named, tagged, versioned workload profiles owned by a lab."""
