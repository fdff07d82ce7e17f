"""End-to-end fixtures: the real service (uvicorn in a subprocess, temp SQLite, scheduler off) and headless Chromium.

The browser is Debian's `chromium` driven by Playwright (`executable_path`), never a downloaded build.
Without it these tests skip with the reason, except where `GPUPLAN_E2E=1` (`.ci/run`): there they must run,
so a missing browser fails them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import requests

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = Path(os.environ.get("GPUPLAN_CHROMIUM", "/usr/bin/chromium"))
REQUIRED = os.environ.get("GPUPLAN_E2E", "") == "1"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("GPUPLAN_E2E_ARTIFACTS", ROOT / "artifacts" / "e2e"))
START_TIMEOUT_S = 60.0

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"GPUPLAN_E2E=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason} (apt-get install chromium; GPUPLAN_E2E=1 makes this a failure)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service as a user starts it, on a free loopback port; its log is shown if it fails to start."""
    workdir = tmp_path_factory.mktemp("e2e-service")
    port = _free_port()
    env = {**os.environ, "GPUPLAN_DATABASE_URL": f"sqlite:///{workdir / 'gpuplan.db'}", "GPUPLAN_SCHEDULER": "false"}
    log = (workdir / "uvicorn.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"the service exited with {process.returncode}:\n{(workdir / 'uvicorn.log').read_text()}")
            try:
                if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the service did not answer within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[e2e]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield launched
        launched.close()


def open_page(browser: Browser, viewport: dict[str, int]) -> tuple[Page, list[str]]:
    """A page in a fresh context; script errors and failed requests are collected so a test can insist on none."""
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
            if message.type == "error" else None)
    return page, problems


@pytest.fixture
def desktop(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    page, problems = open_page(browser, DESKTOP)
    yield page, problems
    page.context.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    page, problems = open_page(browser, PHONE)
    yield page, problems
    page.context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
