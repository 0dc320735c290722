"""What a report says about a run, tallied batch by batch in one pass over
the part files (reading only the columns it needs), then turned into plain
data with intervals by `run_stats`.
"""
from __future__ import annotations

import numpy as np

from ..engine import deals
from ..runs.parts import side_strategy
from ..runs.store import Run
from .markov import MAX_POINTS, bootstrap_match_probability, round_counts, trimmed
from ..stats import mean_from_sums, strict_leader, wilson
from ..engine import schema
from ..runs.summary import Tally
from .values import card_values

CHECKPOINTS = 120               # points on the convergence curve (log-spaced)


def needed_columns(run: Run) -> list[str]:
    n = run.spec.rules.n_sides
    cols = ["round", "dealer"] + (["game"] if run.spec.games else [])
    cols += [f"{c}_{t}" for c, _ in schema.categories(run.spec.rules) for t in range(n)]
    cols += [f"score_{t}" for t in range(n)] if run.spec.games else []
    return cols


class RunTally:
    """Running counts over a run's round rows, in batch order."""

    def __init__(self, run: Run):
        self.run = run
        rules = run.spec.rules
        self.n_sides, self.players = rules.n_sides, rules.players
        self.teams = np.asarray(rules.teams)
        self.tally = Tally(rules)
        # joint[dealer seat, points_0, points_1]: two sides only
        self.joint = np.zeros((self.players, MAX_POINTS, MAX_POINTS), np.int64)
        self.scopas = np.zeros(MAX_POINTS, np.int64)        # rounds by total scopas
        self.dealer = np.zeros(4)      # dealer-side wins, leader-side wins, margin sum, sum sq
        self.rows = 0
        self.k0 = 0                    # side 0 round wins so far
        total = run.spec.units * (12 if run.spec.games else 1)    # rounds, roughly
        self.marks = np.unique(np.geomspace(10, max(total, 10), CHECKPOINTS).astype(np.int64))
        self.curve: list[tuple[int, int]] = []       # (rounds, side-0 wins) at checkpoints

    def add(self, df) -> None:
        self.tally.add(df)
        pts = np.stack([df[f"points_{t}"].astype(np.int64)
                        for t in range(self.n_sides)], 1)
        dealer = df["dealer"].astype(np.int64)
        if self.n_sides == 2:
            self.joint += round_counts(dealer, pts[:, 0], pts[:, 1], self.players)
        sc = sum(df[f"scopas_{t}"].astype(np.int64) for t in range(self.n_sides))
        self.scopas += np.bincount(np.clip(sc, 0, MAX_POINTS - 1), minlength=MAX_POINTS)
        ds, ls = self.teams[dealer], self.teams[(dealer + 1) % self.players]
        rows = np.arange(len(dealer))
        win = strict_leader(pts)
        margin = pts[rows, ds] - pts[rows, ls]
        self.dealer += [(win == ds).sum(), (win == ls).sum(), margin.sum(), (margin ** 2).sum()]
        # the convergence curve of side 0's round win rate, at checkpoints in this batch
        wins0 = np.cumsum(win == 0) + self.k0
        for m in self.marks[(self.marks > self.rows) & (self.marks <= self.rows + len(win))]:
            self.curve.append((int(m), int(wins0[m - self.rows - 1])))
        self.rows += len(win)
        self.k0 = int(wins0[-1]) if len(win) else self.k0


