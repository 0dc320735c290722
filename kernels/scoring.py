"""Round scoring: per-side counts and category points from the piles.

The variant options read here (R_PRIMIERA_FORFEIT, R_RE_BELLO, R_NAPOLA, and the
primiera scale in `R_BEST`) are specified in docs/VARIANTS.md.
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, popcount
from .layout import (
    COINS, R_BEST, R_PRIMIERA_FORFEIT, R_NAPOLA, R_RE_BELLO, R_SIDES, RE_BELLO,
    S_CARDS, S_COINS, S_POINTS, S_PRIMIERA, S_PT_CARDS, S_PT_COINS,
    S_PT_NAPOLA, S_PT_PRIMIERA, S_PT_RE_BELLO, S_PT_SETTEBELLO, S_SCOPAS,
    S_SCORE, S_SETTEBELLO, SETTEBELLO)

SUIT_BITS = np.uint64(0x3FF)
MOST = np.array([S_CARDS, S_COINS, S_PRIMIERA], np.int64)             # a point to the most
MOST_POINTS = np.array([S_PT_CARDS, S_PT_COINS, S_PT_PRIMIERA], np.int64)


@kernel
def primiera(pile, rules, forfeit):
    """Sum of the best value per suit (`rules[R_BEST + suit slice]`: the rules'
    primiera scale, all values >= 1); a missing suit counts 0, or with
    `forfeit` makes the whole total 0."""
    total = 0
    for s in range(4):
        v = rules[R_BEST + np.int64((pile >> np.uint64(10 * s)) & SUIT_BITS)]
        if v == 0 and forfeit:
            return 0
        total += v
    return total


@kernel
def napola(pile):
    """Napola: the coins A, 2, 3, ... held in a row from the ace score their
    number if it is at least 3 (A-2-3: 3, ..., the whole suit: 10), else 0."""
    run = 0
    while run < 10 and (pile >> np.uint64(run)) & ONE:
        run += 1
    return run if run >= 3 else 0


@kernel
def strict_leader(values, n):
    """The index among values[0..n-1] strictly above every other, or -1 on a
    tie at the top: the one rule of every "most ..." point, a round's winner
    and a game's end."""
    top = 0
    for t in range(1, n):
        if values[t] > values[top]:
            top = t
    for t in range(n):
        if t != top and values[t] == values[top]:
            return -1
    return top


@kernel
def award_most(out, field, points_field, n_sides):
    """One point to the side strictly ahead of every other in `field` (its
    `points_field` and its S_POINTS)."""
    top = strict_leader(out[:, field], n_sides)
    if top >= 0:
        out[top, points_field] = 1
        out[top, S_POINTS] += 1


@kernel
def score_round(piles, scopas, rules, out):
    """Fill `out[side, S_*]` from the piles and scopas: every field of every
    side written once (the sides past R_SIDES zeroed; S_SCORE 0), the
    points summed as they are found, so that nothing is zeroed first or
    read back (the rows are int16 columns of any strides)."""
    n_sides = rules[R_SIDES]
    for t in range(n_sides, out.shape[0]):
        for f in range(out.shape[1]):
            out[t, f] = 0
    for t in range(n_sides):
        pile = piles[t]
        settebello = np.int64((pile >> np.uint64(SETTEBELLO)) & ONE)
        re_bello = np.int64((pile >> np.uint64(RE_BELLO)) & ONE) if rules[R_RE_BELLO] else 0
        run = napola(pile) if rules[R_NAPOLA] else 0
        out[t, S_CARDS] = popcount(pile)
        out[t, S_COINS] = popcount(pile & COINS)
        out[t, S_SETTEBELLO] = settebello
        out[t, S_PRIMIERA] = primiera(pile, rules, rules[R_PRIMIERA_FORFEIT])
        out[t, S_SCOPAS] = scopas[t]
        out[t, S_PT_CARDS] = 0
        out[t, S_PT_COINS] = 0
        out[t, S_PT_SETTEBELLO] = settebello
        out[t, S_PT_PRIMIERA] = 0
        out[t, S_PT_RE_BELLO] = re_bello
        out[t, S_PT_NAPOLA] = run
        out[t, S_POINTS] = settebello + re_bello + run + np.int64(scopas[t])
        out[t, S_SCORE] = 0
    for field in range(3):        # one compiled award_most (literal fields would make three)
        award_most(out, MOST[field], MOST_POINTS[field], n_sides)
