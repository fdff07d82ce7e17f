"""Questions answered by planning again: sensitivity (one input moved over a stated range, re-planned at each
point) and the replay answer (a plan's core and its hour-by-hour replay, as the API returns them).

In: a profile, a catalog and today. Out: a `Sensitivity` or a `ReplayAnswer`. The only package above
`solvers.plan`, since each of its answers calls the planner."""
