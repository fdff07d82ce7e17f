"""Warnings and notes as stable codes (solvers/base/notices.py): the English text is the one the API always answered,
word for word, and every plan's `notices` carry the same sentences as its plain-text lists."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import CATALOG_EXAMPLE
from solvers.base.notices import TEMPLATES, Notice, classified, notice
from solvers.base.profile import Profile
from solvers.plan import make_plan

TODAY = dt.date(2026, 11, 10)

# the sentences as the producers wrote them before the registry (f-strings copied from the old code, filled by hand)
BEFORE = [
    (notice("electricity_default", usd_per_kwh=0.175),
     "electricity_usd_per_kwh not given: used 0.175 USD/kWh (the guide's 2023 figure)"),
    (notice("assumed_scaling_not_cnn", gpus=2, efficiency=0.95),
     "jobs of 2 GPUs assumed to scale at 95.0% efficiency (the guide's data-parallel figures for convolutional "
     "nets); transformers and fully connected nets scale worse: give jobs.scaling_efficiency if measured"),
    (notice("time_limited", gap=0.00012),
     "the solver hit its time limit; the plan is within 0.012% of the optimum"),
    (notice("extrapolated_both", gpu="MI300X", reference="B200", workload="transformer_training", usd=141831.4,
            share=0.5),
     "MI300X's throughput for transformer_training is extrapolated from specs (no measurement of this workload "
     "class for MI300X or the reference B200): USD 141,831 (50% of the plan's cost) rests on it; give "
     "throughput_overrides.MI300X if you have measured it"),
    (notice("stale_source", source="runpod", reasons=["last success 3 h ago, more than the 1 h allowed", "x"],
            last_success_at="2026-11-10T00:00:00+00:00", stale_after_hours=1.0),
     "prices from source 'runpod' are stale: last success 3 h ago, more than the 1 h allowed; x"),
    (notice("old_snapshot", providers=["aws", "azure"], oldest="2024-08-26", max_age_days=183),
     "bundled snapshot prices are used for aws, azure (oldest from 2024-08-26, older than 183 days): run `gpuplan "
     "refresh` or let the service's scheduler reach the providers for current prices"),
    (notice("carbon_unknown_power", hours=1234.4),
     "1,234 rented instance-hours are on GPUs whose power is not known and are not counted"),
]


@pytest.mark.parametrize(("made", "expected"), BEFORE, ids=[m.code for m, _ in BEFORE])
def test_the_english_text_is_the_one_the_api_always_answered(made: Notice, expected: str) -> None:
    assert made.text == expected


def test_a_sentence_made_elsewhere_is_classified_by_its_exact_text() -> None:
    known = [notice("electricity_default", usd_per_kwh=0.175)]
    assert classified("electricity_usd_per_kwh not given: used 0.175 USD/kWh (the guide's 2023 figure)",
                      known).code == "electricity_default"
    other = classified("something new", known)
    assert (other.code, other.text, other.params) == ("unclassified", "something new", {})


def test_every_template_names_only_its_parameters() -> None:
    # a template whose slot no producer fills would raise at the first plan that needs it
    for code, template in TEMPLATES.items():
        slots = {name.split("!")[0].split(":")[0] for name in re.findall(r"\{(\w+[^}]*)\}", template)}
        assert notice(code, **dict.fromkeys(slots, 1)).code == code


def test_a_plan_carries_its_warnings_and_notes_as_codes() -> None:
    profile = Profile.model_validate({**CATALOG_EXAMPLE, "electricity_usd_per_kwh": None,
                                      "demand": {**CATALOG_EXAMPLE["demand"], "gpus": 2},
                                      "jobs": {"gpus_per_job": 2}})
    plan = make_plan(profile, bundled_catalog(), TODAY)
    assert [n.text for n in plan.notices] == plan.warnings
    codes = [n.code for n in plan.notices]
    assert "electricity_default" in codes and "assumed_scaling_not_cnn" in codes, codes
    assert "unclassified" not in codes
    assert [n.text for n in plan.alternatives.notices] == plan.alternatives.notes
    assert plan.carbon is not None and [n.text for n in plan.carbon.notices] == plan.carbon.notes
