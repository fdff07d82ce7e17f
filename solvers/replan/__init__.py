"""Questions answered by planning again: sensitivity (one input moved over a stated range, re-planned at each
point), the replay answer (a plan's core and its hour-by-hour replay, as the API returns them) and the progressive
hedging command (today's plan, then its futures hedged under MPI).

In: a profile, a catalog and today. Out: a `Sensitivity`, a `ReplayAnswer` or the hedged first stage as JSON. The
only package above `solvers.plan`, since each of its answers calls the planner."""
