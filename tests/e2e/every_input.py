"""Profiles that set every field of the API's profile to a value other than its default (issue 17: every input
reaches the form): the class form with a utilisation demand, and the workload form. A unit test checks that together
they leave out no field of the schema (tests/service/web/test_every_input.py), so a field added to the API without a
place on the form fails there first."""

from __future__ import annotations

from typing import Any

from solvers.base.price_inputs import CommitmentPriceItem

EVERY_INPUT: dict[str, Any] = {
    "workload": "cnn_training",
    "min_gpu_memory_gb": 20,
    "demand": {"gpus": 2, "utilisation": 0.35, "reading": "average", "reference_gpu": "RTX 4090",
               "start": "2027-02-01"},
    "jobs": {"gpus_per_job": 2, "interconnect": "ethernet", "cross_machine_efficiency": 0.8,
             "scaling_efficiency": 0.9, "patience": "week", "runs": "until_done", "load": "divisible"},
    "horizon_months": 24,
    "electricity_usd_per_kwh": 0.21,
    "electricity": {"location": "DE", "price_per_kwh": 0.3, "currency": "GBP", "consumer": "residential",
                    "vat_percent": 7},
    "currency": "EUR",
    "options": {
        "allow_used": False, "allow_spot": True, "allow_cloud": True, "allow_buy": False, "resale": False,
        "max_capex_usd": 40000, "max_owned_gpus": 6, "providers": ["aws", "lambda", "acme"],
        "regions": ["us-east-1", "global"], "pue": 1.3, "availability": 0.9, "spot_interruption_overhead": 0.15,
        "resale_decline_per_year": 0.25, "resale_fee": 0.1, "host_watts_per_working_gpu": 120,
        "machine_on": 10, "allow_marketplace": False, "allow_unverified_hosts": False, "max_capex_currency": "CHF",
        "vat_percent": 19, "import_duty_percent": 2.5, "carbon_price_per_tonne": 80, "carbon_price_currency": "GBP",
        "cloud_pue": 1.4, "allow_commitments": True, "discount_rate": 0.06,
        "financing": {"annual_rate": 0.07, "term_months": 24, "down_payment": 0.1},
        "opex": {"colocation_usd_per_kw_month": 150, "maintenance_usd_per_gpu_year": 300,
                 "staff_usd_per_gpu_month": 20, "staff_hours_per_month": 4, "staff_usd_per_hour": 60,
                 "storage_networking_usd_per_month": 45, "currency": "EUR"},
        "cloud_data": {"dataset_gb": 500, "checkpoints_gb": 120, "storage_usd_per_gb_month": 0.023,
                       "egress_gb_per_month": 50, "egress_usd_per_gb": 0.09, "currency": "GBP"},
    },
    "prices": {
        "mode": "replace",
        "owned": [{"name": "RTX 4090 workstation (vendor quote)", "gpu": "RTX 4090", "gpus_per_unit": 2,
                   "unit_price_usd": 6200, "watts": 1100, "idle_watts": 90, "condition": "used",
                   "includes_host": True, "kind": "workstation", "source": "quote 2026-11 ACME",
                   "as_of": "2026-11-02", "currency": "EUR"}],
        "cloud": [{"provider": "acme", "name": "acme-4090-2x", "gpu": "RTX 4090", "gpu_count": 2,
                   "usd_per_hour": 0.9, "region": "global", "pricing": "spot", "max_instances": 4,
                   "multi_node": True, "verified": True, "source": "negotiated", "as_of": "2026-11-03",
                   "currency": "GBP"}],
        "commitments": [{"provider": "acme", "name": "acme-4090-2x-1y", "gpu": "RTX 4090", "gpu_count": 2,
                         "usd_per_hour": 0.6, "term_months": 12, "region": "global", "max_instances": 2,
                         "source": "reserved quote", "as_of": "2026-11-04",
                         # how the term is paid (issue 16's upfront payments), where the API has these fields:
                         # 1,000 <= 0.6 x 730 h x 12 months = 5,256, the most a fee may be
                         **({"currency": "GBP", "payment": "partial_upfront", "upfront_usd": 1000}
                            if "payment" in CommitmentPriceItem.model_fields else {})}],
    },
    "throughput_overrides": {"RTX 3090": 0.55, "A100 40GB PCIe": 1.4},
    "uncertainty": {"demand": {"sigma": 0.4, "growth_per_year": 0.2, "growth_spread": 0.1},
                    "cloud_price_trend": {"per_year": -0.3, "spread": 0.05}, "electricity": {"spread": 0.2},
                    "resale": {"spread": 0.3}, "scenarios": 8, "seed": 7, "objective": "cvar", "risk_weight": 2.0,
                    "alpha": 0.25, "decision_months": [0, 3]},
}

EVERY_WORKLOAD_INPUT: dict[str, Any] = {
    "workload": {"kind": "train", "model": {"params_b": 1.3, "layers": 24, "hidden": 2048, "heads": 16,
                                            "kv_heads": 8},
                 "tokens": 2.6e10, "precision": "fp16", "sequence_length": 2048, "micro_batch": 2,
                 "global_batch_tokens": 1048576, "recompute": "full", "sharding": "zero2", "deadline_hours": 500,
                 "max_gpus_per_job": 8, "usable_memory_fraction": 0.85, "jobs_per_month": 0.5},
    "horizon_days": 200,
    "options": {"allow_cloud": False},
    "uncertainty": {"demand": {"scale": [0.5, 1.5]}, "scenarios": 4},
}
