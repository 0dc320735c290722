"""The fast strategies: random, greedy, heuristic and counter.

Each scores every legal move from what its seat can see and plays the best
(the first on a tie); `random` draws one. A score is in hundredths of a card:
the worth of the cards taken (`worth`), a scopa bonus, and for heuristic and
counter the cost of what the move leaves on the table for the next player
(a sweepable table, exposed sevens, coins and the settebello). `heuristic`
charges those costs flat; `counter` multiplies them by the probability,
from the unseen cards, that the next player holds a card that takes them.
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, lowest, popcount
from .ids import (
    COUNTER, GREEDY, HEURISTIC, RANDOM, P_COIN, P_COIN_EXPOSED, P_PRIMIERA, P_SCOPA, P_SETTEBELLO,
    P_SETTEBELLO_EXPOSED, P_SEVEN, P_SWEEP, P_CARD)
from .layout import COINS, PRIMIERA, R_HAND, R_PLAYERS, R_TEAM, RANK, RANK_CARDS, SETTEBELLO
from .moves import clears_for_scopa
from .position import HAND, TABLE, is_last_play, unseen
from .rng import below

PRIMIERA_BY_CARD = np.array([PRIMIERA[c % 10] for c in range(40)], np.float64)
SETTEBELLO_SET = np.uint64(1 << SETTEBELLO)


@kernel
def worth(cards, p):
    """What a set of cards is worth: card, coin, settebello, primiera value."""
    v = p[P_CARD] * popcount(cards) + p[P_COIN] * popcount(cards & COINS)
    if cards & SETTEBELLO_SET:
        v += p[P_SETTEBELLO]
    m = cards
    while m:
        v += p[P_PRIMIERA] * PRIMIERA_BY_CARD[lowest(m)]
        m &= m - ONE
    return v


@kernel
def rank_sum(cards):
    s = 0
    m = cards
    while m:
        s += RANK[lowest(m)]
        m &= m - ONE
    return s


@kernel
def chance_holds(hidden, wanted, hand):
    """P(a hand of `hand` cards dealt from `hidden` holds one of `wanted`)."""
    total = popcount(hidden)
    good = popcount(hidden & wanted)
    if good == 0 or hand == 0:
        return 0.0
    miss = 1.0
    for i in range(hand):
        if total - good - i <= 0:
            return 1.0
        miss *= (total - good - i) / (total - i)
    return 1.0 - miss


@kernel
def gain(p, pos, rules, card, take):
    """Greedy's score of a move: worth taken (+ scopa), or minus worth trailed."""
    card_set = ONE << np.uint64(card)
    if take:
        v = worth(take | card_set, p)
        if clears_for_scopa(pos[TABLE], take, card, is_last_play(pos), rules):
            v += p[P_SCOPA]
        return v
    return -worth(card_set, p)


@kernel
def exposure(p, seat, pos, rules, card, take, counting):
    """Expected cost of the table this move leaves to the next player."""
    if is_last_play(pos):
        return 0.0
    n = rules[R_PLAYERS]
    nxt = seat + 1 if seat + 1 < n else 0
    if rules[R_TEAM + nxt] == rules[R_TEAM + seat]:
        return 0.0
    after = pos[TABLE] ^ take if take else pos[TABLE] | (ONE << np.uint64(card))
    if after == 0:
        return 0.0
    hand = popcount(pos[HAND + nxt])
    if hand == 0:
        hand = rules[R_HAND]
    hidden = unseen(pos, seat)
    cost = 0.0
    s = rank_sum(after)
    if s <= 10:
        cost += p[P_SWEEP] * (chance_holds(hidden, RANK_CARDS[s], hand) if counting else 1.0)
    sevens = after & RANK_CARDS[7]
    if sevens:
        chance = chance_holds(hidden, RANK_CARDS[7], hand) if counting else 1.0
        cost += p[P_SEVEN] * popcount(sevens) * chance
        if sevens & SETTEBELLO_SET:
            cost += p[P_SETTEBELLO_EXPOSED] * chance
    coins = after & COINS
    while coins:
        c = lowest(coins)
        coins &= coins - ONE
        cost += p[P_COIN_EXPOSED] * (chance_holds(hidden, RANK_CARDS[RANK[c]], hand)
                                     if counting else 1.0)
    return cost


@kernel
def greedy(p, pos, rules, n, cards, takes):
    """The move of best `gain` (the first on a tie)."""
    best = 0
    best_value = -np.inf
    for i in range(n):
        value = gain(p, pos, rules, cards[i], takes[i])
        if value > best_value:
            best = i
            best_value = value
    return best


@kernel
def cautious(p, seat, pos, rules, n, cards, takes, counting):
    """heuristic (and with `counting`, counter): the move of best gain minus
    exposure (the first on a tie)."""
    best = 0
    best_value = -np.inf
    for i in range(n):
        value = gain(p, pos, rules, cards[i], takes[i]) - exposure(
            p, seat, pos, rules, cards[i], takes[i], counting)
        if value > best_value:
            best = i
            best_value = value
    return best


@kernel
def choose_simple(strategy, p, seat, pos, rules, n, cards, takes, rng):
    """The move random or greedy plays among the n legal moves; -1 for any
    other strategy id. Only random draws (one number, even from one move)."""
    if strategy == RANDOM:
        return below(rng, n)
    if strategy == GREEDY:
        return 0 if n == 1 else greedy(p, pos, rules, n, cards, takes)
    return -1


@kernel
def choose_fast(strategy, p, seat, pos, rules, n, cards, takes, rng):
    """The move a fast strategy (random, greedy, heuristic, counter) plays;
    -1 for any other strategy id."""
    if strategy == HEURISTIC or strategy == COUNTER:
        return 0 if n == 1 else cautious(p, seat, pos, rules, n, cards, takes,
                                         strategy == COUNTER)
    return choose_simple(strategy, p, seat, pos, rules, n, cards, takes, rng)
