"""What the offers stage makes once (issue 31) is what it made per item: owned options filled from their row's shared
state equal the dataclass made by hand, step by step (energy at PUE 1, a copy per place, opex, hours on); a GPU
type's resale figures found once equal the curve's formulas per item; the hosts that take a card, kept for the last
hosts list, follow a changed list or spec; quotes already in USD pass `prepare` as they are."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest

from pricing.catalog import Host, bundled_catalog
from pricing.hardware_fit import host_accepts
from pricing.resale_curves import curve_for
from solvers.base import defaults, evolve
from solvers.base.evolve import evolved
from solvers.base.options import OwnedOption
from solvers.base.performance import throughput_score
from solvers.base.plan_options import PlanOptions
from solvers.base.profile import Profile
from solvers.offers.options import build_options
from solvers.offers.owned import OwnedUnit, opex_per_gpu_hour
from solvers.offers.owned_build import accepting_hosts
from solvers.offers.owned_rows import OwnedRow, hardware_table, rows_to_own
from solvers.offers.place_inputs import prepare
from solvers.offers.pue import system_kind
from solvers.offers.resale import Resale, age_years
from solvers.offers.throughput import ThroughputModel, _score
from tests.conftest import TODAY
from tests.solvers.offers.by_hand import by_place

OPEX = {"colocation_usd_per_kw_month": 150.0, "maintenance_usd_per_gpu_year": 120.0, "staff_usd_per_gpu_month": 5.0}
QUOTES: list[dict[str, Any]] = [
    {"name": "bare A6000", "gpu": "RTX A6000", "unit_price_usd": 4200.0},
    {"name": "bare used 3090", "gpu": "RTX 3090", "unit_price_usd": 700.0, "condition": "used"},
    {"name": "4090 box", "gpu": "RTX 4090", "gpus_per_unit": 4, "includes_host": True, "unit_price_usd": 14000.0,
     "watts": 2200.0, "idle_watts": 250.0},
    {"name": "A100 server", "gpu": "A100 80GB PCIe", "gpus_per_unit": 8, "includes_host": True,
     "unit_price_usd": 120000.0},
    {"name": "L40S in a rack", "gpu": "L40S", "gpus_per_unit": 2, "includes_host": True, "kind": "server",
     "unit_price_usd": 19000.0},
]


def _body(**options: Any) -> dict[str, Any]:
    return {
        "workload": "transformer_training", "min_gpu_memory_gb": 24, "horizon_months": 36,
        "demand": {"gpus": 4, "utilisation": 0.6, "reference_gpu": "RTX 3090"}, "electricity_usd_per_kwh": 0.15,
        "options": {"availability": 0.95, **options},
        "prices": {"mode": "replace", "owned": QUOTES},
    }


def _profile(**options: Any) -> Profile:
    return Profile.model_validate(_body(**options))


def _by_hand(profile: Profile, horizon_days: int) -> list[OwnedOption]:
    """The owned options as they were made before issue 31: one option per row at PUE 1 through the dataclass's
    own `__init__`, copied per place (`by_place`), then for opex and for the hours a machine is on."""
    catalog = bundled_catalog()
    opts = profile.options
    throughput = ThroughputModel(catalog.gpus, profile)
    idle_share = 1.0 if opts.machine_on == "always" else float(opts.machine_on) / 24.0
    used_value = hardware_table(catalog).used_value
    kwh_per_watt_hour = 1.0 / 1000.0
    made: list[OwnedOption] = []
    for i, row in enumerate(rows_to_own(catalog, profile, TODAY)):
        spec = catalog.gpus[row.gpu]
        n = row.gpus_per_unit
        accepting = () if row.includes_host else tuple(
            k for k, h in enumerate(catalog.hosts) if host_accepts(h, spec).ok)
        working = row.watts / n if row.watts is not None else spec.tdp_w + (
            opts.host_watts_per_working_gpu if row.includes_host else 0.0)
        idle_unit = row.idle_watts if row.idle_watts is not None else defaults.GPU_IDLE_FRACTION_OF_TDP * spec.tdp_w * n
        marginal_w = max(working - idle_unit / n, 0.0) + (0.0 if row.includes_host else opts.host_watts_per_working_gpu)
        resale = Resale(used_value, horizon_days / 365.25, TODAY, opts).of(spec, row.condition, n, row.includes_host,
                                                                   row.unit_price_usd)
        option = OwnedOption(
            key=f"own:{i}", name=row.name, gpu=row.gpu, condition=row.condition, gpus_per_unit=n,
            unit_price_usd=row.unit_price_usd, includes_host=row.includes_host, throughput=throughput(row.gpu),
            marginal_kwh_per_gpu_hour=kwh_per_watt_hour * marginal_w,
            idle_kwh_per_unit_hour=kwh_per_watt_hour * idle_unit * idle_share,
            card_watts=working, resale_usd=resale, memory_gb=spec.memory_gb,
            slots_per_unit=n // 1 if row.includes_host else n / 1, vendor=row.vendor, source=row.source,
            as_of=row.as_of, feed=row.feed, accepting_hosts=accepting)
        for placed in by_place(option, catalog.hosts, opts.pue, system_kind(spec, n, row.kind)):
            placed = evolved(placed, opex_usd_per_unit_hour=n * opex_per_gpu_hour(opts.opex, working / 1000.0))
            made.append(dataclasses.replace(placed, availability=8 / 24))
    return made


def test_owned_options_are_the_dataclass_made_step_by_step() -> None:
    """Bare cards in two places (PUE 1 and a server room's), machines with and without their own power figures, a
    machine kind from its quote, running costs and a machine on 8 hours a day: every option equals, field by field
    and as a dataclass, the one made through `__init__` and copied per place, for opex and for the hours on."""
    profile = _profile(opex=OPEX, machine_on=8)
    horizon_days = 3 * 365
    owned = build_options(bundled_catalog(), profile, TODAY, horizon_days).owned
    expected = _by_hand(profile, horizon_days)
    assert [o.key for o in owned] == [o.key for o in expected]
    assert any("@pue" in o.key for o in owned)  # a card placed apart in an office machine and a server room
    for got, want in zip(owned, expected, strict=True):
        assert vars(got) == vars(want), got.key
        assert got == OwnedOption(**vars(got)) and hash(got) == hash(OwnedOption(**vars(got)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        owned[0].key = "x"  # type: ignore[misc]


def test_the_first_option_a_unit_fills_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit whose shared state lacks a field (or names one the dataclass has not) is refused at its first option."""
    catalog = bundled_catalog()
    row = OwnedRow("card", "RTX 3090", "new", 1, 900.0, False, None, None, "v", "s", "2026-01-01", "f")
    unit = OwnedUnit(row, catalog.gpus["RTX 3090"], 0.001, 100.0, 300.0)
    monkeypatch.setattr(evolve, "_FILLED", set())
    del unit._state["vendor"]
    with pytest.raises(TypeError, match="misses field 'vendor'"):
        unit.at("own:0", 1.0)
    unit._state["vendor"] = "v"
    unit._state["vender"] = "v"
    with pytest.raises(TypeError, match="no field 'vender'"):
        unit.at("own:0", 1.0)


@pytest.mark.parametrize("case", ["used card", "catalog used value", "launch price", "neither", "flat decline",
                                  "off"])
def test_resale_per_type_is_the_curve_per_item(case: str) -> None:
    """`Resale.of` against the module's rules written out for one item (resale.py's docstring)."""
    gpus = bundled_catalog().gpus
    start, years = dt.date(2027, 1, 1), 3.0
    opts = PlanOptions(resale=case != "off", resale_decline_per_year=0.2 if case == "flat decline" else None)
    spec = gpus["RTX 3090"] if case != "neither" else gpus["A100 80GB PCIe"]
    if case == "launch price":
        spec = gpus["RTX 4090"]
    used_value = {"RTX 3090": 650.0} if case in ("catalog used value", "flat decline") else {}
    condition, n, price = ("used", 1, 700.0) if case == "used card" else ("new", 2, 3000.0)
    curve = curve_for(spec.segment)
    now = age_years(spec, start)
    moved = curve.share(now + years) / curve.share(now) if now > 0 else curve.share(now + years)
    if case == "off":
        value = 0.0
    elif case == "used card":
        value = 700.0 * moved
    elif case == "catalog used value":
        value = 650.0 * n * moved
    elif case == "flat decline":
        value = 650.0 * n * (1 - 0.2) ** years
    elif case == "launch price":
        assert spec.launch_price_usd is not None
        value = spec.launch_price_usd * n * curve.share(now + years)
    else:
        assert spec.launch_price_usd is None
        value = defaults.USED_TO_NEW_RATIO * price * moved
    expected = min(value * (1 - opts.resale_fee), price)
    resale = Resale(used_value, years, start, opts)
    assert resale.of(spec, condition, n, False, price) == pytest.approx(expected, rel=1e-12)
    assert resale.of(spec, condition, n, False, price) == resale.of(spec, condition, n, False, price)  # kept
    if case == "launch price":  # another spec under the same name is aged anew, not read from the first
        older = dataclasses.replace(spec, launch_date="2018-01")
        assert resale.of(older, condition, n, False, price) != resale.of(spec, condition, n, False, price)


def test_the_hosts_that_take_a_card_follow_a_changed_hosts_list_or_spec() -> None:
    catalog = bundled_catalog()
    spec = catalog.gpus["RTX A6000"]
    rule = tuple(k for k, h in enumerate(catalog.hosts) if host_accepts(h, spec).ok)
    assert accepting_hosts(catalog.hosts, spec) == rule and rule
    module = dataclasses.replace(spec, form_factor="sxm")  # the same name, now a module no desktop takes
    assert accepting_hosts(catalog.hosts, module) == tuple(
        k for k, h in enumerate(catalog.hosts) if host_accepts(h, module).ok) != rule
    server_only = [h for h in catalog.hosts if h.kind == "server"]
    assert accepting_hosts(server_only, spec) == tuple(
        k for k, h in enumerate(server_only) if host_accepts(h, spec).ok)
    tiny = [Host("tiny", 1, 500, 300, 30, "test", "2026-01-01")]  # a 300 W PSU takes no A6000
    assert accepting_hosts(tiny, spec) == ()
    assert accepting_hosts(catalog.hosts, spec) == rule


def test_a_kept_throughput_score_follows_its_spec() -> None:
    spec = bundled_catalog().gpus["RTX 4090"]
    assert _score(spec, "transformer_training") == throughput_score(spec, "transformer_training")
    faster = dataclasses.replace(spec, memory_bandwidth_gbs=spec.memory_bandwidth_gbs * 2)
    assert _score(faster, "transformer_training") == throughput_score(faster, "transformer_training")
    assert _score(faster, "transformer_training") != _score(spec, "transformer_training")


def test_quotes_in_usd_without_taxes_pass_prepare_as_they_are() -> None:
    body = _body()
    body["prices"] = {**body["prices"]}
    body["prices"]["owned"] = [*QUOTES, {"name": "in euro", "gpu": "RTX 4090", "unit_price_usd": 1500.0,
                                         "currency": "EUR"}]
    profile = Profile.model_validate(body)
    catalog = bundled_catalog()
    prepared = prepare(profile, catalog).profile.prices.owned
    assert all(p is q for p, q in zip(prepared[:-1], profile.prices.owned, strict=False))
    euro = prepared[-1]
    assert euro.currency == "USD" and euro.unit_price_usd == catalog.fx.convert(1500.0, "EUR", "USD")
    taxed = prepare(Profile.model_validate({**body, "options": {**body["options"], "vat_percent": 20}}),
                    catalog).profile.prices.owned
    assert [q.unit_price_usd for q in taxed[:-1]] == [q["unit_price_usd"] * 1.2 for q in QUOTES]
