"""Greedy, written as a user strategy compiled into the kernel.

Takes the most valuable capture (in hundredths of a card: 100 a card, 100 a
coin, 400 the settebello, 5 a primiera point, 1000 a scopa); with nothing
to take, trails its least valuable card. It plays exactly as the built-in
`greedy`, so a run of it gives the same bytes.

    scopa-sim compare docs/examples/greedy_jit.py:greedy counter --deals 100000
"""
import numba
import numpy as np

import scopa_sim
from scopa_sim.kernels.layout import R_ACE_TAKES_ALL, R_SCOPA_ON_LAST_PLAY
from scopa_sim.observation import LAST_PLAY, RULES, TABLE, count, lowest_card

COINS, SETTEBELLO, ACES = (1 << 10) - 1, 1 << 6, 1 | 1 << 10 | 1 << 20 | 1 << 30
PRIMIERA = np.array([16, 12, 13, 14, 15, 18, 21, 10, 10, 10], np.float64)   # by rank 1..10


@numba.njit(cache=True)
def worth(cards, p):
    """What a set of cards is worth: card, coin, settebello, primiera value."""
    v = p[0] * count(cards) + p[1] * count(cards & COINS)
    if cards & SETTEBELLO:
        v += p[2]
    while cards:
        v += p[3] * PRIMIERA[lowest_card(cards) % 10]
        cards &= cards - 1
    return v


@numba.njit(cache=True)
def sweeps(obs, card, take):
    """Whether capturing `take` with `card` is a scopa."""
    if obs[TABLE] != take:
        return False
    if obs[LAST_PLAY] and not obs[RULES + R_SCOPA_ON_LAST_PLAY]:
        return False
    return not (obs[RULES + R_ACE_TAKES_ALL] and card % 10 == 0 and take & ACES == 0)


@scopa_sim.params(card=100.0, coin=100.0, settebello=400.0, primiera=5.0, scopa=1000.0)
@numba.njit(cache=True)
def greedy(obs, cards, takes, params):
    """Best immediate gain: a scopa, then the most valuable capture; else
    trail the least valuable card."""
    if cards.shape[0] == 1:
        return 0
    best, best_value = 0, -np.inf
    for i in range(cards.shape[0]):
        if takes[i]:
            value = worth(takes[i] | (1 << cards[i]), params)
            if sweeps(obs, cards[i], takes[i]):
                value += params[4]
        else:
            value = -worth(1 << cards[i], params)
        if value > best_value:
            best, best_value = i, value
    return best
