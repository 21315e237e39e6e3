#!/usr/bin/env python3
"""Health check of a Typhoon service process, for Docker HEALTHCHECK, systemd or a monitoring probe.

    typhoon-healthcheck                                     # gRPC on 127.0.0.1:$TYPHOON_GRPC_PORT (50051)
    typhoon-healthcheck --grpc 127.0.0.1:50051              # grpc.health.v1.Health/Check
    typhoon-healthcheck --http http://127.0.0.1:8080        # GET /readyz (Redis answers, not saturated)
    typhoon-healthcheck --grpc --http                       # both, on the ports of the environment

``--grpc`` and ``--http`` without an address check 127.0.0.1 on the port ``typhoon serve`` takes from its
environment (TYPHOON_GRPC_PORT, TYPHOON_HTTP_PORT; as in the image), so the check follows a port changed
there.

Exit status 0 when every check answers SERVING, 1 otherwise (one line on stderr says why). The gRPC
check asks for the service "typhoon.v1.MatchService" (``--service ""`` asks for the whole server);
like /readyz it is NOT_SERVING while Redis is down, loading or frozen, while the process is saturated,
and from the start of its graceful shutdown, so a load balancer stops sending it new calls.
``--path /healthz`` checks liveness instead (the process answers, whatever Redis does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request


def check_grpc(target: str, service: str, timeout: float) -> str | None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service),
                                                               timeout=timeout)
        except grpc.RpcError as error:
            return f"gRPC {target}: {error.code().name} {error.details() or ''}".rstrip()
    if answer.status != health_pb2.HealthCheckResponse.SERVING:
        return f"gRPC {target}: {health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)}"
    return None


def check_http(base_url: str, timeout: float, path: str = "/readyz") -> str | None:
    url = base_url.rstrip("/") + path
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - an operator's URL
            status = json.loads(response.read() or b"{}").get("status")
    except Exception as error:  # noqa: BLE001 - any failure is "unhealthy"
        return f"HTTP {url}: {error}"
    return None if status == "SERVING" else f"HTTP {url}: {status}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Health check of a Typhoon service process")
    grpc_default = f"127.0.0.1:{os.environ.get('TYPHOON_GRPC_PORT') or 50051}"
    http_default = f"http://127.0.0.1:{os.environ.get('TYPHOON_HTTP_PORT') or 8080}"
    parser.add_argument("--grpc", metavar="HOST:PORT", nargs="?", const=grpc_default,
                        help=f"check grpc.health.v1 on this address (without one: {grpc_default})")
    parser.add_argument("--service", default="typhoon.v1.MatchService", help="the service name to ask about")
    parser.add_argument("--http", metavar="URL", nargs="?", const=http_default,
                        help=f"check GET <URL>/readyz (or --path; without a URL: {http_default})")
    parser.add_argument("--path", default="/readyz", help="/readyz (readiness, the default) or /healthz (liveness)")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    if not args.grpc and not args.http:
        args.grpc = grpc_default
    problems = []
    if args.grpc:
        problems.append(check_grpc(args.grpc, args.service, args.timeout))
    if args.http:
        problems.append(check_http(args.http, args.timeout, args.path))
    problems = [p for p in problems if p]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
