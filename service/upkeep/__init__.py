"""The background sweeps that keep what Redis holds bounded: abandoned matches end, ended ones are
compacted, old ones deleted. Imports ``service.match`` and below (never the transports)."""
