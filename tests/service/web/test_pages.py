"""The HTML pages and their static files: served by the app itself and shipped as package data (no CDN)."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE
from service.web import STATIC_DIR, TEMPLATES_DIR

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url, scheduler=False)))


def test_plan_page_is_prefilled_with_the_worked_example(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    found = re.search(r'<script type="application/json" id="examples">(.*?)</script>', response.text, re.S)
    assert found is not None
    examples = json.loads(found.group(1))
    assert examples[0]["profile"] == WORKED_EXAMPLE
    assert 'id="plan-form"' in response.text and 'aria-live="assertive"' in response.text


def test_every_example_the_page_offers_plans(client: TestClient) -> None:
    """The picker puts each feature one click away (workload form, place and currency, finance): each must plan."""
    page = client.get("/").text
    found = re.search(r'<script type="application/json" id="examples">(.*?)</script>', page, re.S)
    assert found is not None
    examples = json.loads(found.group(1))
    assert {"worked_example", "catalog", "series", "workload", "place", "finance"} <= {e["id"] for e in examples}
    for example in examples:
        answer = client.post("/v1/plans", json=example["profile"])
        assert answer.status_code == 201, (example["id"], answer.text)
        assert example["label"] and not example["label"].startswith("ex.")


def test_price_page_and_static_files_are_served(client: TestClient) -> None:
    page = client.get("/prices").text
    assert "Cheapest offer per GPU" in page and 'id="commitment-table"' in page
    script = client.get("/static/plan.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/static/gpuplan.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/nothing.js").status_code == 404


def test_pages_load_nothing_from_other_hosts(client: TestClient) -> None:
    """The page must work without any external network: every src and href stays on this server."""
    texts = [client.get("/").text, client.get("/prices").text]
    texts += [path.read_text(encoding="utf-8") for path in STATIC_DIR.iterdir()]
    for text in texts:
        for url in re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", text):
            assert url.startswith(("/", "#", "?", "data:")), url
        assert "@import" not in text and "https://" not in text and "http://" not in text.replace(
            "http://www.w3.org/2000/svg", "")


def test_web_files_are_package_data() -> None:
    """`pip install .` (not only `-e`) must carry every page file: each matches a package-data pattern."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["service"]
    service_dir = ROOT / "service"
    files = [p for d in (STATIC_DIR, TEMPLATES_DIR) for p in d.rglob("*") if p.is_file()]
    assert files
    for path in files:
        relative = path.relative_to(service_dir).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative
