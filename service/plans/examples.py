"""Example profiles shown in the OpenAPI document and on the page, and used by tests (the worked, student and
workload-form ones are also files in examples/, which tests/test_examples.py holds equal to these)."""

from __future__ import annotations

from typing import Any

# DOMAIN §5: the guide's worked example. One $2,200 desktop with an RTX 3090 (350 W GPU + 100 W CPU)
# against an AWS V100 at $2.14/h, 15% utilisation, $0.12/kWh; the guide treats the two GPUs as
# equally fast, hence the throughput override. Break-even: about 293 days.
WORKED_EXAMPLE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 0,
    "demand": {"gpus": 1, "utilisation": 0.15, "reference_gpu": "RTX 3090"},
    "horizon_months": 36,
    "electricity_usd_per_kwh": 0.12,
    "options": {"allow_used": True, "allow_spot": False, "resale": False, "pue": 1.0, "availability": 1.0},
    "prices": {
        "mode": "replace",
        "owned": [{"name": "RTX 3090 desktop (guide 2020)", "gpu": "RTX 3090", "unit_price_usd": 2200,
                   "watts": 450, "idle_watts": 0, "includes_host": True}],
        "cloud": [{"provider": "aws", "name": "p3.2xlarge (guide 2020)", "gpu": "V100", "usd_per_hour": 2.14,
                   "region": "us-east-1"}],
    },
    "throughput_overrides": {"V100": 1.0},
}

# A PhD student's transformer work on the bundled catalog.
CATALOG_EXAMPLE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {"gpus": 1, "utilisation": 0.15, "reference_gpu": "RTX 3090"},
    "horizon_months": 36,
    "electricity_usd_per_kwh": 0.12,
    "options": {"allow_used": True, "allow_spot": False, "resale": True},
}

# Deadline bursts: light months with two heavy ones.
SERIES_EXAMPLE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {
        "reference_gpu": "RTX 3090",
        "series": [{"month": f"2027-{m:02d}", "reference_gpu_hours": 2000 if m in (3, 11) else 150}
                   for m in range(1, 13)],
    },
    "electricity_usd_per_kwh": 0.15,
}

# The workload form (issue 14): "fine-tune a 13B model with LoRA on 2B tokens a month"; the planner derives the
# demand per GPU type, so there is no demand and no reference GPU.
WORKLOAD_EXAMPLE: dict[str, Any] = {
    "workload": {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9,
                 "jobs_per_month": 1},
    "horizon_months": 24,
    "electricity_usd_per_kwh": 0.15,
}

# Issue 16 (currency and place): a lab in Germany that pays in euros with 19% VAT, a vendor quote in euros,
# electricity and grid carbon from the location (Eurostat 2024, OWID/Ember 2023), a carbon price of 80 EUR/t.
PLACE_EXAMPLE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {"gpus": 2, "utilisation": 0.4, "reference_gpu": "RTX 4090"},
    "horizon_months": 36,
    "currency": "EUR",
    "electricity": {"location": "DE"},
    "options": {"vat_percent": 19, "carbon_price_per_tonne": 80, "carbon_price_currency": "EUR"},
    "prices": {"owned": [{"name": "RTX 4090 workstation (vendor quote)", "gpu": "RTX 4090", "unit_price_usd": 3900,
                          "currency": "EUR", "watts": 650, "idle_watts": 80, "includes_host": True}]},
}

# Issue 16: a lab that may reserve (the catalog's commitment prices), pays for capital (8% a year), finances its
# purchases over 36 months and runs them in a rack at $200 per kW-month (the issue's own figure) with a support
# contract and a few staff hours a month. All of these are the lab's inputs, not defaults.
FINANCE_EXAMPLE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 80,
    "demand": {"gpus": 8, "utilisation": 0.7, "reading": "average", "reference_gpu": "H100 SXM"},
    "horizon_months": 36,
    "electricity_usd_per_kwh": 0.12,
    "options": {
        "allow_commitments": True,
        "discount_rate": 0.08,
        "financing": {"annual_rate": 0.07, "term_months": 36, "down_payment": 0.1},
        "opex": {"colocation_usd_per_kw_month": 200, "maintenance_usd_per_gpu_year": 500,
                 "staff_hours_per_month": 10, "staff_usd_per_hour": 80},
    },
}
