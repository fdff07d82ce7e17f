"""Plans under uncertainty (issue 32): one purchase for many futures.

In: today's solved deterministic plan as values of the stages below (`today.Today`: periods, blocks, limits, money
terms, options, solution, ledger, accounts) and the profile's `uncertainty` option (`solvers.base.uncertainty`).
Out: today's plan with the purchase, hosts and commitments every future shares in place of today's, and the plan's
`risk` object (`solvers.base.risk.Risk`). The option, its defaults and the risk object are in the base, since the
profile and the plan result carry them.

Modules, one job each: `today` (what comes in and goes out), `sample` (Sobol futures), `perturb` (a future's
inputs), `extensive` (the sample average problem as one HiGHS MIP), `recourse` (a fixed purchase priced in every
future), `waiting` (the value of waiting), `figures` (percentiles, CVaR, the fan), `decide` (the sequence, called
once from `make_plan`), `hedging` (progressive hedging under MPI with mpi-sppy, a command beside the service, the
extensive form its oracle).
"""
