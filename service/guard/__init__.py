"""Guarding the service open to the public: rate limits and quotas shared by every process and
replica (their counters in Redis, by the ``limits`` library), the client's address through trusted
proxies only, and new matches and players refused before Redis is full.

Applied by the transports (``service.api``) around every call, the same for gRPC and REST; the match
core and the ladder know nothing of it. Imports ``service.upkeep`` and below, never the transports.

- ``limit_settings``: the named limits, their defaults, ``--limit`` flags and the ``--limits`` file;
- ``rate_limits``: the limits counted in Redis (sliding window counters), the refusal's shape;
- ``addresses``: who is calling (``X-Forwarded-For`` from ``--trusted-proxy`` networks only);
- ``store_capacity``: Redis's memory against its ``maxmemory`` (``STORE_FULL``);
- ``call_guard``: what applies to each RPC, before the call and after a refusal.
"""
