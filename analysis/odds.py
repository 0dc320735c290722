"""Odds from a score: P(side 0 wins the game) from any score below the
target, by the Markov chain of `markov` over the per-round score
distribution of the chosen strategies (simulated), with bootstrap intervals.
"""
from __future__ import annotations

import numpy as np

from ..rules import Rules
from ..runner import simulate
from ..strategies import split_strategies
from .markov import win_table

MAX_POINTS = 64


def round_counts(strategies, rules: Rules, seed: int, rounds: int, workers=None,
                 scheduler=None, progress=None) -> np.ndarray:
    """counts[dealer seat, points_0, points_1] over `rounds` simulated rounds."""
    df = simulate(rounds=rounds, strategies=strategies, rules=rules, seed=seed,
                  workers=workers or 1, scheduler=scheduler, progress=progress)
    a = np.clip(df["points_0"].to_numpy(np.int64), 0, MAX_POINTS - 1)
    b = np.clip(df["points_1"].to_numpy(np.int64), 0, MAX_POINTS - 1)
    code = (df["dealer"].to_numpy(np.int64) * MAX_POINTS + a) * MAX_POINTS + b
    shape = (rules.players, MAX_POINTS, MAX_POINTS)
    counts = np.bincount(code, minlength=int(np.prod(shape))).reshape(shape)
    top_a, top_b = (int(np.nonzero(counts.sum(axes))[0].max()) for axes in ((0, 2), (0, 1)))
    return counts[:, :top_a + 1, :top_b + 1]


def parse_score(text: str, rules: Rules) -> tuple[int, int]:
    """"7-9" -> (7, 9): both whole numbers below the target."""
    parts = str(text).replace(" ", "").split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"a score is written MINE-THEIRS, e.g. 7-9, not {text!r}")
    score = int(parts[0]), int(parts[1])
    if max(score) >= rules.target:
        raise ValueError(f"score {text} is not below the target {rules.target}: that game "
                         f"is over (or plays on from a tie, which the odds do not cover)")
    return score


def odds(strategies=("counter", "counter"), rules="scopa", score=None, dealer=None,
         seed: int = 0, rounds: int = 200_000, bootstrap: int = 200, workers=None,
         scheduler=None, progress=None) -> dict:
    """P(side 0 wins) from every score below the target (and from `score`,
    if given), with the next round dealt by `dealer` (a seat) or averaged
    over the seats; 95% intervals from `bootstrap` multinomial resamplings
    of the simulated rounds."""
    rules = Rules.resolve(rules)
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    if rules.n_sides != 2:
        raise ValueError(f"odds need rules with two sides; {rules.name} has {rules.n_sides}")
    if dealer is not None and not (isinstance(dealer, int) and 0 <= dealer < rules.players):
        raise ValueError(f"dealer must be a seat 0..{rules.players - 1}, not {dealer!r}")
    at = parse_score(score, rules) if score is not None else None
    counts = round_counts(strategies, rules, seed, rounds, workers, scheduler, progress)
    if (counts.sum((1, 2)) == 0).any():
        raise ValueError(f"{rounds:,} rounds are too few: some seat never dealt")

    def table(c) -> np.ndarray:
        v = win_table(c / c.sum((1, 2), keepdims=True), rules.target)
        return v[:, :, dealer] if dealer is not None else v.mean(2)

    point = table(counts)
    rng = np.random.default_rng(seed)
    flat = counts.reshape(len(counts), -1)
    draws = np.array([table(np.stack([rng.multinomial(n, row / n) for n, row in
                                      zip(flat.sum(1), flat)]).reshape(counts.shape))
                      for _ in range(bootstrap)]) if bootstrap else np.full((2,) + point.shape,
                                                                             np.nan)
    low, high = np.quantile(draws, [0.025, 0.975], axis=0)
    out = {"rules": rules.name, "target": rules.target, "strategies": [str(s) for s in strategies],
           "seed": seed, "rounds": rounds, "dealer": dealer, "bootstrap": bootstrap,
           "table": point.tolist(), "low": low.tolist(), "high": high.tolist()}
    if at is not None:
        out.update(score=list(at), win=float(point[at]), win_low=float(low[at]),
                   win_high=float(high[at]))
    return out
