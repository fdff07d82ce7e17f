"""The assumed-scaling notice of an always-on divisible service states the guide's efficiency for its replica width,
not the accounts' figure, which also carries the load unit (solvers/base/demand_units.py `load_unit`)."""

from __future__ import annotations

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.demand_units import default_efficiency
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile


def test_the_scaling_notice_of_a_divisible_service_is_the_guides_figure() -> None:
    # 0.3 reference GPUs of load on 2-GPU replicas: the load unit is below 1, the notice must still say 95%
    body = simple_profile([owned_item(3000, gpu="RTX 4090", gpus_per_unit=2)],
                          [cloud_item(1.2, gpu="RTX 4090", gpu_count=2)], utilisation=1.0)
    body["workload"] = "inference_16bit"
    body["demand"] = {"gpus": 0.6, "utilisation": 1.0, "reference_gpu": "RTX 4090", "start": "2027-01-01"}
    body["jobs"] = {"gpus_per_job": 2, "runs": "continuously", "load": "divisible"}
    plan = make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)
    said = [n for n in plan.notices if n.code in ("assumed_scaling", "assumed_scaling_not_cnn")]
    assert len(said) == 1
    assert said[0].params["efficiency"] == pytest.approx(default_efficiency(2))
