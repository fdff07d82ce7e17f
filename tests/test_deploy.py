"""The deployment files say only what the code can do: they parse, the Kubernetes manifests pass the API
schema, and every command, port, probe path and GPUPLAN_* variable they name exists in the code. The
operations guide's configuration table (docs/operations.md) is the one generated from Settings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import typer
import yaml

from pricing.sources import SOURCE_CLASSES
from pricing.sources.base import SourceConfig
from service.cli import app as cli_app
from service.core import settings_doc
from service.core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
COMPOSE = DEPLOY / "compose.yaml"
KUBERNETES_VERSION = "1.30.0"  # the oldest Kubernetes these manifests are meant for
ENV_NAME = re.compile(r"\bGPUPLAN_[A-Z0-9_]+\b(?!<)")  # not the `GPUPLAN_SOURCES__<SOURCE>__...` pattern


def _manifests() -> list[tuple[Path, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(path, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return docs


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def _containers() -> Iterator[tuple[str, dict[str, Any]]]:
    for _, doc in _manifests():
        spec = doc.get("spec", {})
        pod = spec.get("template", {}).get("spec", {})
        for container in pod.get("containers", []):
            yield doc["metadata"]["name"], container


def _setting_problem(name: str) -> str | None:
    """Why `name` (GPUPLAN_...) is no setting, or None when Settings reads it."""
    parts = name.removeprefix("GPUPLAN_").lower().split("__")
    if parts[0] not in Settings.model_fields:
        return f"{name}: no setting {parts[0]!r}"
    if parts[0] == "sources" and len(parts) > 1:
        if len(parts) != 3:
            return f"{name}: expected GPUPLAN_SOURCES__<SOURCE>__<FIELD>"
        if parts[1] not in SOURCE_CLASSES:
            return f"{name}: no source {parts[1]!r}"
        if parts[2] not in SourceConfig.model_fields:
            return f"{name}: sources have no field {parts[2]!r}"
    elif len(parts) > 1:
        return f"{name}: {parts[0]} has no nested fields"
    return None


def _commands() -> set[str]:
    group = typer.main.get_command(cli_app)
    return set(getattr(group, "commands", {}))


def _check_command(command: list[str] | str, where: str) -> None:
    words = command.split() if isinstance(command, str) else command
    assert words[0] == "gpuplan", f"{where}: runs {words[0]!r}, not the gpuplan command"
    assert words[1] in _commands(), f"{where}: `gpuplan {words[1]}` is not a command of service/cli.py"


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], int]]:
    """The status the service answers a GET of a path with (a real app on a fresh SQLite file)."""
    from fastapi.testclient import TestClient

    from service.app import create_app

    db = tmp_path_factory.mktemp("deploy") / "gpuplan.db"
    with TestClient(create_app(Settings(database_url=f"sqlite:///{db}", scheduler=False))) as client:
        yield lambda path: client.get(path).status_code


def test_the_kubernetes_manifests_pass_the_api_schema() -> None:
    manifests = _manifests()
    assert {doc["kind"] for _, doc in manifests} >= {"Deployment", "Service", "Job", "ConfigMap", "Secret"}
    for path, doc in manifests:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{path.name}: {doc['kind']}/{doc['metadata']['name']}: {exc.message}")


def test_a_manifest_with_a_typo_fails_the_schema_check() -> None:
    """The check above can fail: a misspelt probe field and a wrong type are both caught."""
    _, api = next((p, d) for p, d in _manifests() if d["kind"] == "Deployment")
    broken = yaml.safe_load(yaml.safe_dump(api))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGett"] = {"path": "/readyz"}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)
    broken = yaml.safe_load(yaml.safe_dump(api))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_the_kustomization_lists_existing_files() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    for resource in kustomization["resources"]:
        assert (K8S / resource).is_file(), resource


def test_every_kubernetes_probe_and_port_exists_in_the_code(answers: Callable[[str], int]) -> None:
    containers = dict(_containers())
    api, scheduler = containers["gpuplan-api"], containers["gpuplan-scheduler"]
    _check_command(api["command"], "gpuplan-api")
    _check_command(scheduler["command"], "gpuplan-scheduler")
    env = {e["name"]: e["value"] for e in api["env"]}
    api_ports = {p["name"]: p["containerPort"] for p in api["ports"]}
    assert api_ports["http"] == int(env.get("GPUPLAN_PORT", Settings.model_fields["port"].default))
    assert env["GPUPLAN_SCHEDULER"] == "false"  # the scheduler Deployment refreshes
    assert api["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert api["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert answers("/no-such-probe") == 404  # the check below can fail
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert answers(api[probe]["httpGet"]["path"]) == 200, probe
    sched_env = {e["name"]: e["value"] for e in scheduler["env"]}
    sched_ports = {p["name"]: p["containerPort"] for p in scheduler["ports"]}
    assert sched_ports["metrics"] == int(sched_env["GPUPLAN_SCHEDULER_METRICS_PORT"])
    assert scheduler["livenessProbe"]["httpGet"]["port"] == "metrics"
    for _, doc in _manifests():
        if doc["kind"] == "Service":
            assert doc["spec"]["ports"][0]["targetPort"] in api_ports
        annotations = doc.get("spec", {}).get("template", {}).get("metadata", {}).get("annotations", {})
        if annotations:
            assert answers(annotations["prometheus.io/path"]) == 200
            assert int(annotations["prometheus.io/port"]) in (api_ports["http"], sched_ports["metrics"])
    job = next(doc for _, doc in _manifests() if doc["kind"] == "Job")
    _check_command(job["spec"]["template"]["spec"]["containers"][0]["command"], "migration Job")


def test_the_compose_file_runs_postgres_migrate_api_replicas_and_the_scheduler() -> None:
    services = _compose()["services"]
    assert set(services) >= {"postgres", "migrate", "api", "scheduler"}
    assert "healthcheck" in services["postgres"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["api"]["deploy"]["replicas"] >= 2
    assert services["api"]["environment"]["GPUPLAN_SCHEDULER"] == "false"
    assert services["api"]["ports"][0].endswith(f":{services['api']['environment']['GPUPLAN_PORT']}")
    assert services["scheduler"]["deploy"]["replicas"] >= 2
    metrics_port = services["scheduler"]["environment"]["GPUPLAN_SCHEDULER_METRICS_PORT"]
    assert f":{metrics_port}/metrics" in " ".join(services["scheduler"]["healthcheck"]["test"])
    for name in ("migrate", "api", "scheduler"):
        _check_command(services[name]["command"], f"compose service {name}")
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
        assert (COMPOSE.parent / services[name]["build"]["context"] / "deploy" / "Dockerfile").is_file()


def test_every_gpuplan_variable_in_the_deploy_files_is_a_setting() -> None:
    files = [COMPOSE, DEPLOY / "Dockerfile", DEPLOY / "gpuplan.env.example", *sorted(K8S.glob("*.yaml"))]
    seen = {name: path.name for path in files for name in ENV_NAME.findall(path.read_text())}
    assert len(seen) > 10
    problems = [f"{where}: {why}" for name, where in seen.items() if (why := _setting_problem(name))]
    assert not problems, "\n".join(problems)


def test_the_checks_of_variable_names_can_fail() -> None:
    assert _setting_problem("GPUPLAN_SCHEDULER_TICK_S") is None
    assert _setting_problem("GPUPLAN_SOURCES__EBAY__API_SECRET") is None
    assert _setting_problem("GPUPLAN_SCHEDULER_TICKS") is not None
    assert _setting_problem("GPUPLAN_SOURCES__EBAYY__API_KEY") is not None
    assert _setting_problem("GPUPLAN_SOURCES__EBAY__APIKEY") is not None
    assert _setting_problem("GPUPLAN_PORT__X") is not None


def test_the_configmap_and_compose_values_are_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not just the names: Settings accepts the values the deploy files give."""
    configmap = next(doc for _, doc in _manifests() if doc["kind"] == "ConfigMap")
    compose_env = _compose()["x-gpuplan-environment"]
    for values in (configmap["data"], {k: v for k, v in compose_env.items() if "${" not in str(v)}):
        with monkeypatch.context() as patch:
            for name, value in values.items():
                patch.setenv(name, str(value))
            settings = Settings()
        assert settings.log_format == values["GPUPLAN_LOG_FORMAT"]
        assert settings.migrate_on_start is False
    assert Settings.model_validate({}).migrate_on_start is True


