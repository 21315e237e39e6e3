"""The game service: gRPC and REST over one match core, with Redis as the single source of truth.

Its packages, lowest first (a module imports only from its own package or a lower one;
``tests/test_import_layers.py`` holds the order):

- the modules at this level: ``errors`` (the one error type), ``metrics``, ``tasks``, ``processes``,
  ``protogen``, and ``gen/`` (the generated API code), which everything may import;
- ``store/``: Redis: the match store and its scripts, the embedded Redis, the live feed of event streams;
- ``match/``: the match core, its clocks, history, answers, audit and the proto conversions;
- ``ladder/``: the ladder (registration, pairing, rating);
- ``upkeep/``: the sweeps that keep Redis bounded (abandoned, compacted, unused and expired matches);
- ``guard/``: what guards the service open to the public: rate limits in Redis, the client's address
  through trusted proxies, new matches refused before Redis is full (applied by the transports);
- ``api/``: the transports (gRPC, REST/JSON, OpenAPI, reflection) and the page;
- ``run/``: the process that runs them: server, workers, readiness, the ``serve`` and ``admin`` commands.
"""
