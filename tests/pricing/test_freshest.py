"""One row per offer, the freshest wins (pricing/tools/freshest.py), and the bundle builder applying it."""

from __future__ import annotations

from pricing.tools.build_bundle import build_all
from pricing.tools.freshest import freshest


def _row(region: str, as_of: str, usd: str, name: str = "gpu_8x_h100_sxm5", source: str = "s") -> dict[str, str]:
    return {"provider": "lambda", "name": name, "region": region, "pricing": "on_demand", "usd_per_hour": usd,
            "as_of": as_of, "source": source}


def test_the_newest_reading_of_an_offer_wins_whatever_source_gave_it() -> None:
    old, new = _row("us-east-1", "2025-04-28", "23.92", source="previous"), _row("us-east-1", "2026-05-15", "31.92")
    kept, dropped = freshest([new, old])
    assert kept == [new]
    assert [(d.dropped["usd_per_hour"], d.by["usd_per_hour"]) for d in dropped] == [("23.92", "31.92")]
    assert "superseded by 31.92 USD/h of 2026-05-15" in dropped[0].describe()


def test_a_global_row_speaks_for_every_region_but_a_newer_regional_row_only_for_its_own() -> None:
    regional_old = _row("us-east-1", "2025-04-28", "23.92")
    global_mid = _row("global", "2026-05-15", "31.92")
    regional_new = _row("us-west-1", "2026-09-01", "30.00")
    kept, dropped = freshest([regional_old, global_mid, regional_new])
    assert kept == [global_mid, regional_new]  # the global row still prices the other regions
    assert [d.dropped for d in dropped] == [regional_old]


def test_other_instances_regions_and_pricing_models_are_other_offers() -> None:
    rows = [_row("us-east-1", "2025-04-28", "1"), _row("us-west-2", "2026-01-01", "2"),
            _row("us-east-1", "2026-01-01", "3", name="gpu_1x_h100_sxm5"),
            {**_row("us-east-1", "2026-01-01", "4"), "pricing": "spot"}]
    kept, dropped = freshest(rows)
    assert kept == rows and dropped == []


def test_two_readings_of_one_day_keep_the_first_source_given() -> None:
    first = _row("us-east-1", "2026-05-15", "31.92", source="a")
    second = _row("us-east-1", "2026-05-15", "30", source="b")
    kept, dropped = freshest([first, second])
    assert kept == [first] and dropped[0].dropped == second


def test_the_bundle_builder_keeps_one_row_per_offer_and_reports_what_it_dropped() -> None:
    build = build_all()
    keys = [(r["provider"], r["name"], r["region"], r["pricing"]) for r in build.cloud]
    assert len(keys) == len(set(keys))
    by_key = {(r["provider"], r["name"], r["pricing"]): r for r in build.cloud}
    # the stale rows: Lambda 8x H100 (2025-04, 2.99 per GPU-hour) and AWS p4de before the June 2025 cut
    assert by_key[("lambda", "gpu_8x_h100_sxm5", "on_demand")]["usd_per_hour"] == "31.92"
    assert by_key[("aws", "p4de.24xlarge", "on_demand")]["usd_per_hour"] == "27.44705"
    dropped = {(s.dropped["provider"], s.dropped["name"], s.dropped["as_of"]) for s in build.superseded}
    assert ("lambda", "gpu_8x_h100_sxm5", "2025-04-28") in dropped
    assert ("aws", "p4de.24xlarge", "2024-12-01") in dropped
    assert build.skipped["superseded by a fresher reading of the same offer"] == len(build.superseded)
