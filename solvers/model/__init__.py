"""The model stage: the mixed-integer program, built straight into HiGHS from arrays. The screening layers (what
the K-th owned slot saves), the fluid cells of work that may wait, the build and its rows, a MIP start, the solve,
its status and the read-out; also the evaluator of fixed purchases the thresholds use without a MIP.

In: owned, cloud and host options, blocks and `Limits`. Out: a `MipSolution` (units, hosts, jobs and instances per
level) and an `Evaluator`."""
