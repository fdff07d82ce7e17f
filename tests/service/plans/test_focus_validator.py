"""The CSV export's FOCUS columns, checked by the FinOps Foundation's own validator (focus-validator on PyPI).

The export is a plan's line items with the FOCUS columns it can fill (service/plans/exports.py), not a whole FOCUS
dataset: columns it has no value for (BillingAccountId, ChargePeriodStart, SkuId, ...) are absent, and the
validator's rule that each is present fails; those are the only failures allowed, and every rule of a column the
export claims must pass. The lines cover every FOCUS-relevant kind: purchases and their tax, on-demand and spot
cloud hours, a commitment's used and unused hours, running costs, interest, electricity, resale and a carbon price.

focus-validator runs in a virtualenv of its own: its 1.0.0 (the newest release the package index serves here)
pins numpy < 2 and pandas < 3, which the project's environment is past. `.ci/run` installs it and points
GPUPLAN_FOCUS_VALIDATOR at its `focus-validator` script; without that variable the test skips. The validator reads
its currency list from a path relative to the working directory (focus_validator/utils/download_currency_codes.py,
`CURRENCY_CODE_CSV_PATH`), so it runs from its site-packages folder. It needs no network.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pricing.catalog import Catalog, bundled_catalog
from service.plans.exports import CSV_COLUMNS, FOCUS_COLUMNS, plan_csv
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY
from tests.service.plans.test_finance_exports import _finance_profile
from tests.service.plans.test_focus_and_basis import _commitment_profile

VALIDATOR = os.environ.get("GPUPLAN_FOCUS_VALIDATOR")
FOCUS_VERSION = "1.0"  # the newest the validator 1.0.0 knows (0.5, 1.0-preview, 1.0)
# FOCUS 1.0 names the provider column ProviderName, the validator's 1.0 rules still Provider (1.0-preview's name);
# PricingCurrency came with FOCUS 1.2: no rule of the validator covers these two
UNCHECKED = {"ProviderName", "PricingCurrency"}

pytestmark = pytest.mark.skipif(not VALIDATOR, reason="set GPUPLAN_FOCUS_VALIDATOR to a focus-validator script "
                                "(.ci/run installs one in .venv-focus)")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _export(catalog: Catalog, body: dict[str, Any]) -> list[dict[str, str]]:
    text = plan_csv(make_plan(Profile.model_validate(body), catalog, TODAY))
    return list(csv.DictReader(io.StringIO(text)))


def _rows(catalog: Catalog) -> list[dict[str, str]]:
    """Line items of two plans: bought hardware with 19% VAT, a commitment worked 90% of its hours, running costs,
    financing, electricity and resale; and spot hours beside a fully used commitment, with a carbon price."""
    finance = _finance_profile()
    finance["options"].update(vat_percent=19, resale=True)
    return _export(catalog, finance) + _export(catalog, _commitment_profile(carbon_price_per_tonne=100))


def _validate(rows: list[dict[str, str]], workdir: Path) -> dict[str, str | None]:
    """Rule id -> None when it passed, else the validator's message."""
    assert VALIDATOR and Path(VALIDATOR).exists(), f"GPUPLAN_FOCUS_VALIDATOR={VALIDATOR} does not exist"
    data, report = workdir / "export.csv", workdir / "focus.xml"
    with data.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS + FOCUS_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    python = Path(VALIDATOR).parent / "python"
    packages = subprocess.run([str(python), "-c", "import focus_validator, pathlib; "
                               "print(pathlib.Path(focus_validator.__file__).parents[1])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    done = subprocess.run([VALIDATOR, "--data-file", str(data), "--validate-version", FOCUS_VERSION,
                           "--output-type", "unittest", "--output-destination", str(report)],
                          cwd=packages, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and report.exists(), done.stdout + done.stderr
    results: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        rule = case.attrib["name"].split(" :: ")[0]
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        results[rule] = None if problem is None else problem.attrib.get("message", "failed")
    return results


def test_the_exports_focus_columns_pass_the_finops_validator(catalog: Catalog, tmp_path: Path) -> None:
    rows = _rows(catalog)
    kinds = {r["type"] for r in rows}
    assert {"gpu", "tax", "cloud", "commitment", "opex", "financing", "electricity", "resale", "carbon"} <= kinds
    assert {r["CommitmentDiscountStatus"] for r in rows if r["type"] == "commitment"} == {"Used", "Unused"}
    results = _validate(rows, tmp_path)
    for rule in ("ListCost_NotNull", "ContractedCost_NotNull", "CommitmentDiscountStatus_Required",
                 "CommitmentDiscountStatus_Enum"):  # what issue 33 found missing
        assert results[rule] is None, (rule, results[rule])
    claimed = set(FOCUS_COLUMNS) - UNCHECKED
    ours = {rule: problem for rule, problem in results.items() if rule.split("_")[0] in claimed}
    # every claimed column the validator knows is checked: present, typed, nulls and allowed values
    assert {rule.split("_")[0] for rule in ours} == {c for c in claimed if not c.startswith("x_")}
    assert len(ours) >= 60, sorted(ours)
    assert {rule: problem for rule, problem in ours.items() if problem} == {}
    others = {rule: problem for rule, problem in results.items() if rule not in ours and problem}
    assert all(rule.endswith("_Required") for rule in others), others  # only absent columns we do not claim
