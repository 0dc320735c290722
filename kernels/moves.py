"""Legal moves: capture enumeration on card-set bitmasks.

A move is (card, capture mask); a trail has mask 0. Canonical order: hand
cards ascending, and for each card its captures in ascending mask order.
Moves are written into caller-owned arrays (`cards`, `takes`) and counted,
so nothing is allocated per move. The variant options read here
(R_FEWEST_CARDS, R_ACE_TAKES_ALL, R_SCOPA_ON_LAST_PLAY) are specified in
docs/VARIANTS.md. `best_total` picks a move by its total (the first of the
highest), as the searches and the net do.
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, ZERO, ix, lowest, popcount
from .layout import (
    N_CARDS, R_ACE_TAKES_ALL, R_FEWEST_CARDS, R_SCOPA_ON_LAST_PLAY, RANK, RANK_CARDS, slots)


# `work` (caller-owned int64 scratch, length >= W_SIZE) holds the table's
# cards, their prefix subset sums, their ranks and the enumeration stack:
#     0 CARDS 40 REACH 88 RANKS 136 STACK 232
WORK_FIELDS = (("cards", N_CARDS), ("reach", 48), ("ranks", 48), ("stack", 96))
_W, W_SIZE = slots(WORK_FIELDS)
W_CARDS, W_REACH, W_RANKS, W_STACK = (_W[f] for f in ("cards", "reach", "ranks", "stack"))
SUMS = np.int64(0x7FF)            # subset sums 0..10 as bits
TAKE_BITS = np.int64((1 << 40) - 1)
RANK_BITS = np.uint64(0x3FF)


@kernel
def index_table(table, work):
    """List the table's cards (ascending) and their ranks and, for each prefix
    of that list, the set of sums its subsets reach (bit s: some subset sums
    to s <= 10).

    Returns the number of cards k; work[W_REACH + k] is the whole table's.
    """
    k = 0
    reach = np.int64(1)
    work[W_REACH] = reach
    m = table
    while m:
        c = lowest(m)
        m &= m - ONE
        r = RANK[c]
        work[ix(W_CARDS + k)] = c
        work[ix(W_RANKS + k)] = r
        reach |= (reach << r) & SUMS
        k += 1
        work[ix(W_REACH + k)] = reach
    return k


@kernel
def table_sums(table):
    """The sums (bit s) that subsets of `table` reach, up to 10: what
    index_table leaves as the whole table's reach, without its lists."""
    reach = np.int64(1)
    m = table
    while m:
        reach |= (reach << RANK[lowest(m)]) & SUMS
        m &= m - ONE
    return reach


@kernel
def sum_captures(rank, k, out, n, work):
    """Append every set of table cards (indexed by `index_table`) whose ranks
    sum to `rank` to `out`, in ascending mask order; return the new count.

    Walks the cards from the last (highest) to the first, leaving or taking
    each; the prefix sums say which choices can still reach the remainder, so
    there are no dead ends. Leaving the highest card first gives the smaller
    masks first. Where both choices can, the walk goes on leaving and puts
    the taking state on a stack (packed: take mask, remainder << 40, cards
    left << 48); the stack is written on every step and its top advanced only
    on a fork, which saves branches.
    """
    if not (work[ix(W_REACH + k)] >> rank) & 1:
        return n
    top = 0
    at = k
    left = rank
    take = np.int64(0)
    while True:
        while left:
            at -= 1
            before = work[ix(W_REACH + at)]
            r = work[ix(W_RANKS + at)]
            bit = np.int64(1) << work[ix(W_CARDS + at)]
            can_leave = (before >> left) & 1
            can_take = (before >> (left - r)) & 1 if r <= left else 0
            work[ix(W_STACK + top)] = (take | bit) | ((left - r) << 40) | (at << 48)
            top += can_leave & can_take
            if not can_leave:
                left -= r
                take |= bit
        out[ix(n)] = np.uint64(take)
        n += 1
        if top == 0:
            return n
        top -= 1
        state = work[ix(W_STACK + top)]
        take = state & TAKE_BITS
        left = (state >> 40) & 0xFF
        at = state >> 48


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
def captures_of(table, card, rules, out, work):
    """The captures of one card: write them to `out` (canonical order),
    return how many.

    Table cards of the card's rank: each alone, nothing else (single-card
    priority, also for an ace under asso piglia tutto). Else, R_ACE_TAKES_ALL
    and an ace: the whole table (if any). Else the subsets of two or more
    summing to the rank; with R_FEWEST_CARDS only those with the fewest cards.
    """
    rank = RANK[card]
    singles = table & RANK_CARDS[rank]
    n = 0
    if singles:                                    # single-card priority
        while singles:
            low = singles & (ZERO - singles)
            out[n] = low
            n += 1
            singles ^= low
        return n
    if rank == 1:                                  # no sum of two or more is 1
        if rules[R_ACE_TAKES_ALL] and table:
            out[0] = table
            return 1
        return 0
    n = sum_captures(rank, index_table(table, work), out, 0, work)
    if n > 1 and rules[R_FEWEST_CARDS]:
        n = keep_fewest(out, 0, n)
    return n


