"""The types and facts every stage stands on: the profile (the request), the plan (the answer), the options a plan
chooses from, errors, notices, bounds, defaults with their sources, finance arithmetic, the throughput model, the
workload estimate's contract, the units a profile's demand is counted in, the `uncertainty` option and the plan's
`risk` (the profile and the answer carry them), and the second thread work beside the plan runs on (`deferred`).

In: nothing from the other stages (only `pricing`). Out: types and pure functions the stages above import; no
stage hands the base a value back, so the base never imports a stage."""
