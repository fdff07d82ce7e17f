"""The catalog audit (issue 30): every price row's age and flags, and which rows plans may not use.

`model` (what a flag is), `keys` (a row's identity), `cloud` and `hardware` (the checks), `run` (the audit and
the planner's view: `audited`), `confirmations` in `pricing/data/audit_confirmations.csv`. Import the modules
themselves: this package imports nothing, so `pricing.catalog` can use `model` without a cycle.
"""
