"""Seat tokens and key guesses (issue 34, point 8): weak and reused chosen tokens, JoinMatch as a
guessing oracle, a client retrying a stale token forever, and whether REST's KEY_INVALID tells more than
gRPC's.

* weak: CreateMatch with chosen tokens such as 32 × "a" (before issue 34: accepted), and one token for
  two matches (before: accepted);
* guesses: JoinMatch on a full match with a fresh random token each time, from one address (before: 60
  guesses a minute answered NO_FREE_SEAT, the address never locked): answers before the address waits;
* stale: a client resigning with the same wrong token 30 times (a library retrying its 401), then using
  its right token from the same address: whether it still may;
* wording: the distinct REST and gRPC sentences of KEY_INVALID for an unknown key and for an owner key
  on Seek (before: two on REST, telling whether a key exists);
* honest play (another address): actions per second alone, then while the guesser guesses.
"""

from __future__ import annotations

import multiprocessing
import random
import secrets
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import httpx

from clients.client import TyphoonClient, TyphoonError
from clients.ladder import LadderClient
from service.gen.typhoon.v1 import match_service_pb2 as api

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "token-guesses"
SUMMARY = "weak and reused seat tokens, JoinMatch guesses, a stale token retried forever, KEY_INVALID's wording"
HONEST, GUESSER, STALE, WEAK = "198.18.220.1", "198.18.221.1", "198.18.222.1", "198.18.223.1"
WEAK_TOKENS = ["a" * 32, "abcdefghijklmnopqrstuvwxyz012345", "0123456789" * 4, "passwordpasswordpasswordpassword"]


def _reason(call) -> str:
    try:
        call()
    except TyphoonError as error:
        return f"{error.reason} ({error.metadata['limit']})" if "limit" in error.metadata else error.reason
    return "accepted"


def _guess(grpc_target: str, match_id: str, seconds: float, answers: Any) -> None:
    """JoinMatch on ``match_id`` with a fresh random token, as fast as it answers, for ``seconds`` (in a process
    of its own: the guesser's CPU is not the honest client's)."""
    counted: Counter = Counter()
    with TyphoonClient(grpc_target, retries=0, rate_limit_patience=0, metadata=[("x-forwarded-for", GUESSER)]) as guesser:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            counted[_reason(lambda: guesser._call("JoinMatch", api.JoinMatchRequest(
                match_id=match_id, seat_token=secrets.token_urlsafe(32))))] += 1
    answers.put(dict(counted))


def _honest_rate(client: TyphoonClient, seconds: float) -> float:
    """Actions a second an honest client plays (random, both seats of a match of its own) for ``seconds``."""
    match, tokens = client.create_match(seats=["german", "soviet"])
    chooser, played, started = random.Random(NAME), 0, time.monotonic()
    while time.monotonic() - started < seconds:
        legal = client.legal_actions(match.match_id)
        if not legal.actions:
            match, tokens = client.create_match(seats=["german", "soviet"])
            continue
        client.submit(match.match_id, tokens[legal.side_to_act], chooser.choice(list(legal.actions)),
                      expected_version=legal.version)
        played += 1
    return played / seconds


def run(target: Target, seconds: float) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with TyphoonClient(target.grpc, retries=0, rate_limit_patience=0, metadata=[("x-forwarded-for", WEAK)]) as weak:
        figures["weak chosen tokens"] = dict(Counter(_reason(lambda t=t: weak._call("CreateMatch", api.CreateMatchRequest(
            seats=[api.SeatClaim(side="german", seat_token=t)]))) for t in WEAK_TOKENS))
        token = secrets.token_urlsafe(32)
        weak._call("CreateMatch", api.CreateMatchRequest(seats=[api.SeatClaim(side="german", seat_token=token)]))
        figures["a token for a second match"] = _reason(lambda: weak._call("CreateMatch", api.CreateMatchRequest(
            seats=[api.SeatClaim(side="german", seat_token=token)])))
    with TyphoonClient(target.grpc, rate_limit_patience=0, metadata=[("x-forwarded-for", HONEST)]) as honest:
        full, tokens = honest.create_match(seats=["german", "soviet"])
        alone = _honest_rate(honest, seconds / 4)
        spawn = multiprocessing.get_context("spawn")
        answers = spawn.Queue()
        guesser = spawn.Process(target=_guess, args=(target.grpc, full.match_id, seconds / 4 + 2, answers))
        guesser.start()
        time.sleep(2)  # the guesser's process is up and guessing
        during = _honest_rate(honest, seconds / 4)
        figures["JoinMatch guesses answered"] = answers.get(timeout=60)
        guesser.join(10)
        figures["honest actions/s alone, during the guesses"] = f"{alone:.1f}, {during:.1f}"
        with TyphoonClient(target.grpc, retries=0, rate_limit_patience=0,
                           metadata=[("x-forwarded-for", STALE)]) as stale:
            old = secrets.token_urlsafe(32)
            action = honest.legal_actions(full.match_id).actions[0]
            figures["a stale token sent 30 times"] = dict(Counter(_reason(lambda: stale.submit(
                full.match_id, old, action)) for _ in range(30)))
            figures["then its right token"] = _reason(lambda: stale._call("JoinMatch", api.JoinMatchRequest(
                match_id=full.match_id, seat_token=tokens["german"])))  # a repeated join: its own seat
    with LadderClient(target.grpc, retries=0, rate_limit_patience=0, metadata=[("x-forwarded-for", WEAK)]) as ladder, \
            httpx.Client(base_url=target.http, timeout=20, headers={"X-Forwarded-For": WEAK}) as rest:
        _, owner_key = ladder.register_owner(f"wording-{secrets.token_hex(4)}")
        sentences = set()
        for key in ("tpk_" + secrets.token_urlsafe(32), owner_key):
            try:
                next(iter(ladder.seek(key)))
            except TyphoonError as error:
                sentences.add(("grpc", error.reason, error.message))
            body = rest.get("/v1/ladder/seek", headers={"Authorization": f"Bearer {key}"}).json()["error"]
            sentences.add(("rest", body["reason"], body["message"]))
        figures["KEY_INVALID sentences (unknown key, owner key)"] = len({message for _, _, message in sentences})
    return figures
