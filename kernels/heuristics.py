"""The fast strategies: random, greedy, heuristic, counter and reply.

Each scores every legal move from what its seat can see and plays the best
(the first on a tie); `random` draws one. A score is in hundredths of a card:
the worth of the cards taken (`worth`), a scopa bonus, and for the cautious
ones the cost of what the move leaves on the table for the next player
(a sweepable table, exposed sevens, coins and the settebello). `heuristic`
charges those costs flat; `counter` multiplies them by the probability,
from the unseen cards, that the next player holds a card that takes them;
`reply` adds the worth it takes by matching a card or the sum of two.

`choose_simple` (random and greedy) and `choose_fast` (every fast strategy
and the user strategies) are the choosers (`play`) the simple and fast
batch kernels and every rollout play with; `choose_random`, random's draw
with no dispatch on the id, is the chooser of a preset's batch kernel when
every seat plays random (`batch.preset_units`).
"""
import numpy as np

from ._jit import kernel, spliced
from .bits import ONE, lowest, popcount
from .registry import (
    ID, P_CARD, P_COIN, P_COIN_EXPOSED, P_MATCH, P_PAIR, P_PRIMIERA, P_SCOPA, P_SETTEBELLO,
    P_SETTEBELLO_EXPOSED, P_SEVEN, P_SWEEP)
from .layout import COINS, PRIMIERA, R_HAND_SIZE, R_PLAYERS, R_TEAMS, RANK, RANK_CARDS, SETTEBELLO
from .moves import clears_for_scopa
from .position import HAND, TABLE, is_last_play, unseen
from .rng import below
from .users import is_user, play_user

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
def chance(hidden, rank, hand, counting):
    """The chance the next player holds a card of `rank`: counted, or 1."""
    return chance_holds(hidden, RANK_CARDS[rank], hand) if counting else 1.0


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
def matched(p, after, hidden, hand):
    """reply's expected loss to the next player matching what `after` leaves:
    each card's worth times `match`, and each two cards summing to a rank
    absent from the table their worth times `pair`, times the chance it holds
    that rank."""
    cost = 0.0
    left = after
    while left:
        c = lowest(left)
        left &= left - ONE
        one = ONE << np.uint64(c)
        cost += p[P_MATCH] * worth(one, p) * chance(hidden, RANK[c], hand, True)
        rest = left
        while rest:
            d = lowest(rest)
            rest &= rest - ONE
            r = RANK[c] + RANK[d]
            if r <= 10 and not after & RANK_CARDS[r]:
                pair = one | (ONE << np.uint64(d))
                cost += p[P_PAIR] * worth(pair, p) * chance(hidden, r, hand, True)
    return cost


@kernel
def exposure(p, table, card, take, hidden, hand, counting, matching):
    """Expected cost of the table this move leaves to the next player, who
    holds `hand` cards dealt from `hidden` (`counting`), or every rank."""
    after = table ^ take if take else table | (ONE << np.uint64(card))
    if after == 0:
        return 0.0
    cost = 0.0
    s = rank_sum(after)
    if s <= 10:
        cost += p[P_SWEEP] * chance(hidden, s, hand, counting)
    sevens = after & RANK_CARDS[7]
    if sevens:
        taken = chance(hidden, 7, hand, counting)
        cost += p[P_SEVEN] * popcount(sevens) * taken
        if sevens & SETTEBELLO_SET:
            cost += p[P_SETTEBELLO_EXPOSED] * taken
    if matching:
        cost += matched(p, after, hidden, hand)
    coins = after & COINS
    while coins:
        c = lowest(coins)
        coins &= coins - ONE
        cost += p[P_COIN_EXPOSED] * chance(hidden, RANK[c], hand, counting)
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
def cautious(p, seat, pos, rules, n, cards, takes, counting, matching):
    """heuristic, with `counting` counter, with `matching` too reply: the move
    of best gain minus exposure (the first on a tie). Nothing is exposed on
    the round's last play or to a partner."""
    nxt = seat + 1 if seat + 1 < rules[R_PLAYERS] else 0
    exposed = not is_last_play(pos) and rules[R_TEAMS + nxt] != rules[R_TEAMS + seat]
    hidden = unseen(pos, seat)
    hand = popcount(pos[HAND + nxt])
    if hand == 0:
        hand = rules[R_HAND_SIZE]
    best = 0
    best_value = -np.inf
    for i in range(n):
        value = gain(p, pos, rules, cards[i], takes[i])
        if exposed:
            value -= exposure(p, pos[TABLE], cards[i], takes[i], hidden, hand, counting,
                              matching)
        if value > best_value:
            best = i
            best_value = value
    return best


@kernel
def pick_simple(strategy, p, seat, pos, rules, n, cards, takes, rng):
    """The move random or greedy plays among the n legal moves; -1 for any
    other strategy id. Only random draws (one number, even from one move)."""
    if strategy == ID.random:
        return below(rng, n)
    if strategy == ID.greedy:
        return 0 if n == 1 else greedy(p, pos, rules, n, cards, takes)
    return -1


@kernel
def pick_fast(strategy, p, seat, pos, rules, n, cards, takes, rng):
    """The move a fast strategy (random, greedy, heuristic, counter, reply) plays;
    -1 for any other strategy id."""
    if strategy == ID.heuristic or strategy == ID.counter or strategy == ID.reply:
        return 0 if n == 1 else cautious(p, seat, pos, rules, n, cards, takes,
                                         strategy != ID.heuristic, strategy == ID.reply)
    return pick_simple(strategy, p, seat, pos, rules, n, cards, takes, rng)


@spliced
def choose_simple(strategy, p, seat, n, board, kit):
    """The move of random or greedy; -1 for any other id."""
    return pick_simple(strategy, p, seat, board.pos, kit.rules, n, board.cards, board.takes,
                       kit.rng)


@spliced
def choose_random(strategy, p, seat, n, board, kit):
    """The move of random, for a lineup that is random at every seat: the
    draw alone (no dispatch on the id, no -1)."""
    return below(kit.rng, n)


@spliced
def choose_fast(strategy, p, seat, n, board, kit):
    """The move of a fast strategy (`pick_fast`) or a user strategy; -1 for
    any other id."""
    if is_user(strategy):
        return play_user(strategy, p, seat, board.pos, kit.rules, n, board.cards, board.takes,
                         kit.rng, kit.users)
    return pick_fast(strategy, p, seat, board.pos, kit.rules, n, board.cards, board.takes,
                     kit.rng)
