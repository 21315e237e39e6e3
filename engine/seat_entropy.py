"""The seats' part in the dice (ruleset 4 on): each seat commits to its entropy, then reveals it.

The dice of a match mix the service's secret seed, committed when the match is created, with each
seat's entropy (:mod:`engine.dice` has the formula). A seat gives its entropy in two steps, in the
order of the match's log:

1. **It commits**, once: to the SHA-256 of its entropy (:func:`engine.dice.entropy_commitment`), or to
   none (``""``: it gives no entropy). A seat decides when it takes its seat; a seat taken *for* it
   (a ladder's, or one a tournament runner claims) is *awaited* instead, and decides with its first
   word of its own. Once any side has committed, the game waits for every side's commitment: an
   awaited side's, and that of a side whose seat nobody has taken yet.
2. **It reveals**, once every side has committed (or given none): the entropy, which must match its
   commitment. Until every committed side has revealed, the game waits for the reveals.

While the game waits, the side it waits for is the side to act (:meth:`SeatEntropy.waiting_for`): its
clock runs, and it loses on time, as a player who does not move. A side that gives none gets an entropy
drawn from the seed at the first die (:func:`engine.dice.drawn_entropy`), as do both sides of a game
where no side took part. After the first die nothing more is taken.

**Why no single party can steer the dice.**

- *The service* committed to its seed before any seat's entropy was known. A commitment in the request
  that creates the match reaches it before it draws the seed, but a commitment is a hash: the seed
  cannot be chosen against an entropy nobody has seen.
- *A seat that knows the seed* (the service's operator playing a seat of its own) cannot try entropies
  until it likes the dice: it must commit before any entropy is revealed (reveals open only once every
  side has committed), so when it commits it has seen nothing of the other seat's entropy but a hash of
  128 or more random bits, and its reveal must match its commitment. A seat that copies the other's
  commitment binds itself to an entropy it does not know.
- *A seat that holds its reveal back* has seen the other's entropy and, knowing the seed, can compute
  the dice its own reveal gives. If holding back gave other dice it could compute too, it could choose
  the better of the two. It gets no dice at all: the game waits for its reveal, and a seat that never
  reveals loses on time (in a match without a clock the game waits, as it waits for any move). A
  loss is never a better outcome than the dice.
- *A seat that stays silent* cannot hold the other's reveal back forever (a veto that would leave the
  dice to the seed alone): it decides when it takes its seat, and a seat taken without a commitment
  gives none. An awaited seat that never commits has seen no entropy (none is revealed before every
  commitment): it learns nothing, and the game ends by its clock as for a player who never made a first
  move.
- *A seat that plays alone* (its opponent's seat still free) cannot roll dice that would then be the
  seed's alone, which the operator chose and a late opponent could not change: once a side has
  committed, the game waits for the other's commitment before any action.

What this does not prevent: two seats that collude; and a player who knows every roll once the entropy
is in (the operator knows the seed) may still resign, which gives the game's result, not other dice.

>>> GERMAN, SOVIET = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
>>> seats = SeatEntropy()
>>> seats.commit("german", entropy_commitment(GERMAN))
>>> seats.waiting_for()  # the soviet seat has not decided: nothing is revealed yet
('soviet', 'entropy_commitment')
>>> seats.reveal("german", GERMAN)
Traceback (most recent call last):
...
engine.errors.IllegalAction: the german side reveals its entropy once every side has committed (the soviet side has not)
>>> seats.commit("soviet", entropy_commitment(SOVIET))
>>> seats.waiting_for(), seats.due("soviet")
(('german', 'entropy_reveal'), 'entropy_reveal')
>>> seats.reveal("soviet", GERMAN)
Traceback (most recent call last):
...
engine.errors.IllegalAction: the soviet side's entropy does not match its commitment (SHA-256 4ba68aa8767b..., this entropy's 3eb1bd439947...)
>>> seats.reveal("soviet", SOVIET); seats.reveal("german", GERMAN)
>>> seats.waiting_for() is None and seats.entropy == {"soviet": SOVIET, "german": GERMAN}
True
"""

from __future__ import annotations

from .data import SIDES
from .dice import commitment_problem, entropy_commitment, entropy_problem
from .errors import IllegalAction, Reason

#: What the game waits for from a side: its commitment (it is awaited), or its reveal.
COMMITMENT = "entropy_commitment"
REVEAL = "entropy_reveal"


