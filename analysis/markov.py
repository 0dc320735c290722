"""The exact match win probability from the per-round score distribution.

A game of two sides is a Markov chain over (score_0, score_1, dealer): each
round adds (a, b) points with probability P_dealer(a, b), and the deal moves
one seat on. The game ends at the end of a round in which some side has at
least `target` points and the top is not tied; a tie at the top plays
another round. Once both sides are tied at or above the target, only the
next round's (a, b) matters, so the chain is finite: the cells (s0, s1) with
both below the target, plus one "tied at the top" state per dealer.

Points are never negative, so every move but (0, 0) goes to a cell with a
larger total: the cells are solved from the top down, each as a small
linear system over the dealer seats (a (0, 0) round keeps the scores and
moves the deal).
"""
from __future__ import annotations

import numpy as np


MAX_POINTS = 64                 # round points per side are far below this


def round_counts(dealer, points_0, points_1, seats: int) -> np.ndarray:
    """counts[dealer seat, points_0, points_1] of some rounds (MAX_POINTS wide)."""
    a = np.clip(np.asarray(points_0, np.int64), 0, MAX_POINTS - 1)
    b = np.clip(np.asarray(points_1, np.int64), 0, MAX_POINTS - 1)
    code = (np.asarray(dealer, np.int64) * MAX_POINTS + a) * MAX_POINTS + b
    shape = (seats, MAX_POINTS, MAX_POINTS)
    return np.bincount(code, minlength=seats * MAX_POINTS ** 2).reshape(shape)


def trimmed(counts: np.ndarray) -> np.ndarray:
    """Round counts cut to the points seen (the chain's state grid needs no more)."""
    a, b = np.nonzero(counts.sum(0))
    return counts[:, :a.max() + 1, :b.max() + 1]


def _check(dist: np.ndarray) -> np.ndarray:
    dist = np.asarray(dist, np.float64)
    if dist.ndim != 3 or dist.shape[0] < 1:
        raise ValueError("dist is P[dealer, a, b]: one 2-D table of round points per dealer seat")
    if (dist < 0).any() or not np.allclose(dist.sum((1, 2)), 1.0):
        raise ValueError("each dealer's round-point table must be probabilities summing to 1")
    return dist


def _cycle_solve(rhs: np.ndarray, stay: np.ndarray) -> np.ndarray:
    """Solve V[d] = rhs[d] + stay[d] * V[d+1 mod p] for V."""
    p = len(rhs)
    m = np.eye(p)
    m[np.arange(p), (np.arange(p) + 1) % p] -= stay
    return np.linalg.solve(m, rhs)


def tied_chances(dist) -> np.ndarray:
    """P(side 0 wins the game | tied at or above the target, seat d deals the
    next round), for each d: the next round's leader in points wins (`dist`
    as in `win_table`)."""
    a_idx, b_idx = np.arange(dist.shape[1])[:, None], np.arange(dist.shape[2])[None, :]
    win_now = (dist * (a_idx > b_idx)).sum((1, 2))
    tie_now = (dist * (a_idx == b_idx)).sum((1, 2))
    return _cycle_solve(win_now, tie_now)


def win_table(dist, target: int) -> np.ndarray:
    """P(side 0 wins the game | the score is (s0, s1) and seat d deals the
    next round) as v[s0, s1, d], for every score below the target.

    `dist[d, a, b]` is the probability that a round dealt by seat d gives side
    0 `a` points and side 1 `b` points; the deal moves one seat on each round
    (d -> d + 1 mod the number of seats).
    """
    dist = _check(dist)
    if not isinstance(target, (int, np.integer)) or target < 1:
        raise ValueError("target must be a positive whole number")
    seats, na, nb = dist.shape
    nxt = (np.arange(seats) + 1) % seats
    tied = tied_chances(dist)
    # V[s0, s1, d] on a grid padded so that (s0 + a, s1 + b) is always inside;
    # cells at or above the target hold the end-of-round outcome.
    size0, size1 = target + na, target + nb
    s0, s1 = np.arange(size0)[:, None], np.arange(size1)[None, :]
    over = (s0 >= target) | (s1 >= target)
    v = np.zeros((size0, size1, seats))
    v[over & (s0 > s1)] = 1.0
    tie_cells = over & (s0 == s1)
    v[tie_cells] = tied
    stay = dist[:, 0, 0]
    for i in range(target - 1, -1, -1):
        for j in range(target - 1, -1, -1):
            block = v[i:i + na, j:j + nb, :][:, :, nxt]          # V(s + (a, b), d + 1)
            rhs = np.einsum("dab,abd->d", dist, block)   # (0, 0) term: v[i, j] is still 0
            v[i, j] = _cycle_solve(rhs, stay)
    return v[:target, :target].copy()


def win_probability(dist, target: int) -> np.ndarray:
    """P(side 0 wins the game | the first round is dealt by seat d), for each d."""
    return win_table(dist, target)[0, 0]


def match_probability(dist, target: int, first_dealer=None) -> float:
    """P(side 0 wins the game), averaged over the first dealer: `first_dealer`
    gives a weight per seat (default: every seat alike, as in a run of games,
    where game g is first dealt by seat g mod players)."""
    by_dealer = win_probability(dist, target)
    w = np.ones(len(by_dealer)) if first_dealer is None else np.asarray(first_dealer, np.float64)
    if w.shape != by_dealer.shape or w.sum() <= 0:
        raise ValueError("first_dealer gives one non-negative weight per seat")
    return float((by_dealer * w).sum() / w.sum())


def bootstrap(counts, estimate, replicates: int = 200, seed: int = 0):
    """`estimate` (a function of the round-point distribution dist[d, a, b])
    at the round counts `counts[d, a, b]`, with a 95% percentile interval
    from `replicates` multinomial resamplings of the counts (each dealer's
    rounds resampled apart): (point, low, high), each shaped as `estimate`'s
    value (NaN bounds without replicates)."""
    counts = np.asarray(counts, np.int64)
    totals = counts.sum((1, 2))
    if (totals == 0).any():
        raise ValueError("every dealer seat needs at least one round")
    point = np.asarray(estimate(counts / totals[:, None, None]))
    if not replicates:
        return point, np.full(point.shape, np.nan), np.full(point.shape, np.nan)
    rng = np.random.default_rng(seed)
    flat = counts.reshape(len(counts), -1) / totals[:, None]
    draws = []
    for _ in range(replicates):
        sample = np.stack([rng.multinomial(n, p) for n, p in zip(totals, flat)]).astype(float)
        draws.append(estimate((sample / totals[:, None]).reshape(counts.shape)))
    low, high = np.quantile(np.asarray(draws), [0.025, 0.975], axis=0)
    return point, low, high


def bootstrap_match_probability(counts, target: int, first_dealer=None, replicates: int = 200,
                                seed: int = 0) -> tuple[float, float, float]:
    """The match probability from round counts `counts[d, a, b]`, with a 95%
    bootstrap interval (`bootstrap`)."""
    point, low, high = bootstrap(counts, lambda d: match_probability(d, target, first_dealer),
                                 replicates, seed)
    return float(point), float(low), float(high)
