"""The offers stage: a catalog and a profile -> the owned, hosted and rented options a plan chooses from, with the
profile's own quotes, filters, throughput, energy by place (PUE), resale, purchase taxes and money in USD; then
pruning of options that can never be in a cheapest plan, the hosts' card capacity and the cover tables.

In: a profile, a catalog, today and the demand's periods and blocks. Out: `Options` (solvers.base.options) and the
prepared USD inputs (`Prepared`)."""
