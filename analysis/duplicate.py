"""Duplicate deals: compare two strategies on the same decks, seats swapped.

Deal i of a run is a pure function of (seed, i) (docs/ENGINE.md), so the
runs (A, B) and (B, A) with one seed play every deck twice, once from each
seat. Per deal (or per game seed, with games) A's result in the two plays
is paired, and the luck of the deck largely cancels in their sum.

Batches run on any executor (threads, or Dask) but are folded into the
totals in batch order, and `until_halfwidth` is checked after each batch in
that order: where a run stops does not depend on scheduling.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..executors import executor, stream
from ..rules import Rules
from ..runner import RunSpec, columns, run_batch
from ..strategies import parse_strategy
from .ratings import bradley_terry
from .stats import PairedMoments, wilson

DEFAULT_DEALS = 100_000
DEFAULT_MAX_DEALS = 10_000_000
DEALS_PER_BATCH = 10_000
GAMES_PER_BATCH = 2_500


@dataclass
class BatchResult:
    """One batch of a duplicate run: per unit (deal or game seed) A's point
    margin total y and rounds w in each play, A's game wins (games), and
    A's round wins / draws / losses over all rounds of both plays."""
    units: int
    y1: np.ndarray
    y2: np.ndarray
    w1: np.ndarray
    w2: np.ndarray
    win1: np.ndarray | None
    win2: np.ndarray | None
    wdl: np.ndarray


def _play(spec: RunSpec, b: int, a_side: int, first: int, count: int):
    cols = columns(spec, *run_batch(spec, b))
    margin = cols[f"points_{a_side}"].astype(np.int64) - cols[f"points_{1 - a_side}"]
    wdl = np.array([(margin > 0).sum(), (margin == 0).sum(), (margin < 0).sum()], np.int64)
    if not spec.games:
        return margin, np.ones(count, np.int64), None, wdl
    unit = cols["game"] - first
    y = np.bincount(unit, weights=margin, minlength=count).astype(np.int64)
    w = np.bincount(unit, minlength=count)
    last = np.append(unit[1:] != unit[:-1], True)
    won = (cols[f"score_{a_side}"][last] > cols[f"score_{1 - a_side}"][last]).astype(np.int64)
    return y, w, won, wdl


def duplicate_batch(ab: RunSpec, ba: RunSpec, b: int) -> BatchResult:
    """Batch b of both plays: A is side 0 in `ab` and side 1 in `ba`."""
    first, count = ab.batch_range(b)
    y1, w1, win1, wdl1 = _play(ab, b, 0, first, count)
    y2, w2, win2, wdl2 = _play(ba, b, 1, first, count)
    return BatchResult(count, y1, y2, w1, w2, win1, win2, wdl1 + wdl2)


@dataclass
class Comparison:
    """The running totals of a duplicate comparison of A against B."""
    a: str
    b: str
    games: bool
    margin: PairedMoments = field(default_factory=PairedMoments)
    match: PairedMoments = field(default_factory=PairedMoments)
    wdl: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))
    units: int = 0
    rounds: int = 0
    batches: int = 0

    def add(self, r: BatchResult) -> None:
        self.margin.add(r.y1, r.y2, r.w1, r.w2)
        if self.games:
            self.match.add(r.win1, r.win2)
        self.wdl += r.wdl
        self.units += r.units
        self.rounds += int(r.w1.sum() + r.w2.sum())
        self.batches += 1

    def headline_halfwidth(self) -> float:
        """The paired halfwidth of the headline estimate: the match win rate
        with games, else the margin per round."""
        return (self.match if self.games else self.margin).result().halfwidth

    def result(self) -> dict:
        """Everything as plain data (see the `compare` command)."""
        rounds = int(self.wdl.sum())
        out = {"a": self.a, "b": self.b, "unit": "games" if self.games else "deals",
               "pairs": self.units, "rounds": rounds,
               "margin": self.margin.result().as_dict(),
               "round_win": wilson(self.wdl[0], rounds).as_dict(),
               "round_draw": wilson(self.wdl[1], rounds).as_dict(),
               "round_loss": wilson(self.wdl[2], rounds).as_dict()}
        if self.games:
            match = self.match.result()
            k = int(round(self.match.sums[0] + self.match.sums[1]))
            out["match_win"] = match.as_dict()
            out["match_win_wilson"] = wilson(k, 2 * self.units).as_dict()
            out["rounds_per_game"] = rounds / (2 * self.units) if self.units else float("nan")
        return out


