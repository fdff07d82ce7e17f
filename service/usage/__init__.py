"""Usage logs (Slurm, nvidia-smi, DCGM) as concurrency profiles: `gpuplan import-usage` prints them; the
endpoint on saved profiles comes with the demand model that plans on them (issue 13)."""
