"""The workload table's words as stable codes (issue 17): each code's English text is the sentence the API has
always answered, its parameters are the figures in it, and every locale of the page can say every code."""

from __future__ import annotations

import re

import pytest

from pricing.gpus import bundled_gpus
from service.web.i18n import LOCALE_NAMES, catalogue
from solvers.workload import Workload, estimate
from solvers.workload.reasons import EXCLUDED, FULL_RECOMPUTATION, SERVERS, SHARDING, excluded

LORA_13B = {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9}


def _only(work: Workload, gpu: str):  # type: ignore[no-untyped-def]
    return estimate(work, [bundled_gpus()[gpu]]).gpus[0]


def test_a_job_too_large_for_the_card_names_the_memory_it_needs_and_the_card_has() -> None:
    # RTX 4090: 24 GB x 0.9 = 21.6 GB usable; selective recomputation keeps 28.8 GB of activations (test_workload.py)
    card = _only(Workload(recompute="selective", **LORA_13B), "RTX 4090")  # type: ignore[arg-type]
    found = card.excluded_notice
    assert not card.fits and found is not None and found.code == "training_too_large"
    assert found.text == card.excluded_reason
    assert found.params["gpu"] == "RTX 4090" and found.params["usable_gb"] == pytest.approx(21.6)
    assert found.params["activations_gb"] == pytest.approx(28.8, abs=0.05)
    assert card.excluded_reason is not None and card.excluded_reason.endswith("RTX 4090 has 21.6 GB usable")


def test_too_slow_for_the_deadline_carries_its_hours_and_width() -> None:
    slow = Workload(kind="train", model={"params_b": 1}, tokens=50e9, deadline_hours=1, max_gpus_per_job=8)
    card = _only(slow, "RTX 3090")
    assert card.excluded_notice is not None and card.excluded_notice.code == "deadline_too_slow"
    assert card.excluded_notice.params["gpus"] == 8 and card.excluded_notice.params["deadline_hours"] == 1
    assert card.excluded_notice.text == card.excluded_reason


def test_a_model_too_large_to_serve_names_the_servers_memory() -> None:
    card = _only(Workload(kind="serve", model={"params_b": 70}, requests_per_second=30), "RTX 3070")
    assert card.excluded_notice is not None and card.excluded_notice.code == "serving_too_large"
    assert card.excluded_notice.params["gpus"] == 8
    assert card.excluded_notice.params["usable_gb"] == pytest.approx(8 * 0.9)
    assert card.excluded_notice.text == card.excluded_reason


def test_sharding_codes_say_the_stage_recomputation_servers_and_tensor_parallelism() -> None:
    zero3 = _only(Workload(kind="train", model={"params_b": 7}, tokens=1e9), "H100 SXM")
    assert zero3.sharding_notice is not None and zero3.sharding_notice.code == "zero3"
    assert zero3.sharding_notice.text == zero3.sharding
    full = _only(Workload(**LORA_13B), "RTX 4090")  # type: ignore[arg-type]
    assert full.sharding_notice is not None and full.sharding_notice.params["full_recomputation"] is True
    assert full.sharding == SHARDING["zero3"] + FULL_RECOMPUTATION
    one = _only(Workload(**{**LORA_13B, "method": "qlora"}), "RTX 4090")  # type: ignore[arg-type]
    assert one.sharding_notice is not None and one.sharding_notice.code == "ddp"
    # 34 RTX 4090s with selective recomputation (test_workload.py): five 8-GPU servers
    wide = _only(Workload(kind="train", model={"params_b": 7, "layers": 32, "hidden": 4096}, tokens=1e9,
                          recompute="selective"), "RTX 4090")
    assert wide.sharding_notice is not None and wide.sharding_notice.params["servers"] == 5
    assert wide.sharding == SHARDING["zero3"] + SERVERS.format(servers=5)
    served = _only(Workload(kind="serve", model={"params_b": 70, "kv_heads": 8}, precision="int8",
                            requests_per_second=5), "H100 SXM")
    assert served.sharding_notice is not None and served.sharding_notice.code == "tensor_parallel"
    assert served.sharding_notice.params == {"gpus": 2, "batch": 32, "tokens": 4096}
    assert served.sharding == "tensor parallel over 2 GPU(s) of one server, batch 32 at 4096 tokens"


def test_a_reason_with_a_parameter_missing_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        excluded("machine_too_small", gpus=4)
    with pytest.raises(KeyError):
        excluded("no_such_code")


def _params(template: str) -> set[str]:
    return {m.split(":")[0] for m in re.findall(r"\{(\w+[^}]*)\}", template)}


@pytest.mark.parametrize("locale", list(LOCALE_NAMES))
def test_every_code_has_a_string_in_every_locale_naming_only_its_parameters(locale: str) -> None:
    strings = catalogue(locale)
    for prefix, templates in (("wf.why", EXCLUDED), ("wf.shard", SHARDING)):
        for code, template in templates.items():
            key = f"{prefix}.{code}"
            assert key in strings, (locale, key)
            assert set(re.findall(r"\{(\w+)\}", strings[key])) <= _params(template), (locale, key)
    assert set(re.findall(r"\{(\w+)\}", strings["wf.shard.servers"])) == {"servers"}
