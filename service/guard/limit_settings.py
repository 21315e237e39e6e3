"""The named rate limits of ``typhoon serve``, their defaults, and how flags and a file change them.

Each limit has a name, the rates it allows (the ``limits`` library's notation: ``30/minute``, several
joined by ``;`` all hold: ``30/minute;300/hour``), whom it counts (a client address, or the API key or
seat token the call carries) and what a call meets when Redis cannot be asked (``open``: it goes on
unlimited; ``closed``: it is refused with UNAVAILABLE ``STORE_UNAVAILABLE``, as a call that needs Redis is).

>>> settings = LimitSettings.defaults()
>>> settings.rates("create_match")
'30/minute;300/hour'
>>> settings = settings.with_rates({"create_match": "5/second", "watch": "off"})
>>> settings.rates("create_match"), settings.rates("watch"), settings.enabled("watch")
('5/second', 'off', False)
>>> LimitSettings.defaults().with_rates({"create": "1/second"})
Traceback (most recent call last):
...
ValueError: there is no limit 'create'; the limits: create_match, join_match, register_player, register_owner, \
seek, submit_action, client_actions, resign, watch, stream_opens, key_failures, history, history_calls
>>> LimitSettings.defaults().with_rates({"watch": "many"})
Traceback (most recent call last):
...
ValueError: watch: 'many' is not a rate such as 30/minute, 10 per 5 minutes or 30/minute;300/hour (or off)
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from limits import parse_many

#: Whom a limit counts ("process": every client together, on each process, in its memory).
Identity = Literal["address", "credential", "process"]
#: What a call meets when Redis cannot be asked about the limit.
OnStoreError = Literal["open", "closed"]


@dataclass(frozen=True)
class Limit:
    """One named limit: its default rates, whom it counts, what it counts, and whether it lets calls
    through (``open``) or refuses them (``closed``) when Redis cannot be asked."""

    name: str
    rates: str
    identity: Identity
    counts: str
    on_store_error: OnStoreError


#: Every limit, with its default: sized for a public site where honest play never meets one (see
#: deploy/README.md, "Rate limits"). "credential": the seat token or API key the call carries (its
#: hash), else the address.
LIMITS: tuple[Limit, ...] = (
    Limit("create_match", "30/minute;300/hour", "address", "CreateMatch calls", "closed"),
    Limit("join_match", "60/minute;600/hour", "address", "JoinMatch calls", "closed"),
    Limit("register_player", "20/hour;100/day", "address", "ladder players registered (RegisterPlayer)", "closed"),
    Limit("register_owner", "5/hour;20/day", "address", "ladder owner accounts registered", "closed"),
    Limit("seek", "60/minute", "credential", "ladder Seek streams opened", "open"),
    Limit("submit_action", "1200/minute", "credential", "SubmitAction calls of one seat", "open"),
    # per client, all its seats together: 30 matches from one address are not 60 seats' worth of actions
    Limit("client_actions", "2400/minute", "address", "SubmitAction calls of one client (all its seats)", "open"),
    Limit("resign", "10/minute", "credential", "Resign calls of one seat", "open"),
    Limit("watch", "120/minute", "address", "watch streams opened (WatchMatch)", "open"),
    Limit("stream_opens", "50/second", "process", "watch and seek streams opened", "open"),
    Limit("key_failures", "10 per 5 minutes", "address", "seat tokens and keys refused", "closed"),
    # a budget of work, not of calls: each computation of the history pool (service.guard.history_pool)
    # spends the log entries it re-simulates; a campaign match has ~2,200
    Limit("history", "60000/minute;600000/hour", "address",
          "match log entries re-simulated (VerifyMatch, GetMatch at a version)", "open"),
    # counted in each process's memory, before anything is read: cached answers cost little, not nothing
    Limit("history_calls", "10/second;600/minute", "address",
          "VerifyMatch and GetMatch-at-a-version calls (per process, cached answers too)", "open"),
)
BY_NAME = {limit.name: limit for limit in LIMITS}
OFF = "off"


def check_rates(name: str, rates: str) -> str:
    """``rates`` as given, if the ``limits`` library reads it (or it is ``off``); else ValueError."""
    rates = rates.strip()
    if rates.lower() in (OFF, "0", "none", ""):
        return OFF
    try:
        items = parse_many(rates)
    except ValueError:
        items = []
    if not items or any(item.amount <= 0 for item in items):
        raise ValueError(f"{name}: {rates!r} is not a rate such as 30/minute, 10 per 5 minutes or "
                         f"30/minute;300/hour (or off)")
    return rates


@dataclass(frozen=True)
class LimitSettings:
    """The rates of every limit (name -> rates, or ``off``) and their behaviour when Redis is away."""

    rates_by_name: dict[str, str] = field(default_factory=dict)
    on_store_error: dict[str, OnStoreError] = field(default_factory=dict)

    @classmethod
    def defaults(cls) -> LimitSettings:
        return cls({limit.name: limit.rates for limit in LIMITS},
                   {limit.name: limit.on_store_error for limit in LIMITS})

    @classmethod
    def off(cls) -> LimitSettings:
        """No rate limit at all: a private service (the tests' servers, a local match run)."""
        return cls.defaults().with_rates({limit.name: OFF for limit in LIMITS})

    def rates(self, name: str) -> str:
        return self.rates_by_name[name]

    def enabled(self, name: str) -> bool:
        return self.rates_by_name[name] != OFF

    def with_rates(self, changes: dict[str, str]) -> LimitSettings:
        """These settings with the rates of some limits changed (``off`` switches one off)."""
        rates = dict(self.rates_by_name)
        for name, value in changes.items():
            _known(name)
            rates[name] = check_rates(name, str(value))
        return replace(self, rates_by_name=rates)

    def with_store_error(self, changes: dict[str, str]) -> LimitSettings:
        behaviour = dict(self.on_store_error)
        for name, value in changes.items():
            _known(name)
            if value not in ("open", "closed"):
                raise ValueError(f"{name}: on_store_error is open or closed, not {value!r}")
            behaviour[name] = value  # type: ignore[assignment]
        return replace(self, on_store_error=behaviour)

    def with_file(self, path: str | Path) -> LimitSettings:
        """These settings changed by a TOML or JSON file (see :func:`read_file`)."""
        rates, behaviour = read_file(path)
        return self.with_rates(rates).with_store_error(behaviour)

    def with_flags(self, flags: list[str]) -> LimitSettings:
        """These settings changed by ``--limit NAME=RATES`` flags.

        >>> LimitSettings.defaults().with_flags(["watch=3/minute"]).rates("watch")
        '3/minute'
        """
        changes = {}
        for flag in flags:
            name, equals, value = flag.partition("=")
            if not equals:
                raise ValueError(f"--limit {flag!r}: write NAME=RATES, e.g. create_match=30/minute")
            changes[name.strip()] = value
        return self.with_rates(changes)

    def table(self) -> list[dict[str, str]]:
        """Every limit as documented: name, rates, whom it counts, what, behaviour without Redis."""
        return [{"name": limit.name, "rates": self.rates_by_name[limit.name], "per": limit.identity,
                 "counts": limit.counts, "without_redis": self.on_store_error[limit.name]} for limit in LIMITS]


def _known(name: str) -> Limit:
    if name not in BY_NAME:
        raise ValueError(f"there is no limit {name!r}; the limits: {', '.join(BY_NAME)}")
    return BY_NAME[name]


def read_file(path: str | Path) -> tuple[dict[str, str], dict[str, str]]:
    """The rates and Redis-away behaviours a ``--limits`` file sets: TOML (``.toml``) or JSON, a table
    ``limits`` whose keys are limit names and whose values are rates, or tables with ``rates`` and
    ``on_store_error``::

        [limits]
        create_match = "10/minute;100/hour"
        watch = "off"
        key_failures = { rates = "5 per 10 minutes", on_store_error = "closed" }
    """
    path = Path(path)
    text = path.read_text()
    try:
        data: Any = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None
    table = data.get("limits") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise ValueError(f"{path}: expected a table 'limits' of limit names and rates")
    rates, behaviour = {}, {}
    for name, value in table.items():
        if isinstance(value, dict):
            unknown = set(value) - {"rates", "on_store_error"}
            if unknown:
                raise ValueError(f"{path}: {name}: unknown keys {', '.join(sorted(unknown))}")
            if "rates" in value:
                rates[name] = str(value["rates"])
            if "on_store_error" in value:
                behaviour[name] = str(value["on_store_error"])
        else:
            rates[name] = str(value)
    return rates, behaviour


__all__ = ["LIMITS", "Limit", "LimitSettings", "check_rates", "read_file"]
