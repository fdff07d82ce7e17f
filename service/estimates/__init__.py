"""The workload compiler over HTTP: POST /v1/estimate."""
