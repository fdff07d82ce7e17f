"""What operators run and probe: health, readiness and metrics endpoints, leader election, the scheduler."""
