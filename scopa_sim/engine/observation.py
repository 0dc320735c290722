"""What a user strategy sees: the observation of the seat to play (its
authors import it as `scopa_sim.observation`).

A jitted strategy reads the array by these indices (compile-time
constants in Numba)::

    from scopa_sim.observation import HAND, TABLE, PILES, SIDE, count
    mine = count(obs[PILES + obs[SIDE]])      # cards my side has taken

(`count` and `lowest_card` are jitted helpers on card sets, one machine
instruction each.)
a Python strategy gets the same as an `Observation`. Card sets are int64
with bit `card` set; a card is `suit*10 + rank - 1` (suits: coins, cups,
swords, clubs; `scopa_sim.card_name`). The layout is `kernels.observe`'s.
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import cards_of
from ..kernels import observe as _o
from ..kernels.layout import RANK, RANK_CARDS       # noqa: F401  (for strategies to use)
from ..kernels.observe import count, lowest_card     # noqa: F401  (jitted card-set helpers)
from .rules import Rules

SEAT, SIDE, DEALER, PLAYS = _o.O_SEAT, _o.O_SIDE, _o.O_DEALER, _o.O_PLAYS
DECK_LEFT, LAST, RANDOM, LAST_PLAY = _o.O_DECK_LEFT, _o.O_LAST, _o.O_RANDOM, _o.O_LAST_PLAY
HAND, TABLE, PLAYED, UNSEEN = _o.O_HAND, _o.O_TABLE, _o.O_PLAYED, _o.O_UNSEEN
PILES, SCOPAS, SCORES, HAND_SIZES = _o.O_PILES, _o.O_SCOPAS, _o.O_SCORES, _o.O_HAND_SIZES
RULES, SIZE = _o.O_RULES, _o.O_SIZE


@dataclass(frozen=True)
class Observation:
    """What the seat to play may know (cards as ints 0..39, sorted):

    seat, side, dealer; plays (made this round), deck_left (cards still to
    be dealt), last_capturer (seat, -1: none), last_play (this is the
    round's last play), random (63 random bits for this decision, fixed by
    the run's seed); hand, table, played (every card out of play), unseen
    (in other hands or the deck); piles, scopas and scores (game scores
    before this round) per side; hand_sizes per seat; the rules.
    """
    seat: int
    side: int
    dealer: int
    plays: int
    deck_left: int
    last_capturer: int
    last_play: bool
    random: int
    hand: tuple[int, ...]
    table: tuple[int, ...]
    played: tuple[int, ...]
    unseen: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    scopas: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    rules: Rules

    @classmethod
    def from_array(cls, obs, rules: Rules) -> Observation:
        o = [int(x) for x in obs]
        sides, players = rules.n_sides, rules.players
        return cls(o[SEAT], o[SIDE], o[DEALER], o[PLAYS], o[DECK_LEFT], o[LAST],
                   bool(o[LAST_PLAY]), o[RANDOM], tuple(cards_of(o[HAND])),
                   tuple(cards_of(o[TABLE])), tuple(cards_of(o[PLAYED])),
                   tuple(cards_of(o[UNSEEN])),
                   tuple(tuple(cards_of(o[PILES + t])) for t in range(sides)),
                   tuple(o[SCOPAS:SCOPAS + sides]), tuple(o[SCORES:SCORES + sides]),
                   tuple(o[HAND_SIZES:HAND_SIZES + players]), rules)
