"""The user guide's field reference is the models' own: every public field of the profile, the plan and the workload
estimate has a description, and the generated pages show every field with it (service/core/schema_doc.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from pydantic.json_schema import models_json_schema

from service.core import schema_doc
from service.core.schema_doc import PAGES, ReferencePage, render, undocumented
from solvers.base.profile import Profile

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("page", PAGES, ids=[p.path for p in PAGES])
def test_every_public_field_has_a_description(page: ReferencePage) -> None:
    missing = undocumented(page)
    assert not missing, f"fields without Field(description=...): {missing}"


def test_a_field_without_a_description_is_found() -> None:
    class Inner(BaseModel):
        said: int = Field(1, description="a documented field")
        silent: int = 2

    class Outer(BaseModel):
        inner: Inner = Field(description="the nested model")

    page = ReferencePage("reference/x.md", "X", "", ((Outer, "validation"),))
    assert undocumented(page) == ["Inner.silent"]


def test_the_profile_page_lists_every_field_of_every_model_with_its_description() -> None:
    page = PAGES[0]
    text = render(page)
    _, document = models_json_schema([(Profile, "validation")], ref_template=schema_doc.REF_PREFIX + "{model}")
    for name, model in document["$defs"].items():
        section = text.split(f"## {name} {{#{name.lower()}}}", 1)
        assert len(section) == 2, f"no section for {name}"
        body = section[1].split("\n## ", 1)[0]
        for field, prop in model["properties"].items():
            row = next((line for line in body.splitlines() if line.startswith(f"| `{field}` |")), None)
            assert row is not None, f"{name}.{field} is not on the page"
            assert schema_doc._cell(prop["description"]) in row


def test_types_defaults_and_rules_come_from_the_schema() -> None:
    text = render(PAGES[0])
    options = text.split("## PlanOptions", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"^\| `availability` \| number \| `0.95` \| `> 0`; `<= 1` \|", options, re.M)
    assert re.search(r"^\| `machine_on` \| `\"always\"`, `\"when_working\"` or number \| `\"when_working\"` \|",
                     options, re.M)
    assert "| `financing` | [FinancingInput](#financinginput) or null | `null` |" in options
    profile = text.split("## Profile {#profile}", 1)[1].split("\n## ", 1)[0]
    assert "| `workload` | " in profile and "[PlanWorkload](#planworkload) | required |" in profile
    assert "At `options.financing`." in text  # where a nested model sits in the request
    answer = render(PAGES[1])  # the plan is an answer: a field is there, not required
    assert "| `horizon` | [PlanHorizon](#planhorizon) |  |" in answer and "| required |" not in answer


def test_the_reference_pages_are_in_the_nav_and_the_hook_writes_each() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    hook = (ROOT / "docs/hooks/reference.py").read_text()
    assert "docs/hooks/reference.py" in nav and "from service.core.schema_doc import PAGES" in hook
    for page in PAGES:
        assert page.path in nav
        assert not (ROOT / "docs" / page.path).exists(), f"{page.path} is generated: do not commit it"
