"""The planning model: profile + catalog -> plan, break-even and decision thresholds.

Pure functions of their inputs: no HTTP, no database, no clock (the caller passes `today`).
"""