def compare(a, b, rules="scopa", seed: int = 0, deals: int | None = None,
            until_halfwidth: float | None = None, games: bool = False,
            max_deals: int = DEFAULT_MAX_DEALS, batch_size: int | None = None,
            workers: int | None = None, scheduler=None,
            progress: Callable[[Comparison], None] | None = None) -> dict:
    """Compare strategy `a` with `b` on duplicate deals (or game seeds, with
    `games`): `deals` pairs, or batches until the paired 95% halfwidth of
    the headline estimate (margin per round; match win rate with games) is
    at most `until_halfwidth`, or `max_deals` is reached. Batches run on
    `workers` threads or a Dask cluster (`scheduler`, as for `simulate`)."""
    if deals is not None and until_halfwidth is not None:
        raise ValueError("give either a number of deals or a halfwidth to reach, not both")
    if until_halfwidth is not None and not until_halfwidth > 0:
        raise ValueError("the halfwidth to reach must be positive")
    units = (DEFAULT_DEALS if until_halfwidth is None else max_deals) if deals is None else deals
    size = batch_size or (GAMES_PER_BATCH if games else DEALS_PER_BATCH)
    rules = Rules.resolve(rules)
    if rules.n_sides != 2:
        raise ValueError(f"compare needs rules with two sides (it swaps them); {rules.name} "
                         f"has {rules.n_sides}: set seats with simulate --strategies instead")
    sa, sb = parse_strategy(a), parse_strategy(b)         # also functions (user strategies)
    a, b = str(sa), str(sb)
    kw = {"games" if games else "rounds": units}
    ab = RunSpec.make(**kw, strategies=(sa, sb), rules=rules, seed=seed, batch_size=size)
    ba = RunSpec.make(**kw, strategies=(sb, sa), rules=rules, seed=seed, batch_size=size)
    cmp = Comparison(a, b, games)
    stop = False
    with executor(workers, scheduler) as ex:
        for _, batch in stream(duplicate_batch, (ab, ba), range(ab.n_batches), ex):
            cmp.add(batch)
            if progress:
                progress(cmp)
            stop = until_halfwidth is not None and cmp.headline_halfwidth() <= until_halfwidth
            if stop:
                break
    out = cmp.result()
    out.update(seed=ab.seed, rules=ab.rules.name, batch_size=size,
               until_halfwidth=until_halfwidth,
               reached=None if until_halfwidth is None else bool(stop))
    return out


def tournament(strategies: Sequence[str], rules="scopa", seed: int = 0,
               deals: int = 20_000, games: bool = False, batch_size: int | None = None,
               workers: int | None = None, scheduler=None,
               progress: Callable[[int, int, Comparison], None] | None = None) -> dict:
    """A round robin of duplicate comparisons, every pair on the same decks:
    the matrix of margins per round (row minus column) with 95% intervals,
    and Bradley-Terry ratings from round wins (a draw counts half; with
    `games`, from games won) with Hessian intervals, also on an Elo scale."""
    parsed = [parse_strategy(s) for s in strategies]
    names = [str(s) for s in parsed]
    if len(names) < 2:
        raise ValueError("a tournament needs at least two strategies")
    if len(set(names)) < len(names):
        raise ValueError(f"strategies must differ: {', '.join(names)}")
    k = len(names)
    margin = np.full((k, k), np.nan)
    low, high = margin.copy(), margin.copy()
    wins = np.zeros((k, k))
    pairs = list(itertools.combinations(range(k), 2))
    results = []
    with executor(workers, scheduler) as ex:                 # one for all the pairs
        matches = []
        for p, (i, j) in enumerate(pairs):
            cb = (lambda c, p=p: progress(p, len(pairs), c)) if progress else None
            matches.append(compare(parsed[i], parsed[j], rules, seed, deals=deals, games=games,
                                   batch_size=batch_size, scheduler=ex, progress=cb))
    for r, (i, j) in zip(matches, pairs):
        m = r["margin"]
        margin[i, j], low[i, j], high[i, j] = m["estimate"], m["low"], m["high"]
        margin[j, i], low[j, i], high[j, i] = -m["estimate"], -m["high"], -m["low"]
        if games:                                   # rate on games won
            won, played = r["match_win_wilson"]["k"], r["match_win_wilson"]["n"]
            wins[i, j], wins[j, i] = won, played - won
        else:                                       # on rounds won, a draw half each
            draws = r["round_draw"]["k"] / 2
            wins[i, j] = r["round_win"]["k"] + draws
            wins[j, i] = r["round_loss"]["k"] + draws
        results.append({"a": names[i], "b": names[j], "margin": m,
                        "round_win": r["round_win"], "round_draw": r["round_draw"],
                        "round_loss": r["round_loss"],
                        **({"match_win": r["match_win"]} if games else {})})
    ratings = bradley_terry(wins)
    order = np.argsort(-ratings.theta, kind="stable")
    return {"strategies": names, "rules": r["rules"], "seed": r["seed"],
            "unit": "games" if games else "deals", "pairs_per_match": deals,
            "margin": margin.tolist(), "low": low.tolist(), "high": high.tolist(),
            "wins": wins.tolist(), "rating_basis": "games" if games else "rounds",
            "matches": results,
            "ratings": [{"strategy": names[t], "rank": int(np.flatnonzero(order == t)[0]) + 1,
                         "theta": float(ratings.theta[t]), "low": float(ratings.low[t]),
                         "high": float(ratings.high[t]), "elo": float(ratings.elo[t]),
                         "elo_low": float(ratings.elo_low[t]),
                         "elo_high": float(ratings.elo_high[t])} for t in range(k)]}
