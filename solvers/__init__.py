"""The planning model: profile + catalog -> plan, break-even and decision thresholds.

Pure functions of their inputs: no HTTP, no database, no clock (the caller passes `today`). One package per stage
of the pipeline, in the order `solvers.plan.make_plan` runs them: `workload` (compile a workload-form profile),
`demand` (periods and blocks), `offers` (options), `model` (the MIP), `money` (accounts and currency), `explain`
(break-even, thresholds, alternatives, warnings); all stand on `base`. `usage` turns usage logs into a profile's
series before planning, `replay` checks a plan hour by hour apart from the model, and `replan` answers questions
by planning again. pyproject.toml's [tool.importlinter] holds each stage to importing only the ones below it.
"""
