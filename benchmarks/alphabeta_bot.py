"""An outside-style opponent: a few determinizations, each searched by
alpha-beta on the material taken (a user strategy, for 2-player scopa).

The public Scopa bot that issue 13 measured us against works this way (a few
sampled deals of the unseen cards, each searched to a few plies by
alpha-beta, under 1 ms a move). That program does not install here, so this
is a bot of the same design, written for this engine, to judge strength
against a kind of player unlike our own rollout searches:

- `worlds` times, deal the unseen cards at random: the opponent's hand
  (its size is public) and the next deal's two hands;
- in each, search every legal move 4 plies deep (the root move included,
  into the next deal) by negamax with alpha-beta; a move scores the worth
  of what it takes (greedy's weights in hundredths of a card, a scopa 1000)
  less the other player's best reply;
- play the move of best total over the deals (the first on a tie).

It knows the default rules only (a card that matches a table card's rank must
take one of them; else any set summing to its rank; else it trails), so use
it on `scopa`:

    scopa-sim compare counter benchmarks/alphabeta_bot.py:alphabeta --deals 4000
"""
import numba
import numpy as np

import scopa_sim
from scopa_sim.observation import (
    DECK_LEFT, HAND, HAND_SIZES, LAST_PLAY, RANDOM, RULES, SEAT, TABLE, UNSEEN, count,
    lowest_card)
from scopa_sim.kernels.layout import R_ACE_TAKES_ALL, R_FEWEST_CARDS, R_PLAYERS

COINS, SETTEBELLO = (1 << 10) - 1, 1 << 6
PRIMIERA = np.array([16, 12, 13, 14, 15, 18, 21, 10, 10, 10], np.float64)    # by rank 1..10
RANK_OF = np.array([c % 10 + 1 for c in range(40)], np.int64)
OF_RANK = np.array([sum(1 << (s * 10 + r - 1) for s in range(4)) if r else 0
                    for r in range(11)], np.int64)                         # rank -> its 4 cards
BELOW = np.array([sum(int(OF_RANK[q]) for q in range(1, r)) for r in range(11)],
                 np.int64)                                                  # rank -> lower ranks
SCOPA = 1000.0


@numba.njit(cache=True)
def worth(cards):
    """Greedy's worth of a set of cards: 100 a card, 100 a coin, 400 the
    settebello, 5 a primiera point."""
    v = 100.0 * count(cards) + 100.0 * count(cards & COINS)
    if cards & SETTEBELLO:
        v += 400.0
    while cards:
        v += 5.0 * PRIMIERA[lowest_card(cards) % 10]
        cards &= cards - 1
    return v


@numba.njit(cache=True)
def rank_sum(cards):
    s = 0
    while cards:
        s += RANK_OF[lowest_card(cards)]
        cards &= cards - 1
    return s


@numba.njit(cache=True)
def gain(card, take, table, last):
    """What playing `card` and taking `take` from `table` scores (a trail: 0)."""
    if take == 0:
        return 0.0
    v = worth(take | (1 << card))
    if take == table and not last:
        v += SCOPA
    return v


@numba.njit(cache=True)
def next_capture(r, table, t):
    """The capture of a card of rank `r` after capture `t` (-1: the first);
    0 when there is no other (first: the card can only trail)."""
    singles = table & OF_RANK[r]
    if singles:                                  # it must take one matching card
        rest = singles if t < 0 else singles & ~((t << 1) - 1)
        return rest & -rest
    pool = table & BELOW[r]
    s = pool if t < 0 else (t - 1) & pool
    while s:                                     # else the sets summing to r
        if rank_sum(s) == r:
            return s
        s = (s - 1) & pool
    return 0


@numba.njit(cache=True)
def leaf(me, other, next_me, next_other, table, deck_left, alpha, beta):
    return 0.0


def deeper(child):
    """The negamax level above `child`: for the player holding `me`, to move,
    the best gain of a move minus `child`'s value of the position after it."""
    @numba.njit
    def level(me, other, next_me, next_other, table, deck_left, alpha, beta):
        if me == 0:                               # the hands are out: the next deal
            if next_me == 0:
                return 0.0
            me, other, next_me, next_other = next_me, next_other, 0, 0
            deck_left -= count(me | other)
        last = deck_left == 0 and count(me | other) == 1
        best = -np.inf
        hand = me
        while hand:
            c = lowest_card(hand)
            hand &= hand - 1
            r = RANK_OF[c]
            t = next_capture(r, table, -1)
            while True:                           # each capture of c, or its trail
                g = gain(c, t, table, last)               # the window shifts by it
                v = g - child(other, me ^ (1 << c), next_other, next_me,
                              table ^ t if t else table | (1 << c), deck_left, g - beta,
                              g - max(alpha, best))
                if v > best:
                    best = v
                    if best >= beta:
                        return best
                if t == 0:
                    break
                t = next_capture(r, table, t)
                if t == 0:
                    break
        return best
    return level


def searcher(plies):
    """The negamax value `plies` deep."""
    level = leaf
    for _ in range(plies):
        level = deeper(level)
    return level


@numba.njit(cache=True)
def xorshift(state):
    """The next state of a 63-bit xorshift generator."""
    state ^= (state << 13) & 0x7FFFFFFFFFFFFFFF
    state ^= state >> 7
    state ^= (state << 17) & 0x7FFFFFFFFFFFFFFF
    return state


@numba.njit(cache=True)
def deal(pool, size, state):
    """`size` cards drawn at random from `pool`, and the generator's state."""
    hand = 0
    for _ in range(size):
        state = xorshift(state)
        rest = pool
        for _ in range(state % count(pool)):
            rest &= rest - 1
        c = lowest_card(rest)
        hand |= 1 << c
        pool &= ~(1 << c)
    return hand, state


REPLY = searcher(3)                               # the root move, then 3 plies


@scopa_sim.params(worlds=6.0)
@numba.njit
def alphabeta(obs, cards, takes, params):
    """The move of best total value over `worlds` deals of the hidden cards."""
    if obs[RULES + R_PLAYERS] != 2 or obs[RULES + R_ACE_TAKES_ALL] or obs[RULES + R_FEWEST_CARDS]:
        raise ValueError("it plays 2-player scopa only, without ace_takes_all or fewest_cards")
    if cards.shape[0] == 1:
        return 0
    size = obs[HAND_SIZES + 1 - obs[SEAT]]
    refill = 3 if obs[DECK_LEFT] >= 6 else 0       # the next deal, if the deck has one
    table = obs[TABLE]
    best, best_total = 0, -np.inf
    for i in range(cards.shape[0]):
        c, t = cards[i], takes[i]
        state = obs[RANDOM] | 1                   # the same deals for every move
        total = 0.0
        for _ in range(int(params[0])):
            hand, state = deal(obs[UNSEEN], size, state)
            mine, state = deal(obs[UNSEEN] & ~hand, refill, state)
            theirs, state = deal(obs[UNSEEN] & ~hand & ~mine, refill, state)
            total += gain(c, t, table, obs[LAST_PLAY] != 0) - REPLY(
                hand, obs[HAND] ^ (1 << c), theirs, mine, table ^ t if t else table | (1 << c),
                obs[DECK_LEFT], -np.inf, np.inf)
        if total > best_total:
            best, best_total = i, total
    return best
