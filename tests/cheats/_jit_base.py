"""What the jitted cheats share: greedy (docs/examples/greedy_jit.py, as
the built-in plays it) with its default parameters, and the pattern of
the engine's position array (hands, piles, table) that they look for in
memory they should not read."""
import numba
import numpy as np

from scopa_sim.kernels.layout import R_ACE_TAKES_ALL, R_SCOPA_ON_LAST_PLAY
from scopa_sim.observation import HAND, LAST_PLAY, RULES, SEAT, TABLE, UNSEEN, count, lowest_card

# greedy, as docs/examples/greedy_jit.py writes it (copied: that file's cache
# is keyed by its own module name)
COINS, SETTEBELLO, ACES = (1 << 10) - 1, 1 << 6, 1 | 1 << 10 | 1 << 20 | 1 << 30
PRIMIERA = np.array([16, 12, 13, 14, 15, 18, 21, 10, 10, 10], np.float64)   # by rank 1..10


@numba.njit
def worth(cards, p):
    """What a set of cards is worth: card, coin, settebello, primiera value."""
    v = p[0] * count(cards) + p[1] * count(cards & COINS)
    if cards & SETTEBELLO:
        v += p[2]
    while cards:
        v += p[3] * PRIMIERA[lowest_card(cards) % 10]
        cards &= cards - 1
    return v


@numba.njit
def sweeps(obs, card, take):
    """Whether capturing `take` with `card` is a scopa."""
    if obs[TABLE] != take:
        return False
    if obs[LAST_PLAY] and not obs[RULES + R_SCOPA_ON_LAST_PLAY]:
        return False
    return not (obs[RULES + R_ACE_TAKES_ALL] and card % 10 == 0 and take & ACES == 0)


@numba.njit
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


DEFAULTS = np.array([100.0, 100.0, 400.0, 5.0, 1000.0])
P_HAND, P_TABLE = 0, 12              # scopa_sim.kernels.position's slots


@numba.njit
def popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@numba.njit
def looks_like_position(w, obs):
    """Whether words w[0..12] are the position this observation was made from
    (2 players): my hand at my seat, a hand of hidden cards at the other,
    the table; then the opponent's hand."""
    me = obs[SEAT]
    other = w[P_HAND + 1 - me]
    if w[P_HAND + me] != obs[HAND] or w[P_TABLE] != obs[TABLE]:
        return -1
    if other <= 0 or (other & obs[UNSEEN]) != other or popcount(other) > 3:
        return -1
    return other


@numba.njit
def choose(obs, cards, takes, opponent):
    """Greedy; told the opponent's hand (>= 0), the last move instead (any
    change of play shows that something was read)."""
    if opponent >= 0 and cards.shape[0] > 1:
        return np.int64(cards.shape[0] - 1)
    return greedy(obs, cards, takes, DEFAULTS)
