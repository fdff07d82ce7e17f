"""Plans warn when a chosen GPU's throughput is extrapolated (no measurement of the workload class)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import CATALOG_EXAMPLE
from solvers.base.performance import is_extrapolated
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile


def plan(profile: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def warned(result: PlanResult) -> dict[str, str]:
    """GPU name -> its extrapolation warning."""
    out = {}
    for w in result.warnings:
        m = re.match(r"(.+)'s throughput for \w+ is extrapolated", w)
        if m:
            out[m.group(1)] = w
    return out


def test_student_example_names_every_extrapolated_chosen_gpu() -> None:
    result = plan(CATALOG_EXAMPLE)
    chosen = {line.gpu for line in result.buy} | {c.gpu for c in result.cloud}
    expected = {g for g in chosen if g != "RTX 3090" and is_extrapolated(g, "transformer_training")}
    # whatever the example picks (a measured RTX 4090 since the software-stack refit, an unmeasured MI300X before),
    # the warnings name exactly the chosen extrapolated GPUs; the B300 cases below always choose one
    assert chosen
    assert set(warned(result)) == expected


def mixed_profile(**extra: Any) -> dict[str, Any]:
    """Own one measured RTX 3090 (max_owned_gpus = 1) and rent B300 (never measured: it takes the B200's
    MLPerf-calibrated factor) for the rest."""
    profile = simple_profile([owned_item(1000.0)], [cloud_item(3.0, gpu="B300", name="b300")], utilisation=0.9,
                             max_owned_gpus=1)
    profile["demand"]["gpus"] = 3
    profile.update(extra)
    return profile


def test_only_the_extrapolated_gpu_is_named_with_its_share_of_the_cost() -> None:
    result = plan(mixed_profile())
    assert any(line.gpu == "RTX 3090" for line in result.buy) and result.cloud
    notes = warned(result)
    assert set(notes) == {"B300"}
    rented = sum(c.cost_usd for c in result.cloud)
    share = rented / result.total_cost_usd
    assert 0 < share < 1
    assert f"USD {rented:,.0f} ({100 * share:.0f}% of the plan's cost)" in notes["B300"]


def test_a_measured_override_silences_the_warning() -> None:
    result = plan(mixed_profile(throughput_overrides={"B300": 2.5}))
    assert result.cloud and "B300" not in warned(result)


def test_measured_gpus_alone_give_no_warning() -> None:
    profile = simple_profile([owned_item(1000.0)], [cloud_item(1.0, gpu="A100 80GB", name="a100")], utilisation=0.9)
    profile["demand"]["gpus"] = 3
    profile["options"]["max_owned_gpus"] = 1
    result = plan(profile)
    assert result.cloud
    assert warned(result) == {}


@pytest.mark.parametrize("gpu", ["H100 SXM", "RTX 3090"])
def test_an_unmeasured_reference_makes_every_other_ratio_extrapolated(gpu: str) -> None:
    # 8-bit inference: the guide measured the H100 SXM (DOMAIN section 1) but not the RTX 3090 reference, so the
    # H100's ratio to it is extrapolated; the reference itself (1.0 by definition) is not warned about
    profile = simple_profile([], [cloud_item(2.0, gpu=gpu, name="vm")], utilisation=0.5)
    profile["workload"] = "inference_8bit"
    result = plan(profile)
    assert set(warned(result)) == ({gpu} - {"RTX 3090"})
    if gpu != "RTX 3090":
        assert "for the reference RTX 3090" in warned(result)[gpu]
