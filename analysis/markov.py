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
moves the deal). The cells of one total (an anti-diagonal of the grid) do not
depend on each other, so each total is solved at once, as arrays: a cell
(i, j) of total k reads the cells (i + a, j + b), which in the flat grid
lie at the cell's own index plus a * width + b: for each a, a window of
the grid read in place (a strided view), the same for every cell of the
diagonal. Several distributions (bootstrap replicates)
are solved together along a last axis. The cost is target² × (the number
of (a, b) seen) × seats per table.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided


MAX_POINTS = 64                 # round points per side are far below this
GRID_BYTES = 64 << 20           # the grids solved together (`win_tables`) take at most this
BATCH = 16                      # bootstrap replicates solved together


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
    return win_tables(_check(dist)[None], target)[0]


def win_tables(dists, target: int) -> np.ndarray:
    """`win_table` of each of the distributions `dists[r, d, a, b]`, solved
    together: v[r, s0, s1, d]."""
    dists = np.asarray(dists, np.float64)
    if not isinstance(target, (int, np.integer)) or target < 1:
        raise ValueError("target must be a positive whole number")
    reps, seats, na, nb = dists.shape
    per_table = (target + na) * (target + nb) * seats * 8          # bytes of one grid
    most = max(1, min(16, GRID_BYTES // per_table))
    if reps > most:
        return np.concatenate([win_tables(dists[r:r + most], target)
                               for r in range(0, reps, most)])
    nxt = (np.arange(seats) + 1) % seats
    tied = np.stack([tied_chances(d) for d in dists], -1)          # [d, r]
    # V[s0, s1, d, r] on a grid padded so that (s0 + a, s1 + b) is always
    # inside; cells at or above the target hold the end-of-round outcome.
    size0, size1 = target + na, target + nb
    s0, s1 = np.arange(size0)[:, None], np.arange(size1)[None, :]
    over = (s0 >= target) | (s1 >= target)
    v = np.zeros((size0, size1, seats, reps))
    v[over & (s0 > s1)] = 1.0
    v[over & (s0 == s1)] = tied
    # a (0, 0) round keeps the score and moves the deal: V = M^-1 rhs, with
    # M[d, d] = 1 and M[d, d + 1] = -P_d(0, 0) (the cycle of `_cycle_solve`)
    m = np.broadcast_to(np.eye(seats), (reps, seats, seats)).copy()
    m[:, np.arange(seats), nxt] -= dists[:, :, 0, 0]
    m_inv = np.linalg.inv(m)                                       # [r, d, e]
    # weight[a, b, e, r]: P(a, b) of the round dealt by the seat before e
    # (whose value is read at the next dealer e); the (0, 0) term is in M
    weight = np.zeros((na, nb, seats, reps))
    weight[:, :, nxt] = dists.transpose(2, 3, 1, 0)
    weight[0, 0] = 0.0
    rows = [a for a in range(na) if weight[a].any()]
    flat = v.reshape(size0 * size1, seats, reps)
    step = flat.strides[0]
    for k in range(2 * target - 2, -1, -1):                        # the total s0 + s1
        i0, i1 = max(0, k - target + 1), min(k, target - 1)
        first = i0 * (size1 - 1) + k                               # cell (i0, k - i0), flat
        rhs = np.zeros((i1 - i0 + 1, seats, reps))
        for a in rows:
            # cell (i, k - i) reads (i + a, k - i + b), b = 0..nb-1: a window of
            # the flat grid at the cell's index + a * size1, one per cell
            ahead = as_strided(flat[first + a * size1:], (len(rhs), nb, seats, reps),
                               (step * (size1 - 1), step, *flat.strides[1:]), writeable=False)
            rhs += np.einsum("cber,ber->cer", ahead, weight[a])
        cells = slice(first, first + len(rhs) * (size1 - 1), size1 - 1)
        flat[cells] = np.einsum("rde,cer->cdr", m_inv, rhs[:, nxt])
    return np.moveaxis(v[:target, :target], -1, 0).copy()


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


def bootstrap(counts, estimate, replicates: int = 200, seed: int = 0, progress=None):
    """`estimate` at the round-point distribution of the round counts
    `counts[d, a, b]`, with a 95% percentile interval from `replicates`
    multinomial resamplings of the counts (each dealer's rounds resampled
    apart): (point, low, high), each shaped as one estimate (NaN bounds
    without replicates). `estimate` takes a stack of distributions
    dist[r, d, a, b] and returns one value (an array) per r; the replicates
    are passed a few at a time (`progress(k)` after each k)."""
    counts = np.asarray(counts, np.int64)
    totals = counts.sum((1, 2))
    if (totals == 0).any():
        raise ValueError("every dealer seat needs at least one round")
    point = np.asarray(estimate((counts / totals[:, None, None])[None]))[0]
    if not replicates:
        return point, np.full(point.shape, np.nan), np.full(point.shape, np.nan)
    rng = np.random.default_rng(seed)
    flat = counts.reshape(len(counts), -1) / totals[:, None]
    draws = np.empty((replicates, point.size))
    for start in range(0, replicates, BATCH):
        k = min(BATCH, replicates - start)
        samples = np.stack([np.stack([rng.multinomial(n, p) for n, p in zip(totals, flat)])
                            for _ in range(k)]).astype(float)
        draws[start:start + k] = np.asarray(estimate((samples / totals[:, None]).reshape(
            (k, *counts.shape)))).reshape(k, -1)
        if progress is not None:
            progress(k)
    low, high = np.empty(point.size), np.empty(point.size)
    for c in range(0, point.size, 4096):                 # the quantiles' copies stay small
        low[c:c + 4096], high[c:c + 4096] = np.quantile(draws[:, c:c + 4096], [0.025, 0.975],
                                                        axis=0)
    return point, low.reshape(point.shape), high.reshape(point.shape)


def bootstrap_match_probability(counts, target: int, first_dealer=None, replicates: int = 200,
                                seed: int = 0) -> tuple[float, float, float]:
    """The match probability from round counts `counts[d, a, b]`, with a 95%
    bootstrap interval (`bootstrap`)."""
    seats = np.asarray(counts).shape[0]
    w = np.ones(seats) if first_dealer is None else np.asarray(first_dealer, np.float64)
    if w.shape != (seats,) or w.sum() <= 0:
        raise ValueError("first_dealer gives one non-negative weight per seat")

    def estimate(dists):
        return (win_tables(dists, target)[:, 0, 0] * w).sum(-1) / w.sum()
    point, low, high = bootstrap(counts, estimate, replicates, seed)
    return float(point), float(low), float(high)
