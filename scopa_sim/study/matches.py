"""Duplicate deals: compare two strategies on the same decks, seats swapped.

Deal i of a run is a pure function of (seed, i) (docs/ENGINE.md), so the
runs (A, B) and (B, A) with one seed play every deck twice, once from each
seat. Per deal (or per game seed, with games) A's result in the two plays
is paired, and the luck of the deck largely cancels in their sum. With three
sides (scopa-3, scopa-6) every deck is played three times, A at each side in
turn and B at the others. A's margin here is its margin over the others'
mean: its points minus the other sides' mean ("margin" in the results; with
two sides the plain difference, as `advise`'s margin over the best other
side, which differs with three).

Batches run on any executor (threads, or Dask) but are folded into the
totals in batch order, and `until_halfwidth` is checked after each batch in
that order: where a run stops does not depend on scheduling.

With `isolate`, every user strategy plays in processes of its own
(`engine.isolate`), batches run one at a time on this machine, the seed
(fresh: 128 random bits) is only in the result, and the result says how
many rounds each entrant forfeited ("forfeits").
"""
from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import defaults as sizes
from ..analysis.ratings import bradley_terry
from ..stats import PairedMoments, wilson
from ..engine.checks import seed_or_fresh
from ..engine.isolate import MOVE_TIMEOUT, Entrants
from ..runs.executors import HERE, Threads, executor
from ..engine.rules import Rules
from ..runs.plan import RunSpec
from ..runs.runner import columns, run, run_batch
from ..engine.strategies import parse_strategy

DEFAULT_DEALS = 100_000
DEFAULT_MAX_DEALS = 10_000_000


@dataclass
class BatchResult:
    """One batch of a duplicate run: per play (A at side s) and unit (deal or
    game seed) A's margin over the others' mean, totalled, ys[s] over ws[s]
    rounds, A's game wins (games), and A's round wins / draws / losses over
    all rounds of all plays."""
    units: int
    ys: np.ndarray
    ws: np.ndarray
    wins: np.ndarray | None
    wdl: np.ndarray


def _play(spec: RunSpec, b: int, a_side: int, first: int, count: int, entrants=None):
    """A's margins over the others' mean in one play: its points minus the
    other sides' mean (two sides: minus the other's); a round (or game) is
    won when no other side has as many points, drawn when the best other has
    as many."""
    cols = columns(spec, *run_batch(spec, b, entrants))
    others = [t for t in range(spec.rules.n_sides) if t != a_side]
    points = cols[f"points_{a_side}"].astype(np.int64)
    theirs = np.array([cols[f"points_{t}"] for t in others], np.int64)
    over_mean = points - theirs.mean(0)
    best = theirs.max(0)
    wdl = np.array([(points > best).sum(), (points == best).sum(), (points < best).sum()],
                   np.int64)
    if not spec.games:
        return over_mean, np.ones(count, np.int64), None, wdl
    unit = cols["game"] - first
    y = np.bincount(unit, weights=over_mean, minlength=count)
    w = np.bincount(unit, minlength=count)
    last = np.append(unit[1:] != unit[:-1], True)
    score = cols[f"score_{a_side}"][last]
    won = (score > np.max([cols[f"score_{t}"][last] for t in others], axis=0)).astype(np.int64)
    return y, w, won, wdl


def duplicate_batch(specs: Sequence[RunSpec], b: int, entrants=None) -> BatchResult:
    """Batch b of every play: A is side s in `specs[s]` (user strategies in
    the processes of `entrants`, if given)."""
    first, count = specs[0].batch_range(b)
    ys, ws, wins, wdls = zip(*(_play(spec, b, s, first, count, entrants)
                               for s, spec in enumerate(specs)))
    return BatchResult(count, np.array(ys), np.array(ws),
                       None if wins[0] is None else np.array(wins), sum(wdls))


@dataclass
class Comparison:
    """The running totals of a duplicate comparison of A against B, each
    unit played `plays` times (A at each side in turn)."""
    a: str
    b: str
    games: bool
    plays: int = 2
    over_mean: PairedMoments = field(init=False)     # A's margin over the others' mean
    match: PairedMoments = field(init=False)
    wdl: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))
    units: int = 0
    rounds: int = 0
    batches: int = 0

    def __post_init__(self):
        self.over_mean, self.match = PairedMoments(self.plays), PairedMoments(self.plays)

    def add(self, r: BatchResult) -> None:
        self.over_mean.add(r.ys, r.ws)
        if self.games:
            self.match.add(r.wins)
        self.wdl += r.wdl
        self.units += r.units
        self.rounds += int(r.ws.sum())
        self.batches += 1

    def headline_halfwidth(self) -> float:
        """The paired halfwidth of the headline estimate: the match win rate
        with games, else the margin (over the others' mean) per round."""
        return (self.match if self.games else self.over_mean).result().halfwidth

    def result(self) -> dict:
        """Everything as plain data (see the `compare` command)."""
        rounds = int(self.wdl.sum())
        out = {"a": self.a, "b": self.b, "unit": "games" if self.games else "deals",
               "plays": self.plays, "pairs": self.units, "rounds": rounds,
               "margin": self.over_mean.result().as_dict(),
               "round_win": wilson(self.wdl[0], rounds).as_dict(),
               "round_draw": wilson(self.wdl[1], rounds).as_dict(),
               "round_loss": wilson(self.wdl[2], rounds).as_dict()}
        if self.games:
            match = self.match.result()
            k = int(round(self.match.sums[:self.plays].sum()))
            games = self.plays * self.units
            out["match_win"] = match.as_dict()
            out["match_win_wilson"] = wilson(k, games).as_dict()
            out["rounds_per_game"] = rounds / games if self.units else float("nan")
        return out


