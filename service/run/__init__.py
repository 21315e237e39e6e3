"""Running the service: its configuration, the server (gRPC and HTTP on one event loop), ``--workers``,
readiness, and the ``typhoon serve`` and ``typhoon admin`` commands. The top: it may import every other
package of ``service``; only ``clients`` import it."""