def _side(side: object) -> str:
    """``side`` if it is a side; refused otherwise. (Checked whatever it is: a compiled method takes a str.)"""
    if not isinstance(side, str) or side not in SIDES:
        raise IllegalAction(Reason.UNKNOWN_SIDE, f"{side!r} is not a side; sides: {', '.join(SIDES)}")
    return side


class SeatEntropy:
    """Each side's commitment and entropy. A commitment is the SHA-256 (hex) of the side's entropy, ``""``
    when it gives none, None while it is awaited; a side without one has not decided (its seat is free),
    and is awaited too once another side has decided.
    ``entropy`` holds what each side revealed, and, from the first die on, what was drawn for the others.
    Every refusal raises :class:`IllegalAction` and changes nothing."""

    def __init__(self) -> None:
        self.commitments: dict[str, str | None] = {}
        self.entropy: dict[str, str] = {}

    def copy(self) -> SeatEntropy:
        twin = SeatEntropy()
        twin.commitments = dict(self.commitments)
        twin.entropy = dict(self.entropy)
        return twin

    def await_commitment(self, side: object, closed: bool = False) -> None:
        """The game waits for ``side``'s commitment (its seat was taken for it). ``closed``: the first die
        has been rolled."""
        name = _side(side)
        self._check_open(closed)
        if name in self.commitments:
            raise IllegalAction(Reason.ENTROPY_COMMITTED, f"the {name} side has decided on its entropy already")
        self.commitments[name] = None

    def commit(self, side: object, commitment: object, closed: bool = False) -> None:
        """``side`` commits to its entropy's SHA-256 (``commitment``), or to none (``""``), once."""
        name = _side(side)
        if not isinstance(commitment, str):
            raise IllegalAction(Reason.BAD_COMMITMENT, commitment_problem(commitment) or "a commitment is text")
        problem = commitment_problem(commitment) if commitment else None
        if problem:
            raise IllegalAction(Reason.BAD_COMMITMENT, problem)
        self._check_open(closed)
        if self.commitments.get(name) is not None:
            raise IllegalAction(Reason.ENTROPY_COMMITTED, f"the {name} side has " + (
                "committed to its entropy already" if self.commitments[name] else "said it gives no entropy"))
        self.commitments[name] = commitment

    def reveal(self, side: object, entropy: object, closed: bool = False) -> None:
        """``side`` reveals the entropy it committed to, once every side has committed."""
        name = _side(side)
        problem = entropy_problem(entropy)
        if problem or not isinstance(entropy, str):
            raise IllegalAction(Reason.BAD_ENTROPY, problem or f"entropy must be text, not {entropy!r}")
        if name in self.entropy:
            raise IllegalAction(Reason.ENTROPY_GIVEN, f"the {name} side has given its entropy already")
        self._check_open(closed)
        commitment = self.commitments.get(name)
        if not commitment:
            raise IllegalAction(Reason.NOT_COMMITTED, f"the {name} side " + (
                "said it gives no entropy" if commitment == "" else "has not committed to an entropy") +
                ": a side reveals the entropy it committed to")
        undecided = [other for other in SIDES if self.commitments.get(other) is None]
        if undecided:
            raise IllegalAction(Reason.REVEAL_EARLY, f"the {name} side reveals its entropy once every side has "
                                                     f"committed (the {' and '.join(undecided)} side has not)")
        given = entropy_commitment(entropy)
        if given != commitment:
            raise IllegalAction(Reason.ENTROPY_MISMATCH, f"the {name} side's entropy does not match its commitment "
                                                         f"(SHA-256 {commitment[:12]}..., this entropy's {given[:12]}...)")
        self.entropy[name] = entropy

    @staticmethod
    def _check_open(closed: bool) -> None:
        if closed:
            raise IllegalAction(Reason.DICE_ROLLED, "the first die has been rolled: the dice take no more entropy")

    def due(self, side: str) -> str | None:
        """What the game waits for from ``side`` (before the first die): :data:`COMMITMENT`, :data:`REVEAL`
        or None."""
        commitments = self.commitments
        if commitments and commitments.get(side) is None:  # awaited, or undecided once another side took part
            return COMMITMENT
        if commitments.get(side) and side not in self.entropy and all(commitments.get(s) is not None for s in SIDES):
            return REVEAL
        return None

    def waiting_for(self) -> tuple[str, str] | None:
        """The side the game waits for and what it waits for (before the first die), the first side of
        :data:`engine.data.SIDES` if it waits for both; None when it waits for nobody."""
        if not self.commitments:
            return None
        for side in SIDES:
            due = self.due(side)
            if due:
                return side, due
        return None
