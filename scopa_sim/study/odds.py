"""Odds from a score: P(side 0 wins the game) from any score below the
target, by the Markov chain of `markov` over the per-round score
distribution of the chosen strategies (simulated), with bootstrap intervals.
"""
from __future__ import annotations

import numpy as np

from ..analysis.markov import bootstrap as markov_bootstrap, round_counts, trimmed, win_tables
from ..engine.checks import below_target, mine_theirs, seed_or_fresh, whole
from ..engine.rules import Rules
from ..runs.runner import simulate
from ..engine.strategies import split_strategies


MAX_TARGET = 301                # the largest target odds take: well under a minute (README)
MAX_CELLS = 25_000_000          # resamplings × target²: the tables kept for intervals (200 MB)


def simulated_counts(strategies, rules: Rules, seed: int, rounds: int, workers=None,
                 scheduler=None, progress=None) -> np.ndarray:
    """counts[dealer seat, points_0, points_1] over `rounds` simulated rounds."""
    df = simulate(rounds=rounds, strategies=strategies, rules=rules, seed=seed,
                  workers=workers or 1, scheduler=scheduler, progress=progress)
    return trimmed(round_counts(df["dealer"], df["points_0"], df["points_1"], rules.players))


def parse_score(text: str, rules: Rules) -> tuple[int, int]:
    """"7-9" -> (7, 9): both whole numbers below the target."""
    return below_target(mine_theirs(text, "a score"), rules.target, "the odds do not cover")


def odds(strategies=("counter", "counter"), rules="scopa", score=None, dealer=None,
         seed: int | None = None, rounds: int = 200_000, bootstrap: int = 200, workers=None,
         scheduler=None, progress=None, bootstrap_progress=None) -> dict:
    """P(side 0 wins) from every score below the target (and from `score`,
    if given), with the next round dealt by `dealer` (a seat) or averaged
    over the seats; 95% intervals from `bootstrap` multinomial resamplings
    of the simulated rounds (`bootstrap_progress(k)` after each k). The
    target is at most MAX_TARGET: the chain has target² cells, solved once
    per resampling. Without a `seed` a fresh one is drawn (the result's
    "seed")."""
    rules = Rules.resolve(rules)
    if isinstance(strategies, str):
        strategies = split_strategies(strategies)
    if rules.n_sides != 2:
        raise ValueError(f"odds need rules with two sides; {rules.name} has {rules.n_sides}")
    if rules.target > MAX_TARGET:
        raise ValueError(f"odds cover targets up to {MAX_TARGET} (the chain grows with the "
                         f"target squared), not {rules.target}")
    cells = rules.target ** 2
    if bootstrap * cells > MAX_CELLS:
        raise ValueError(f"--bootstrap {bootstrap:,} at target {rules.target} would keep "
                         f"{bootstrap:,} tables of {cells:,} scores: at most "
                         f"{MAX_CELLS // cells:,} resamplings at this target")
    if dealer is not None:
        whole(dealer, "dealer", 0, rules.players - 1, f"a seat 0..{rules.players - 1}")
    at = parse_score(score, rules) if score is not None else None
    seed = seed_or_fresh(seed)
    counts = simulated_counts(strategies, rules, seed, rounds, workers, scheduler, progress)
    if (counts.sum((1, 2)) == 0).any():
        raise ValueError(f"{rounds:,} rounds are too few: some seat never dealt")

    def tables(dists) -> np.ndarray:
        v = win_tables(dists, rules.target)
        return v[..., dealer] if dealer is not None else v.mean(-1)

    point, low, high = markov_bootstrap(counts, tables, bootstrap, seed, bootstrap_progress)
    out = {"rules": rules.name, "target": rules.target, "strategies": [str(s) for s in strategies],
           "seed": seed, "rounds": rounds, "dealer": dealer, "bootstrap": bootstrap,
           "table": point.tolist(), "low": low.tolist(), "high": high.tolist()}
    if at is not None:
        out.update(score=list(at), win=float(point[at]), win_low=float(low[at]),
                   win_high=float(high[at]))
    return out
