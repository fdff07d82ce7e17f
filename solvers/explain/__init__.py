"""The explain stage: why the plan is what it is. The break-even (closed form `simple`, decision thresholds by
evaluating fixed purchases, crossing days), the cloud-only and buy-only alternatives, the warnings beside the
numbers, the recommendation sentence, a diagnosis when no plan exists, and the calibration errors the docs report.

In: the plan's core (options, blocks, limits, accounts) and an evaluator. Out: `BreakEven`, `Others`, notices and
text for the `PlanResult`; an `InfeasibleProfile` naming the constraint when there is no plan."""
