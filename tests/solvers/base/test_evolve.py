"""`evolved` (solvers/base/evolve.py) against `dataclasses.replace`, which it stands in for on the offers' hot path."""

from __future__ import annotations

import dataclasses
from functools import cached_property

import pytest

from solvers.base.evolve import checked, defaults_of, evolved
from solvers.base.options import CloudOption, OwnedOption


def _owned() -> OwnedOption:
    return OwnedOption(key="k", name="n", gpu="RTX 4090", condition="new", gpus_per_unit=2, unit_price_usd=3200.0,
                       includes_host=False, throughput=1.3, marginal_kwh_per_gpu_hour=0.3,
                       idle_kwh_per_unit_hour=0.02, card_watts=450, resale_usd=900.0, memory_gb=24,
                       slots_per_unit=2.0, vendor="v", source="s", as_of="2026-11-01", feed="f",
                       accepting_hosts=(0, 2))


def test_same_as_replace_and_the_original_untouched() -> None:
    option = _owned()
    changes = {"key": "k@pue1.3", "marginal_kwh_per_gpu_hour": 0.39, "accepting_hosts": (2,)}
    made = evolved(option, **changes)
    assert made == dataclasses.replace(option, **changes)  # type: ignore[arg-type]
    assert hash(made) == hash(dataclasses.replace(option, **changes))  # type: ignore[arg-type]
    assert type(made) is OwnedOption
    assert option.key == "k" and option.accepting_hosts == (0, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.key = "x"  # type: ignore[misc]


def test_every_field_kept_for_a_cloud_option() -> None:
    fields = {f.name for f in dataclasses.fields(CloudOption)}
    option = CloudOption(**{name: _value(name) for name in _required(CloudOption)})  # type: ignore[arg-type]
    made = evolved(option, displaced_slots=1.0)
    assert {name: getattr(made, name) for name in fields - {"displaced_slots"}} == {
        name: getattr(option, name) for name in fields - {"displaced_slots"}}
    assert made.displaced_slots == 1.0


def test_unknown_field_refused() -> None:
    with pytest.raises(TypeError, match="no field 'keys'"):
        evolved(_owned(), keys="x")


def test_classes_it_cannot_copy_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Derived:
        a: int

        @cached_property
        def doubled(self) -> int:
            return 2 * self.a

    @dataclasses.dataclass(frozen=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            assert self.a >= 0

    for instance in (Derived(1), Checked(1)):
        with pytest.raises(TypeError, match="plain frozen dataclasses"):
            evolved(instance, a=2)


def _required(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]


def _value(name: str) -> object:
    if name in {"gpu_count", "width", "slots"}:
        return 1
    if "usd" in name or name in {"speed", "throughput", "load_per_gpu", "packed_capacity"}:
        return 1.5
    return f"{name}-value"


def test_an_unknown_field_is_refused_after_known_ones_were_accepted() -> None:
    """The names are checked once per list of names: a list checked once does not let another through."""
    evolved(_owned(), key="a")
    evolved(_owned(), key="b")
    with pytest.raises(TypeError, match="no field 'kee'"):
        evolved(_owned(), kee="c")
    with pytest.raises(TypeError, match="no field 'kee'"):
        evolved(_owned(), key="d", kee="c")


def test_checked_refuses_an_instance_filled_with_a_field_too_many_or_too_few() -> None:
    option = _owned()
    assert checked(option) is option
    for broken in ({**vars(option), "kee": "x"}, {k: v for k, v in vars(option).items() if k != "offer"}):
        filled = object.__new__(OwnedOption)
        filled.__dict__.update(broken)
        with pytest.raises(TypeError, match=r"no field 'kee'|misses field 'offer'"):
            checked(filled)


def test_defaults_of_gives_a_new_dict_of_plain_defaults_only() -> None:
    found = defaults_of(OwnedOption)
    assert found == {f.name: f.default for f in dataclasses.fields(OwnedOption)
                     if f.default is not dataclasses.MISSING}
    found["width"] = 7
    assert defaults_of(OwnedOption)["width"] == 1  # a copy: the caller's changes stay its own

    @dataclasses.dataclass(frozen=True)
    class WithFactory:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="default factories"):
        defaults_of(WithFactory)
