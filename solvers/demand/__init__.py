"""The demand stage: a profile's demand forms (GPUs at a utilisation, a usage series, a concurrency timeline) ->
calendar periods with a load-duration curve of jobs at once, merged into blocks, and the waits of work that may
wait.

In: a class-form profile (solvers.base.profile) and today. Out: `Period`s and `Block`s the offers, the model and the
money read."""