def run_stats(run: Run, bootstrap: int = 200, progress=None, values: bool = True) -> dict:
    """The report's numbers for a run, as plain data; with `values`, what
    each card is worth too (`values.card_values`), for runs whose deals can
    be dealt again."""
    spec = run.spec
    t = RunTally(run)
    for b, df in run.batches(columns=needed_columns(run)):
        t.add(df)
        if progress:
            progress(b)
    if t.rows == 0:
        raise ValueError(f"{run.root} has no complete batch yet")
    if not t.curve or t.curve[-1][0] != t.rows:
        t.curve.append((t.rows, t.k0))
    s = t.tally.result()
    n = spec.rules.n_sides
    labels = [side_strategy(spec, k) for k in range(n)]
    out = {"run": str(run.root), "rules": spec.rules.name, "target": spec.rules.target,
           "seed": spec.seed, "kind": "games" if spec.games else "rounds",
           "strategies": labels, "rounds": s["rounds"], "round_tie": s["round_tie"],
           "sides": s["sides"], "categories": s["categories"]}
    if "games" in s:
        out["games"] = s["games"]
    if run.partial():                        # an unfinished run: said at the top of the report
        out.update(partial=run.partial(), parts=len(run.done_batches()),
                   parts_planned=spec.n_batches)
    # dealer versus leader
    d = t.dealer
    out["dealer"] = {"dealer_win": wilson(int(d[0]), t.rows).as_dict(),
                     "leader_win": wilson(int(d[1]), t.rows).as_dict(),
                     "margin": mean_from_sums(d[2], d[3], t.rows).as_dict()}
    # scopas per round (both sides together)
    last = int(np.flatnonzero(t.scopas).max()) if t.scopas.any() else 0
    out["scopas_per_round"] = {str(k): int(t.scopas[k]) for k in range(last + 1)}
    out["convergence"] = [{"rounds": m, "rate": k / m, "low": wilson(k, m).low,
                           "high": wilson(k, m).high} for m, k in t.curve]
    g = (run.read_arrays("games", columns=["rounds", "winner", "first_dealer"]) if spec.games
         else None)
    if n == 2:
        margin = {}
        points = t.joint.sum(0)                          # rounds by (points_0, points_1)
        for x, y in zip(*np.nonzero(points)):
            margin[int(x - y)] = margin.get(int(x - y), 0) + int(points[x, y])
        out["margin_counts"] = {str(k): margin[k] for k in sorted(margin)}
        out["match_exact"] = _exact(run, t, bootstrap, g)
    if spec.games:
        rounds = g["rounds"].astype(np.int64)
        counts = np.bincount(rounds)
        out["rounds_per_game"] = {
            "mean": mean_from_sums(rounds.sum(), (rounds ** 2).sum(), len(rounds)).as_dict(),
            "quantiles": {q: float(np.quantile(rounds, float(q))) for q in
                          ("0.05", "0.25", "0.5", "0.75", "0.95")},
            "counts": {str(k): int(c) for k, c in enumerate(counts) if c}}
        first_side = t.teams[g["first_dealer"].astype(np.int64)]
        out["dealer"]["first_dealer_game_win"] = wilson(
            int((g["winner"] == first_side).sum()), len(rounds)).as_dict()
    if values and deals.dealt_again(run.manifest):
        out["values"] = card_values(run)
    m = run.manifest
    elapsed = m.get("elapsed_seconds")
    out["throughput"] = {"finished": bool(m.get("finished")), "created": m.get("created"),
                         "seconds": elapsed, "workers": m.get("workers"),
                         "batches": len(run.done_batches()), "n_batches": spec.n_batches,
                         "rounds_per_second": t.rows / elapsed if elapsed else None,
                         "versions": m.get("versions", {})}
    return out


def _exact(run: Run, t: RunTally, bootstrap: int, games) -> dict:
    """The match win probability from the rounds' (points_0, points_1)
    distribution per dealer seat, with a bootstrap interval, beside the
    simulated game win rate (runs of games)."""
    spec = run.spec
    out = {"target": spec.rules.target}
    seats = t.joint.sum((1, 2))
    if (seats == 0).any():
        out["note"] = "some dealer seat dealt no round: no exact value"
        return out
    weights = None
    if games is not None:
        first = games["first_dealer"]
        weights = np.bincount(first.astype(np.int64), minlength=spec.rules.players)
    p, low, high = bootstrap_match_probability(trimmed(t.joint), spec.rules.target, weights,
                                               replicates=bootstrap)
    out.update(side0_win=p, low=low, high=high, replicates=bootstrap)
    if spec.games:
        out["simulated"] = t.tally.result()["sides"][0]["game_win"]
    return out
