"""The match core (``core.MatchService``) and what it is made of: clocks, the log's entries and history,
repeated requests' answers, the audit, battles, the scenario catalogue, rulesets, the cache and the
conversions between engine values and proto messages. Imports the engine, ``service.store`` and below."""