def test_the_dockerfile_is_slim_non_root_and_checks_healthz() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    bases = re.findall(r"^FROM (\S+)", text, re.M)
    assert bases and all(re.fullmatch(r"python:3\.1\d-slim", b) for b in bases)
    assert 'pip install --no-cache-dir --prefix=/install ".[postgres,aws]"' in text
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user and user[-1].split(":")[0] not in ("0", "root")
    healthcheck = re.search(r"^HEALTHCHECK .*?(?<!\\)$", text, re.M | re.S)
    assert healthcheck and "/healthz" in healthcheck.group(0)
    exposed = re.findall(r"^EXPOSE (\d+)", text, re.M)
    assert exposed == [re.search(r"GPUPLAN_PORT=(\d+)", text).group(1)]  # type: ignore[union-attr]
    _check_command(re.findall(r'^CMD \["(\w+)", "(\w+)"\]', text, re.M)[-1][0] + " "
                   + re.findall(r'^CMD \["(\w+)", "(\w+)"\]', text, re.M)[-1][1], "Dockerfile CMD")
    for copied in re.findall(r"^COPY (?!--from)(\S+)", text, re.M):
        assert (ROOT / copied).exists(), copied


def test_the_operations_guide_lists_every_setting_with_its_default() -> None:
    missing = settings_doc.undocumented()
    assert not missing, (f"settings without a description: {missing}; add one (Field(description=...) or "
                         "service/core/settings_doc.py DESCRIPTIONS) and run "
                         "`python -m service.core.settings_doc --write docs/operations.md`")
    readme = (ROOT / "docs" / "operations.md").read_text()
    expected = settings_doc.replace_between_markers(readme, settings_doc.table())
    assert readme == expected, ("docs/operations.md's configuration table is out of date: run "
                                "`python -m service.core.settings_doc --write docs/operations.md`")
    listed = set(re.findall(r"^\| `(GPUPLAN_[A-Z0-9_<>]+)`", readme, re.M))
    assert {f"GPUPLAN_{name.upper()}" for name in Settings.model_fields} <= listed
