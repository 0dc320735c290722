"""net: a learned player. A small network values the position each legal move
leaves (its afterstate, from the mover's side), and the move of highest value
is played (the first on a tie). When nothing is hidden any more it plays
the exact endgame, as the searches do, and once the deck is out and few
cards are left in several hands, endgame's sampled one, the only part that
draws random numbers (the strategy, `search.net`). The searches' rollouts can play it
(`choose_rollout`) and take its value of the position where they cut a
rollout short (`position_value`: its best move's value).

The afterstate, seen by the mover only (no hidden card), is `A_SIZE` whole
numbers (`after`, one per AFTER_FIELDS name)::

    hand, table, mine, theirs     card sets: the mover's hand, the table, its
                                  side's pile, the other sides' piles (union)
    scopas_mine, scopas_theirs    its side's scopas, the other sides' (sum)
    deck_left                     cards still to be dealt
    hand_size, next_hand          cards in its hand, in the next seat's
    last                          last capturer: 0 nobody, 1 its side, 2 another
    next_partner                  1 if the next seat is on its side
    table_sum                     the ranks on the table, summed (a sweep's target)
    unseen                        the cards it has not seen (other hands, the deck)

The network's input is that afterstate as F_SIZE zeros and ones
(FEATURE_FIELDS: a bit per card of each set, one of a count's slots, capped
at the last; `unseen_rank`: for each rank, one of five slots, how many of its
cards are unseen; `takes`: for each rank, 1 if a card of it would take from
the table, some of its cards summing to the rank), so the first layer is a
sum of its rows over the ones::

    value = w3 . relu(w2' relu(w1' x + b1) + b2) + b3     (float32)
    x: F_SIZE    w1: F_SIZE x H1    w2: H1 x H2    w3: H2

The rows the moves share (the other sides' piles and scopas, the mover's
pile before the move, the deck, the next seat, the unseen cards) are summed once per decision
(`shared_rows`), each move adds its own (`own_rows`). `Net` holds the
weights of one or more networks stacked on a leading axis (a seat's
`weights` parameter is its index) and the decision's scratch.
"""
from typing import NamedTuple

import numpy as np

from ._jit import kernel, spliced
from .bits import ONE, lowest, popcount
from .heuristics import choose_fast, rank_sum
from .layout import MAX_MOVES, N_CARDS, N_RANKS, R_PLAYERS, R_SIDES, R_TEAMS, RANK_CARDS, slots
from .moves import best_total, clears_for_scopa, legal_moves, table_sums
from .position import DECK, HAND, LAST, PILE, SCOPAS, TABLE, TURN, is_last_play, unseen
from .registry import ID, P_WEIGHTS

AFTER_FIELDS = ("hand", "table", "mine", "theirs", "scopas_mine", "scopas_theirs",
                "deck_left", "hand_size", "next_hand", "last", "next_partner", "table_sum",
                "unseen")
A_SIZE = len(AFTER_FIELDS)
(A_HAND, A_TABLE, A_MINE, A_THEIRS, A_SCOPAS_MINE, A_SCOPAS_THEIRS, A_DECK_LEFT, A_HAND_SIZE,
 A_NEXT_HAND, A_LAST, A_NEXT_PARTNER, A_TABLE_SUM, A_UNSEEN) = range(A_SIZE)

FEATURE_FIELDS = (("hand", N_CARDS), ("table", N_CARDS), ("mine", N_CARDS), ("theirs", N_CARDS),
                  ("scopas_mine", 8), ("scopas_theirs", 8), ("deck_left", N_CARDS + 1),
                  ("hand_size", 11), ("next_hand", 11), ("last", 3), ("next_partner", 1),
                  ("table_sum", 12), ("unseen_rank", 5 * N_RANKS), ("takes", N_RANKS))
_F, F_SIZE = slots(FEATURE_FIELDS)            # F_SIZE: 315
(F_HAND, F_TABLE, F_MINE, F_THEIRS, F_SCOPAS_MINE, F_SCOPAS_THEIRS, F_DECK_LEFT, F_HAND_SIZE,
 F_NEXT_HAND, F_LAST, F_NEXT_PARTNER, F_TABLE_SUM, F_UNSEEN_RANK, F_TAKES) = (
    _F[name] for name, _ in FEATURE_FIELDS)
EARLIER_F_SIZES = (_F["takes"],)   # the inputs of networks made before `takes` was added: a
                                   # prefix of today's, the rows after it zeros
WIDTH = {name: size for name, size in FEATURE_FIELDS}
W_SCOPAS, W_DECK_LEFT, W_HANDS, W_TABLE_SUM = (
    WIDTH[f] for f in ("scopas_mine", "deck_left", "hand_size", "table_sum"))
W_RANK = WIDTH["unseen_rank"] // N_RANKS       # 0..4 of a rank's cards unseen


