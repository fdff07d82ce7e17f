"""/docs (Swagger UI) and /redoc work without a CDN: their pages load scripts, styles and icon from the service
itself (the files ship in the fastapi-offline package), so the API's documentation works offline
(tests/e2e/test_api_docs.py renders both in Chromium with every request off the machine refused)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings

ASSET = re.compile(r"""(?:src|href)=["']([^"']+)["']|(?:url|Url)\s*[:=]\s*["']([^"']+)["']""")


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'docs.db'}", scheduler=False)))


@pytest.mark.parametrize(("page", "script"), [("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")])
def test_the_docs_pages_load_everything_from_the_service(client: TestClient, page: str, script: str) -> None:
    answer = client.get(page)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assets = {a or b for a, b in ASSET.findall(answer.text)}
    assert any(a.endswith(script) for a in assets), assets
    assert [a for a in assets if re.match(r"(https?:)?//", a)] == []  # nothing from another host
    for asset in assets:
        loaded = client.get(asset)
        assert loaded.status_code == 200 and len(loaded.content) > 200, asset
    assert "/openapi.json" in assets
