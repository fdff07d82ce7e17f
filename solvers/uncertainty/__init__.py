"""Plans under uncertainty (issue 32): one purchase for many futures.

In: a solved deterministic plan's core (`solvers.plan.Core`) and the profile's `uncertainty` option
(`schema.Uncertainty`). Out: the core with the purchase, hosts and commitments every future shares in place of
today's, and the plan's `risk` object (`result.Risk`).

Modules, one job each: `defaults` (sourced figures), `schema` (the option), `sample` (Sobol futures), `perturb` (a
future's inputs), `extensive` (the sample average problem as one HiGHS MIP), `recourse` (a fixed purchase priced
in every future), `waiting` (the value of waiting), `figures` (percentiles, CVaR, the fan), `decide` (the sequence,
called once from `make_plan`), `result` (the risk object), `hedging` (progressive hedging under MPI with mpi-sppy,
a command beside the service, the extensive form its oracle).
"""