class Net(NamedTuple):
    """Networks stacked on axis 0 (float32), and one decision's scratch."""
    w1: np.ndarray             # [models, F_SIZE, H1]
    b1: np.ndarray             # [models, H1]
    w2: np.ndarray             # [models, H1, H2]
    b2: np.ndarray             # [models, H2]
    w3: np.ndarray             # [models, H2]
    b3: np.ndarray             # [models]
    base: np.ndarray           # [H1]: the first layer's sum over the shared rows
    z: np.ndarray              # [H1]: one move's first layer
    z2: np.ndarray             # [H2]: its second layer
    after: np.ndarray          # int64[A_SIZE]: its afterstate
    values: np.ndarray         # float32[MAX_MOVES]: each move's value
    units: np.ndarray          # int64[H1]: the first layer's positive units (`head`)
    active: np.ndarray         # float32[H1]: and their values


def net_record(w1, b1, w2, b2, w3, b3):
    """A Net of these stacked weights (float32) with fresh scratch."""
    h1, h2 = w1.shape[2], w2.shape[2]
    f32 = np.float32
    w1, b1, w2, b2, w3, b3 = (np.asarray(w, f32) for w in (w1, b1, w2, b2, w3, b3))
    return Net(w1, b1, w2, b2, w3, b3, np.zeros(h1, f32), np.zeros(h1, f32), np.zeros(h2, f32),
               np.zeros(A_SIZE, np.int64), np.zeros(MAX_MOVES, f32), np.zeros(h1, np.int64),
               np.zeros(h1, f32))


def fresh(net):
    """`net`'s weights (shared: the kernels only read them) with fresh
    scratch: each batch its own."""
    return net_record(*net[:6])


def no_net():
    """A Net with no network in it: the scratch of a run that plays none."""
    f32 = np.float32
    return net_record(np.zeros((0, F_SIZE, 1), f32), np.zeros((0, 1), f32),
                      np.zeros((0, 1, 1), f32), np.zeros((0, 1), f32), np.zeros((0, 1), f32),
                      np.zeros(0, f32))


@kernel
def after(pos, rules, seat, card, take, a):
    """The afterstate of `seat` playing `card` taking `take` (0: a trail)
    into `a` (see the module docstring): the move without the next deal."""
    side = rules[R_TEAMS + seat]
    card_set = ONE << np.uint64(card)
    hand = pos[HAND + seat] ^ card_set
    table = pos[TABLE]
    mine = pos[PILE + side]
    scopas = np.int64(pos[SCOPAS + side])
    theirs = np.uint64(0)
    scopas_theirs = np.int64(0)
    for t in range(rules[R_SIDES]):
        if t != side:
            theirs |= pos[PILE + t]
            scopas_theirs += np.int64(pos[SCOPAS + t])
    last = np.int64(0)
    if pos[LAST]:
        last = 1 if rules[R_TEAMS + np.int64(pos[LAST]) - 1] == side else 2
    if take:
        if clears_for_scopa(table, take, card, is_last_play(pos), rules):
            scopas += 1
        table ^= take
        mine |= take | card_set
        last = 1
    else:
        table |= card_set
    nxt = seat + 1 if seat + 1 < rules[R_PLAYERS] else 0
    a[A_HAND], a[A_TABLE] = np.int64(hand), np.int64(table)
    a[A_MINE], a[A_THEIRS] = np.int64(mine), np.int64(theirs)
    a[A_SCOPAS_MINE], a[A_SCOPAS_THEIRS] = scopas, scopas_theirs
    a[A_DECK_LEFT] = N_CARDS - np.int64(pos[DECK])
    a[A_HAND_SIZE] = popcount(hand)
    a[A_NEXT_HAND] = popcount(pos[HAND + nxt])
    a[A_LAST] = last
    a[A_NEXT_PARTNER] = 1 if rules[R_TEAMS + nxt] == side else 0
    a[A_TABLE_SUM] = rank_sum(table)
    a[A_UNSEEN] = np.int64(unseen(pos, seat))


@kernel
def add_row(z, w1, row):
    """z += w1[row]."""
    for j in range(z.shape[0]):
        z[j] += w1[row, j]


@kernel
def add_cards(z, w1, at, cards):
    """z += w1[at + card] for each card of the set `cards` (int64)."""
    m = np.uint64(cards)
    while m:
        add_row(z, w1, at + lowest(m))
        m &= m - ONE


@kernel
def add_count(z, w1, at, width, count):
    """z += w1[at + count], the count capped at the field's last slot."""
    add_row(z, w1, at + min(count, width - 1))


