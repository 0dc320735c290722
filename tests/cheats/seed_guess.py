"""A Python entrant that guesses the run's seed from its own first cards
(every seed below 65,536, through the public kernels), then deals every
round again and knows the opponent's hand."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402
from scopa_sim.engine.rules import packed  # noqa: E402
from scopa_sim.kernels import position as P  # noqa: E402
from scopa_sim.kernels.round import deal_deck  # noqa: E402

LIMIT = 65_536
STATE = {"seed": None, "tried": False, "unit": -1, "deck": None, "plays": 10**9}
_deck, _rng = np.zeros(40, np.int64), np.zeros(1, np.uint64)
_pos = np.zeros(P.POS_SIZE, np.uint64)


def _deal(seed, unit, rules):
    """The first hands and table of round 0 of `unit` (rounds runs)."""
    deal_deck(np.uint64(seed), np.int64(unit), np.int64(0), _deck, _rng)
    P.start_round(_pos, _deck, unit % rules[0], rules)
    return _pos.copy(), _deck.copy()


def _matches(pos, v) -> bool:
    """Whether a dealt position is this round: my hand as dealt, the table
    as dealt less what the cards played since took."""
    hand = int(pos[P.HAND + v["seat"]])
    return (v["hand"] & ~hand) == 0 and (int(pos[P.TABLE]) & ~(v["table"] | v["played"])) == 0 \
        and (hand & ~(v["hand"] | v["played"])) == 0


def _find_unit(v, rules):
    for unit in [*range(STATE["unit"] + 1, STATE["unit"] + 40), *range(0, 4000)]:
        pos, deck = _deal(STATE["seed"], unit, rules)
        if _matches(pos, v):
            STATE["unit"], STATE["deck"] = unit, deck
            return deck
    STATE["unit"] = -1
    return None


def _guess(v, rules):
    STATE["tried"] = True
    for seed in range(LIMIT):
        pos, _ = _deal(seed, 0, rules)
        if _matches(pos, v) and int(pos[P.HAND + v["seat"]]) == v["hand"]:
            STATE["seed"] = seed
            return


def seed_guess(obs, moves):
    v, rules = _base.view(obs), packed(obs.rules).copy()      # the kernels take it writable
    if not STATE["tried"]:
        _guess(v, rules)
    opponents = None
    if STATE["seed"] is not None:
        if obs.plays <= STATE["plays"] or STATE["deck"] is None:     # a new round
            STATE["deck"] = _find_unit(v, rules)
        STATE["plays"] = obs.plays
        deck = STATE["deck"]
        if deck is not None:
            left = _base.mask_of(int(c) for c in deck[40 - v["deck_left"]:])
            opponents = v["unseen"] & ~left
    return _base.choose(v, _base.moves_of(moves), opponents)
