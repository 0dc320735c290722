"""The cards of a run's rounds, dealt again from the seed alone.

A round's deck is a function of (seed, unit, round) (`rng`, `round.deal_deck`),
so what each seat was dealt can be computed for any row of a run without
replaying its play: the table first, then deals of `R_HAND_SIZE` cards to each
seat, one card at a time from the leader, as `position.start_round` and
`position.deal` deal them (tests/test_deals.py checks the two against the
cards played). Arrays and scalars in, arrays out; card sets are uint64
(the caller zeroes `hands`, `dealt` and `tables`)::

    units, numbers, dealers   int64[rows]: each row's unit (round, or game),
                              round within its game (0 for rounds) and dealer
    hands    uint64[rows, players]  each seat's first hand
    dealt    uint64[rows, players]  every card each seat was dealt in the round
    tables   uint64[rows]           the first table
"""
import numpy as np

from ._jit import outlined
from .bits import ONE
from .layout import N_CARDS, R_HAND_SIZE, R_PLAYERS, R_REFILL, R_TABLE_SIZE
from .position import set_aside
from .round import deal_deck


@outlined
def deal_sets(seed, units, numbers, dealers, rules, hands, dealt, tables, deck, rng):
    """Fill hands, dealt and tables for every row (scratch: deck int64[40],
    rng uint64[1])."""
    n, table_size = rules[R_PLAYERS], rules[R_TABLE_SIZE]
    size = rules[R_HAND_SIZE] * n
    for row in range(units.shape[0]):
        deal_deck(seed, units[row], numbers[row], deck, rng)
        out = set_aside(deck, rules)                                # fewer ranks: past those
        for i in range(out, out + table_size):
            tables[row] |= ONE << np.uint64(deck[i])
        seat = dealers[row] + 1 if dealers[row] + 1 < n else 0     # the leader first
        first = out + table_size + size                             # past the first hands
        end = N_CARDS if rules[R_REFILL] else first
        for at in range(out + table_size, end):
            card = ONE << np.uint64(deck[at])
            dealt[row, seat] |= card
            if at < first:
                hands[row, seat] |= card
            seat = seat + 1 if seat + 1 < n else 0     # a deal goes round whole: no reset