@kernel
def shared_rows(z, w1, b1, a, mine_before):
    """z = b1 + the rows every move of a decision shares (afterstate `a` of
    any of its moves; `mine_before` the mover's pile before it)."""
    for j in range(z.shape[0]):
        z[j] = b1[j]
    add_cards(z, w1, F_THEIRS, a[A_THEIRS])
    add_cards(z, w1, F_MINE, mine_before)
    add_count(z, w1, F_SCOPAS_THEIRS, W_SCOPAS, a[A_SCOPAS_THEIRS])
    add_count(z, w1, F_DECK_LEFT, W_DECK_LEFT, a[A_DECK_LEFT])
    add_count(z, w1, F_NEXT_HAND, W_HANDS, a[A_NEXT_HAND])
    if a[A_NEXT_PARTNER]:
        add_row(z, w1, F_NEXT_PARTNER)
    hidden = np.uint64(a[A_UNSEEN])
    for r in range(1, N_RANKS + 1):
        add_row(z, w1, F_UNSEEN_RANK + W_RANK * (r - 1) + popcount(hidden & RANK_CARDS[r]))


@kernel
def own_rows(z, w1, a, mine_before):
    """z += the rows of afterstate `a` that depend on its move."""
    add_cards(z, w1, F_HAND, a[A_HAND])
    add_cards(z, w1, F_TABLE, a[A_TABLE])
    add_cards(z, w1, F_MINE, a[A_MINE] & ~mine_before)
    add_count(z, w1, F_SCOPAS_MINE, W_SCOPAS, a[A_SCOPAS_MINE])
    add_count(z, w1, F_HAND_SIZE, W_HANDS, a[A_HAND_SIZE])
    add_row(z, w1, F_LAST + a[A_LAST])
    add_count(z, w1, F_TABLE_SUM, W_TABLE_SUM, a[A_TABLE_SUM])
    add_cards(z, w1, F_TAKES, table_sums(np.uint64(a[A_TABLE])) >> 1)   # bit r-1: rank r takes


@kernel
def head(z, z2, w2, b2, w3, b3, units, values):
    """The value of first layer `z` (before its relu): the layers above it.
    The second layer adds a row of w2 per positive unit, in the units'
    order: the positive units are listed first (`units`, their `values`,
    scratch), without a branch on each (half of them went the way the
    predictor did not guess), then their rows are added four at a time,
    each element's sum in the same order as one row at a time (the same
    float32 bits; a loop LLVM vectorises without reordering any sum)."""
    count = 0
    for i in range(z.shape[0]):
        h = z[i]
        units[count] = i
        values[count] = h
        count += h > 0
    for j in range(z2.shape[0]):
        z2[j] = b2[j]
    k = 0
    while k + 4 <= count:
        h0, h1, h2, h3 = values[k], values[k + 1], values[k + 2], values[k + 3]
        r0, r1, r2, r3 = w2[units[k]], w2[units[k + 1]], w2[units[k + 2]], w2[units[k + 3]]
        for j in range(z2.shape[0]):
            z2[j] = (((z2[j] + h0 * r0[j]) + h1 * r1[j]) + h2 * r2[j]) + h3 * r3[j]
        k += 4
    while k < count:
        h, row = values[k], w2[units[k]]
        for j in range(z2.shape[0]):
            z2[j] += h * row[j]
        k += 1
    v = b3
    for j in range(z2.shape[0]):
        if z2[j] > 0:
            v += z2[j] * w3[j]
    return v


@kernel
def move_values(net, model, pos, rules, seat, n, cards, takes):
    """Each legal move's value into net.values[:n]."""
    w1, a, base, z = net.w1[model], net.after, net.base, net.z
    mine_before = np.int64(pos[PILE + rules[R_TEAMS + seat]])
    for i in range(n):
        after(pos, rules, seat, cards[i], takes[i], a)
        if i == 0:                                  # the first move's: what all share
            shared_rows(base, w1, net.b1[model], a, mine_before)
        for j in range(z.shape[0]):
            z[j] = base[j]
        own_rows(z, w1, a, mine_before)
        net.values[i] = head(z, net.z2, net.w2[model], net.b2[model], net.w3[model],
                             net.b3[model], net.units, net.active)


@kernel
def pick_net(model, seat, n, pos, rules, cards, takes, net):
    """The move of highest value by network `model`; 0 if it is the only one."""
    if n == 1:
        return 0
    move_values(net, model, pos, rules, seat, n, cards, takes)
    return best_total(net.values, n)


@kernel
def position_value(net, model, pos, rules, cards, takes, work):
    """The value of the position to the seat to move, from its side: the
    value of its best move by network `model` (its legal moves listed into
    cards/takes, their values into net.values)."""
    seat = np.int64(pos[TURN])
    n = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards, takes, work)
    move_values(net, model, pos, rules, seat, n, cards, takes)
    return np.float64(net.values[best_total(net.values, n)])


@spliced
def choose_rollout(strategy, p, seat, n, board, kit):
    """The move of a strategy a search's rollouts play (`registry.ROLLOUT`):
    net, the network of its `weights` (no endgame: the search has its own),
    or a fast or user strategy (`choose_fast`); -1 for any other id."""
    if strategy == ID.net:
        return pick_net(np.int64(p[P_WEIGHTS]), seat, n, board.pos, kit.rules, board.cards,
                        board.takes, kit.net)
    return choose_fast(strategy, p, seat, n, board, kit)