def compare(a, b, rules="scopa", seed: int | None = None, deals: int | None = None,
            until_halfwidth: float | None = None, games: bool = False,
            max_deals: int = DEFAULT_MAX_DEALS, batch_size: int | None = None,
            workers: int | None = None, scheduler=None,
            progress: Callable[[Comparison], None] | None = None, isolate: bool = False,
            move_timeout: float = MOVE_TIMEOUT, entrants=None) -> dict:
    """Compare strategy `a` with `b` on duplicate deals (or game seeds, with
    `games`): `deals` pairs, or batches until the paired 95% halfwidth of
    the headline estimate (margin per round; match win rate with games) is
    at most `until_halfwidth`, or `max_deals` is reached. Batches run on
    `workers` threads or a Dask cluster (`scheduler`, as for `simulate`).
    Without a `seed` a fresh one is drawn (the result's "seed").

    With `isolate`, user strategies (PATH.py:NAME or module:NAME) play in
    processes of their own, each decision within `move_timeout` seconds
    (see the module docstring); `entrants`: an `isolate.Entrants` already
    open (a tournament's), else one of its own."""
    if deals is not None and until_halfwidth is not None:
        raise ValueError("give either a number of deals or a halfwidth to reach, not both")
    if until_halfwidth is not None and not 0 < until_halfwidth < float("inf"):
        raise ValueError(f"the halfwidth to reach must be a positive number, not {until_halfwidth}")
    isolate = isolate or entrants is not None
    seed = seed_or_fresh(seed, wide=isolate)
    units = (DEFAULT_DEALS if until_halfwidth is None else max_deals) if deals is None else deals
    size = batch_size or (sizes.DUPLICATE_GAMES if games else sizes.DUPLICATE_DEALS)
    rules = Rules.resolve(rules)
    with _entrants(isolate, entrants, rules, move_timeout, scheduler) as pool:
        load = pool.load if pool is not None else None
        sa, sb = parse_strategy(a, loader=load), parse_strategy(b, loader=load)   # or functions
        a, b = str(sa), str(sb)
        kw = {"games" if games else "rounds": units}
        sides = range(rules.n_sides)
        specs = [RunSpec.make(**kw, strategies=tuple(sa if t == s else sb for t in sides),
                              rules=rules, seed=seed, batch_size=size, isolate=isolate)
                 for s in sides]
        cmp = Comparison(a, b, games, len(sides))

        def fold(_, batch: BatchResult) -> bool:
            cmp.add(batch)
            if progress:
                progress(cmp)
            return until_halfwidth is not None and cmp.headline_halfwidth() <= until_halfwidth
        task = functools.partial(duplicate_batch, entrants=pool)
        here = HERE if isolate and scheduler is None else scheduler     # never a cluster's
        stop = run(task, (specs,), range(specs[0].n_batches), fold,
                   1 if isolate else workers, here)
    out = cmp.result()
    out.update(seed=specs[0].seed, rules=rules.name, batch_size=size,
               until_halfwidth=until_halfwidth,
               reached=None if until_halfwidth is None else bool(stop))
    if pool is not None:
        out.update(isolate=True, move_timeout=pool.move_timeout, forfeits=pool.report(),
                   confinement=pool.confinement)
    return out


@contextlib.contextmanager
def _entrants(isolate: bool, given, rules: Rules, move_timeout: float, scheduler):
    """The entrants' processes of a run: `given`, or with `isolate` an
    `Entrants` of its own (stopped on leaving), else None."""
    if given is not None or not isolate:
        yield given
        return
    if scheduler is not None and not isinstance(scheduler, Threads):
        raise ValueError("isolation runs on this machine: drop the scheduler (--scheduler, "
                         "--cluster)")
    with Entrants(rules, move_timeout) as pool:
        yield pool


def tournament(strategies: Sequence[str], rules="scopa", seed: int | None = None,
               deals: int = 20_000, games: bool = False, batch_size: int | None = None,
               workers: int | None = None, scheduler=None,
               progress: Callable[[int, int, Comparison], None] | None = None,
               isolate: bool = False, move_timeout: float = MOVE_TIMEOUT) -> dict:
    """A round robin of duplicate comparisons, every pair on the same decks:
    the matrix of margins per round (row against column, over the others'
    mean: `compare`'s) with 95% intervals, and Bradley-Terry ratings from
    round wins (a draw counts half; with `games`, from games won) with
    Hessian intervals, also on an Elo scale.
    Without a `seed` a fresh one is drawn (the result's "seed").
    With `isolate`, as `compare`'s: every pair plays with one set of
    entrant processes, and the result's "forfeits" counts them all."""
    rules = Rules.resolve(rules)
    with _entrants(isolate, None, rules, move_timeout, scheduler) as pool:
        out = _tournament(strategies, rules, seed, deals, games, batch_size,
                          1 if isolate else workers, HERE if isolate and scheduler is None
                          else scheduler, progress, pool)
    if pool is not None:
        out.update(isolate=True, move_timeout=pool.move_timeout, forfeits=pool.report(),
                   confinement=pool.confinement)
    return out


def _tournament(strategies, rules, seed, deals, games, batch_size, workers, scheduler,
                progress, pool) -> dict:
    """`tournament`, its user strategies in the processes of `pool` if given."""
    parsed = [parse_strategy(s, loader=pool.load if pool is not None else None) for s in strategies]
    names = [str(s) for s in parsed]
    if len(names) < 2:
        raise ValueError("a tournament needs at least two strategies")
    if len(set(names)) < len(names):
        raise ValueError(f"strategies must differ: {', '.join(names)}")
    seed = seed_or_fresh(seed, wide=pool is not None)
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
                                   batch_size=batch_size, scheduler=ex, progress=cb,
                                   entrants=pool))
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
