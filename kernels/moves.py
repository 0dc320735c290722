"""Legal moves: capture enumeration on card-set bitmasks.

A move is (card, capture mask); a trail has mask 0. Canonical order: hand
cards ascending, and for each card its captures in ascending mask order.
Moves are written into caller-owned arrays (`cards`, `takes`) and counted,
so nothing is allocated per move. The variant options read here
(R_FEWEST, R_ACE_TAKES_ALL, R_SCOPA_ON_LAST) are specified in
docs/VARIANTS.md.
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, ZERO, lowest, popcount
from .layout import R_ACE_TAKES_ALL, R_FEWEST, R_SCOPA_ON_LAST, RANK, RANK_CARDS


# `work` (caller-owned int64 scratch, length >= W_SIZE) holds the table's
# cards, their prefix subset sums and the enumeration stack.
W_CARDS, W_REACH, W_AT, W_LEFT, W_TAKE, W_SIZE = 0, 40, 88, 136, 184, 232
SUMS = np.int64(0x7FF)            # subset sums 0..10 as bits


@kernel
def index_table(table, work):
    """List the table's cards and, for each prefix of that list, the set of
    ranks sums its subsets reach (bit s: some subset sums to s <= 10).

    Returns the number of cards k; work[W_REACH + k] is the whole table's.
    """
    k = 0
    reach = np.int64(1)
    work[W_REACH] = reach
    m = table
    while m:
        c = lowest(m)
        m &= m - ONE
        work[W_CARDS + k] = c
        reach |= (reach << RANK[c]) & SUMS
        k += 1
        work[W_REACH + k] = reach
    return k


@kernel
def sum_captures(rank, k, out, n, work):
    """Append every set of table cards (indexed by `index_table`) whose ranks
    sum to `rank`.

    Walks the cards from the last to the first, taking or leaving each, and
    follows a branch only if the prefix sums say the rest can still reach
    the remainder: no dead ends, so the cost is k per capture found.
    """
    if not (work[W_REACH + k] >> rank) & 1:
        return n
    top = 1
    work[W_AT], work[W_LEFT], work[W_TAKE] = k, rank, 0
    while top:
        top -= 1
        at, left, take = work[W_AT + top], work[W_LEFT + top], work[W_TAKE + top]
        if left == 0:
            out[n] = np.uint64(take)
            n += 1
            continue
        at -= 1
        c = work[W_CARDS + at]
        before = work[W_REACH + at]
        if (before >> left) & 1:                       # leave card c
            work[W_AT + top], work[W_LEFT + top], work[W_TAKE + top] = at, left, take
            top += 1
        r = RANK[c]
        if r <= left and (before >> (left - r)) & 1:   # take card c
            work[W_AT + top] = at
            work[W_LEFT + top] = left - r
            work[W_TAKE + top] = take | (np.int64(1) << c)
            top += 1
    return n


@kernel
def sort_masks(out, start, stop):
    """Insertion sort of out[start:stop] (a handful of masks) ascending."""
    for i in range(start + 1, stop):
        x = out[i]
        j = i - 1
        while j >= start and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x


@kernel
def keep_fewest(out, start, stop):
    """Keep only the captures of out[start:stop] with the fewest cards."""
    fewest = 99
    for i in range(start, stop):
        fewest = min(fewest, popcount(out[i]))
    n = start
    for i in range(start, stop):
        if popcount(out[i]) == fewest:
            out[n] = out[i]
            n += 1
    return n


@kernel
def card_captures(table, card, rules, out, n, work, k):
    """Append the captures `card` can make on `table` (canonical order);
    `index_table(table, work)` must have returned k.

    Table cards of the card's rank: each alone, nothing else (single-card
    priority, also for an ace under asso piglia tutto). Else, R_ACE_TAKES_ALL
    and an ace: the whole table (if any). Else the subsets of two or more
    summing to the rank; with R_FEWEST only those with the fewest cards.
    """
    rank = RANK[card]
    singles = table & RANK_CARDS[rank]
    if singles:                                    # single-card priority
        while singles:
            low = singles & (ZERO - singles)
            out[n] = low
            n += 1
            singles ^= low
        return n
    if rank == 1 and rules[R_ACE_TAKES_ALL] and table:
        out[n] = table
        return n + 1
    start = n
    n = sum_captures(rank, k, out, n, work)
    if n - start > 1:
        if rules[R_FEWEST]:
            n = keep_fewest(out, start, n)
        sort_masks(out, start, n)
    return n


@kernel
def legal_moves(hand, table, rules, cards, takes, work):
    """Write the legal moves of `hand` on `table` into cards/takes; return how many."""
    k = index_table(table, work)
    n = 0
    h = hand
    while h:
        card = lowest(h)
        h &= h - ONE
        start = n
        n = card_captures(table, card, rules, takes, n, work, k)
        if n == start:                             # no capture: the trail
            takes[n] = ZERO
            n += 1
        for i in range(start, n):
            cards[i] = card
    return n


@kernel
def clears_for_scopa(table, take, card, last_play, rules):
    """Whether capturing `take` from `table` with `card` scores a scopa.

    The capture must empty the table, and not on the round's last play
    (unless R_SCOPA_ON_LAST); an ace's asso-piglia-tutto sweep (R_ACE_TAKES_ALL,
    an ace taking a table with no ace on it) is never one, while an ace
    taking a lone ace is an ordinary scopa.
    """
    if take == ZERO or take != table:
        return False
    if last_play and not rules[R_SCOPA_ON_LAST]:
        return False
    if rules[R_ACE_TAKES_ALL] and RANK[card] == 1 and popcount(take & RANK_CARDS[1]) == 0:
        return False
    return True


@kernel
def captures_of(table, card, rules, out, work):
    """The captures of one card: write them to `out`, return how many."""
    return card_captures(table, card, rules, out, 0, work, index_table(table, work))
