"""The money stage: a solution in model terms -> plan lines, costs, monthly figures and cash flows (present
values, loans, depreciation), the cumulative cost curves, then carbon, rates and every amount in the plan's
currency.

In: a `MipSolution`, the options, periods and blocks. Out: `Accounts` (the plan's lines and costs) and, last, the
finished `PlanResult` in its currency."""
