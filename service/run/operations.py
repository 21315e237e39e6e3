"""Where the operations endpoints are served: on the public ports, on the admin listeners, or nowhere.

========================  ================  =============================================================
endpoint                  default           flag
========================  ================  =============================================================
``GET /metrics``          ``admin``         ``--metrics public|admin|off``: what the process is doing is for
                                            its operators; the admin listener serves it (none without one)
``/docs``, ``/redoc``     ``public``        ``--docs public|admin|off``: the API's documentation, from the
                                            package (nothing loaded from elsewhere)
gRPC server reflection    ``public``        ``--reflection public|admin|off``: it describes the public API
                                            and nothing else (the same as proto/ and /openapi.json), and
                                            ``grpcurl`` needs it
``GET /openapi.json``     public (always)   for client generators; the admin listener serves it as well
health                    public (always)   ``GET /healthz``, ``GET /readyz``, ``grpc.health.v1.Health``:
                                            where probes and load balancers expect them; on the admin
                                            listeners as well
========================  ================  =============================================================

The admin listeners are ``--admin-port`` (HTTP: /metrics, /healthz, /readyz, /openapi.json, /docs when
placed there) and ``--admin-grpc-port`` (gRPC: health, and reflection when placed there), on
``--admin-host`` (127.0.0.1 by default: reachable from the machine only). Neither runs unless its port
is given; an endpoint placed on an admin listener that does not run is not served.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import BaseRoute

PLACES = ("public", "admin", "off")
#: The paths of the documentation routes (FastAPI's Swagger UI and ReDoc, and what they load).
DOCS_PATHS = ("/docs", "/redoc")


@dataclass(frozen=True)
class Operations:
    metrics: str = "admin"
    docs: str = "public"
    reflection: str = "public"
    admin_host: str = "127.0.0.1"
    #: The HTTP admin listener's port (0: any free port; None: none).
    admin_port: int | None = None
    #: The gRPC admin listener's port (0: any free port; None: none).
    admin_grpc_port: int | None = None

    def __post_init__(self) -> None:
        for name in ("metrics", "docs", "reflection"):
            if getattr(self, name) not in PLACES:
                raise ValueError(f"--{name}: one of {', '.join(PLACES)}, not {getattr(self, name)!r}")

    def served(self, name: str) -> str:
        """Where endpoint ``name`` really is: ``public``, ``admin`` (its admin listener runs) or ``off``.

        >>> Operations().served("metrics"), Operations(admin_port=0).served("metrics")
        ('off', 'admin')
        """
        place = getattr(self, name)
        listener = self.admin_grpc_port if name == "reflection" else self.admin_port
        return "off" if place == "admin" and listener is None else place

    def as_args(self) -> list[str]:
        """As ``typhoon serve`` flags (the admin ports excepted: the supervisor of ``--workers`` chooses them).

        >>> Operations(metrics="off").as_args()
        ['--metrics', 'off', '--docs', 'public', '--reflection', 'public', '--admin-host', '127.0.0.1']
        """
        return ["--metrics", self.metrics, "--docs", self.docs, "--reflection", self.reflection,
                "--admin-host", self.admin_host]


def is_docs_route(route: BaseRoute) -> bool:
    path = getattr(route, "path", "")
    return any(path == prefix or path.startswith(prefix + "/") for prefix in DOCS_PATHS)


def take_docs(public: Starlette) -> list[BaseRoute]:
    """Remove the documentation routes from the public app; return them (to serve them elsewhere)."""
    taken = [route for route in public.router.routes if is_docs_route(route)]
    public.router.routes[:] = [route for route in public.router.routes if not is_docs_route(route)]
    return taken


def admin_app(routes: list[BaseRoute]) -> Starlette:
    """The HTTP admin listener's app: ``routes`` (the health checks, /openapi.json, /metrics and
    /docs where placed here). A FastAPI app, not a bare Starlette one: /docs is a FastAPI route, which
    needs FastAPI's own middleware around it (a 500 without)."""
    return FastAPI(routes=routes, openapi_url=None, docs_url=None, redoc_url=None)


__all__ = ["Operations", "PLACES", "admin_app", "is_docs_route", "take_docs"]
