"""The cards of a run's rounds, dealt again from the seed alone.

A round's deck is a function of (seed, unit, round) (`rng`, `round.deal_deck`),
so what each seat was dealt can be computed for any row of a run without
replaying its play, by the engine's own dealing (`position.start_round`,
`position.deal`). Arrays and scalars in, arrays out; card sets are uint64::

    units, numbers, dealers   int64[rows]: each row's unit (round, or game),
                              round within its game (0 for rounds) and dealer
    hands    uint64[rows, players]  each seat's first hand
    dealt    uint64[rows, players]  every card each seat was dealt in the round
    tables   uint64[rows]           the first table
"""
import numpy as np

from ._jit import outlined
from .bits import ZERO
from .layout import N_CARDS, R_PLAYERS, R_REFILL
from .position import DECK, HAND, TABLE, deal, start_round
from .round import deal_deck


@outlined
def deal_sets(seed, units, numbers, dealers, rules, hands, dealt, tables, deck, rng, pos):
    """Fill hands, dealt and tables for every row (scratch: deck int64[40],
    rng uint64[1], pos uint64[POS_SIZE])."""
    n = rules[R_PLAYERS]
    for row in range(units.shape[0]):
        deal_deck(seed, units[row], numbers[row], deck, rng)
        start_round(pos, deck, dealers[row], rules)
        tables[row] = pos[TABLE]
        for s in range(n):
            hands[row, s] = pos[HAND + s]
            dealt[row, s] = pos[HAND + s]
        while rules[R_REFILL] and pos[DECK] < N_CARDS:
            for s in range(n):
                pos[HAND + s] = ZERO
            deal(pos, deck, rules)
            for s in range(n):
                dealt[row, s] |= pos[HAND + s]
