"""Strategies in the kernel: (strategy id, parameter vector) per seat.

`choose` dispatches on the id and returns the index of the chosen move in the
canonical move list. A strategy sees its own hand, the table and the rules,
and draws from the round's random stream.
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, lowest, popcount
from .layout import COINS, PRIMIERA, SETTEBELLO
from .moves import clears_for_scopa
from .rng import below

RANDOM, GREEDY = 0, 1
# greedy parameters
P_CARD, P_COIN, P_SETTEBELLO, P_PRIMIERA, P_SCOPA = 0, 1, 2, 3, 4
PRIMIERA_BY_CARD = np.array([PRIMIERA[c % 10] for c in range(40)], np.float64)


@kernel
def worth(cards, p):
    """What a set of cards is worth to greedy: card, coin, settebello, primiera."""
    v = p[P_CARD] * popcount(cards) + p[P_COIN] * popcount(cards & COINS)
    if (cards >> np.uint64(SETTEBELLO)) & ONE:
        v += p[P_SETTEBELLO]
    m = cards
    while m:
        v += p[P_PRIMIERA] * PRIMIERA_BY_CARD[lowest(m)]
        m &= m - ONE
    return v


@kernel
def greedy(p, table, n, cards, takes, last_play, rules):
    """The best immediate gain, the first such move on a tie."""
    best = 0
    best_value = -np.inf
    for i in range(n):
        card_set = ONE << np.uint64(cards[i])
        if takes[i]:
            value = worth(takes[i] | card_set, p)
            if clears_for_scopa(table, takes[i], cards[i], last_play, rules):
                value += p[P_SCOPA]
        else:
            value = -worth(card_set, p)
        if value > best_value:
            best = i
            best_value = value
    return best


@kernel
def choose(strategy, p, table, n, cards, takes, last_play, rules, rng):
    """Index of the move `strategy` plays among the n legal moves."""
    if strategy == GREEDY:
        return greedy(p, table, n, cards, takes, last_play, rules)
    return below(rng, n)
