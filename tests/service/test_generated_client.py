"""A client generated from the OpenAPI document (openapi-python-client, the bench extra) runs the README's workflow
against the running service: create a plan, read it back, export its CSV, get its chart; save a profile and read
it back typed. The client is strict (`raise_on_unexpected_status`): a 200 the document does not describe, such as
an SVG or CSV answer without its media type and schema, fails here (issue 33).

openapi-python-client handles JSON, `text/*` and `application/octet-stream` answers and drops any other media type;
`image/svg+xml` is SVG's registered type, so the generator is told to read it as text (its documented
`content_type_overrides` setting), as any user of the generator would.
"""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import uvicorn

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE

pytest.importorskip("openapi_python_client", reason="the bench extra: pip install -e '.[bench]'")

PACKAGE = "gpuplan_client"
CONFIG = "content_type_overrides:\n  image/svg+xml: text/plain\npost_hooks: []\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """The service on a free loopback port (auth off, as `gpuplan serve` starts it) and its OpenAPI document."""
    workdir = tmp_path_factory.mktemp("generated-client")
    app = create_app(Settings(database_url=f"sqlite:///{workdir / 'gpuplan.db'}", scheduler=False,
                              plan_executor="inline"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app.openapi()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def client_package(service: tuple[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The client generated from the service's own document, importable as `gpuplan_client`."""
    workdir = tmp_path_factory.mktemp("generated")
    document, config = workdir / "openapi.json", workdir / "config.yaml"
    document.write_text(json.dumps(service[1]))
    config.write_text(CONFIG)
    done = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document),
                           "--config", str(config), "--meta", "none", "--output-path", str(workdir / PACKAGE)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # the generator warns about every operation or schema it could not turn into code (and leaves it out)
    assert "WARNING" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(workdir))
    try:
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(workdir))


def _api(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def test_the_readme_workflow_through_the_generated_client(service: tuple[str, dict[str, Any]],
                                                          client_package: ModuleType) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    client = client_package.Client(base_url=service[0], raise_on_unexpected_status=True, timeout=None)
    created = _api("plans.create_plan").sync(client=client, body=models.Profile.from_dict(WORKED_EXAMPLE))
    assert isinstance(created, models.PlanResult), created
    assert 285 <= created.break_even.days <= 300  # the guide's worked example (README)
    read = _api("plans.get_plan").sync(created.id, client=client)
    assert isinstance(read, models.PlanResult) and read.id == created.id
    assert isinstance(read.horizon, models.PlanHorizon) and read.horizon.days == created.horizon.days > 1000
    assert read.horizon.periods == 36
    table = _api("plans.get_plan_csv").sync(created.id, client=client)
    assert isinstance(table, str) and table.splitlines()[0].startswith("line,item,type,")
    assert "RTX 3090 desktop (guide 2020)" in table
    chart = _api("plans.get_plan_chart").sync(created.id, client=client)
    assert isinstance(chart, str) and "<svg" in chart[:400]
    sensitivity = _api("plans.get_plan_sensitivity_chart").sync(created.id, client=client)
    assert isinstance(sensitivity, str) and "<svg" in sensitivity[:400]


def test_a_saved_profile_reads_back_typed(service: tuple[str, dict[str, Any]], client_package: ModuleType) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    client = client_package.Client(base_url=service[0], raise_on_unexpected_status=True, timeout=None)
    body = models.ProfileIn.from_dict({"name": "worked example", "profile": WORKED_EXAMPLE})
    saved = _api("profiles.create_profile").sync(client=client, body=body)
    assert isinstance(saved, models.ProfileOut), saved
    read = _api("profiles.get_profile").sync(saved.id, client=client)
    assert isinstance(read, models.ProfileOut) and isinstance(read.profile, models.Profile)
    assert read.profile.horizon_months == 36 and read.profile.to_dict()["demand"]["reference_gpu"] == "RTX 3090"
    (version,) = _api("profiles.list_profile_versions").sync(saved.id, client=client)
    assert isinstance(version.profile, models.Profile)