@kernel
def rank_set(cards):
    """The ranks among `cards` as a 10-bit mask: bit r-1 for rank r."""
    return (cards | (cards >> np.uint64(10)) | (cards >> np.uint64(20))
            | (cards >> np.uint64(30))) & RANK_BITS


@kernel
def legal_moves(hand, table, rules, cards, takes, work):
    """Write the legal moves of `hand` on `table` into cards/takes; return how many.

    For each card, in order, its captures as `captures_of` finds them, or
    the trail if it has none; with fewer unpredictable branches (they were
    most of the time): first the ranks whose cards need more than their
    single-card captures or their trail (a sum capture, or an ace taking
    all), then each card by the short path (its lowest single capture, or the
    trail when it has none, then any further singles) or the long one.
    """
    no_single = rank_set(hand) & ~rank_set(table)
    slow = ZERO                                    # bit r-1: rank r takes the long path
    k = np.int64(0)               # (not a literal 0: that would compile callees twice)
    if no_single & ~ONE:                           # sums for ranks 2..10
        k = index_table(table, work)
        slow = np.uint64(work[ix(W_REACH + k)] >> 1) & no_single & ~ONE
    if no_single & ONE and table and rules[R_ACE_TAKES_ALL]:
        slow |= ONE
    n = np.int64(0)
    h = hand
    while h:
        card = lowest(h)
        h &= h - ONE
        rank = RANK[card]
        if (slow >> np.uint64(rank - 1)) & ONE:
            if rank == 1:                          # asso piglia tutto
                takes[ix(n)] = table
                cards[ix(n)] = card
                n += 1
            else:
                start = n
                n = sum_captures(rank, k, takes, n, work)
                if n - start > 1 and rules[R_FEWEST_CARDS]:
                    n = keep_fewest(takes, start, n)
                for i in range(start, n):
                    cards[i] = card
            continue
        singles = table & RANK_CARDS[rank]
        low = singles & (ZERO - singles)           # 0, the trail, if there is none
        takes[ix(n)] = low
        cards[ix(n)] = card
        n += 1
        singles ^= low
        while singles:
            low = singles & (ZERO - singles)
            takes[ix(n)] = low
            cards[ix(n)] = card
            n += 1
            singles ^= low
    return n


@kernel
def clears_for_scopa(table, take, card, last_play, rules):
    """Whether capturing `take` from `table` with `card` scores a scopa.

    The capture must empty the table, and not on the round's last play
    (unless R_SCOPA_ON_LAST_PLAY); an ace's asso-piglia-tutto sweep (R_ACE_TAKES_ALL,
    an ace taking a table with no ace on it) is never one, while an ace
    taking a lone ace is an ordinary scopa.
    """
    if take == ZERO or take != table:
        return False
    if last_play and not rules[R_SCOPA_ON_LAST_PLAY]:
        return False
    if rules[R_ACE_TAKES_ALL] and RANK[card] == 1 and popcount(take & RANK_CARDS[1]) == 0:
        return False
    return True


@kernel
def best_total(totals, n):
    """The index of the largest of totals[:n] (the first on a tie)."""
    best_i = 0
    for i in range(1, n):
        if totals[i] > totals[best_i]:
            best_i = i
    return best_i
