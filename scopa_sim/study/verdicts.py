"""What the rollouts of a decision say about one move, and why: its verdict
against the other moves, and the difference split by what the round's
points are made of.

Every move of a decision is played on the same deals (`advise`'s common
random numbers), so two moves are compared deal by deal (paired). From the
adviser's side, rollout r of move j ends with its side's points and the best
other side's (the side with the most points, the first on a tie), each made
of the same parts:

    margin = mine - theirs = sum over parts of (mine[part] - theirs[part])

so the difference between two moves, averaged over the deals, splits into
parts that add up to it exactly: the scopas, the settebello, the cards, the
coins, the primiera (and the re bello and napola where the rules score
them).

A verdict (`verdict`) compares the move with the others at 1 - alpha, paired:

    best    above every other move (moves equal to it on every deal are
            its twins: equal, not rivals)
    worse   below the move with the best mean
    level   neither: the rollouts cannot tell it from `versus` yet

and is decided when it is best, or worse with no `marks` threshold inside
its cost's interval (the label it would carry cannot change with more
rollouts' worth of luck), or when its edge over versus is known to
+-`precision` (more rollouts would refine a difference smaller than that,
not change what it means); `advise` keeps rolling out until it is, or the
budget ends (sequential sampling).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import column_means
from ..kernels import layout as L

PARTS = {"scopas": L.S_SCOPAS, "settebello": L.S_PT_SETTEBELLO, "cards": L.S_PT_CARDS,
         "coins": L.S_PT_COINS, "primiera": L.S_PT_PRIMIERA, "re bello": L.S_PT_RE_BELLO,
         "napola": L.S_PT_NAPOLA}
ALWAYS = ("scopas", "settebello", "cards", "coins", "primiera")   # shown even when 0
THINGS = {"settebello": "the settebello", "cards": "the most cards", "coins": "the most coins",
          "primiera": "the primiera", "re bello": "the re bello"}
QUIET = 0.005                   # a difference below this (round points) has no words


@dataclass(frozen=True)
class Samples:
    """Each rollout's end of every move from the adviser's side: one row
    per rollout (one row in all when exact), one column per move."""
    margin: np.ndarray          # float64[r, n]: the side's points minus the best other side's
    mine: np.ndarray            # int16[r, n, parts]: the side's points by part (PARTS order)
    theirs: np.ndarray          # int16[r, n, parts]: the best other side's
    swept: np.ndarray           # bool[r, n]: the play after the move took the whole table
    points: np.ndarray          # int16[r, n, sides]: every side's round points
    exact: bool                 # values by minimax: no interval
    sides: int

    def take(self, rows: int, moves: list[int]) -> "Samples":
        """The first `rows` rollouts of `moves` (columns, in that order)."""
        return Samples(self.margin[:rows, moves], self.mine[:rows, moves],
                       self.theirs[:rows, moves], self.swept[:rows, moves],
                       self.points[:rows, moves], self.exact, self.sides)


def samples(scores: np.ndarray, swept: np.ndarray, side: int, margin=None) -> Samples:
    """Samples from the kernel's ends (`kernels.advise.Outcomes`: scores
    int16[r, n, sides, fields]); `margin` the exact values where they are
    (the scores then those of a best line)."""
    points = scores[..., L.S_POINTS].astype(np.int64)
    others = points.copy()
    others[..., side] = np.iinfo(np.int64).min
    best_other = others.argmax(-1)[..., None, None]
    fields = list(PARTS.values())
    mine = scores[..., side, fields]
    theirs = np.take_along_axis(scores, best_other, axis=-2)[..., 0, fields]
    exact = margin is not None
    if margin is None:
        margin = (points[..., side] - np.take_along_axis(points, best_other[..., 0], -1)[..., 0])
    return Samples(np.asarray(margin, np.float64).reshape(len(scores), -1), mine, theirs,
                   swept, scores[..., L.S_POINTS], exact, scores.shape[-2])


def interval(x: np.ndarray, alpha: float, exact: bool = False):
    """(means, lows, highs) of x's columns: paired t intervals, or the
    values themselves when exact."""
    if exact:
        mean = x.mean(0)
        return mean, mean, mean
    return column_means(x, alpha)


def breakdown(s: Samples, a: int, b: int, alpha: float = 0.05) -> tuple[dict, str]:
    """Move a against move b: ({part: (mean, low, high)}, words), the parts
    of the mean margin difference a - b (they add up to it), and the
    largest part that way (a loss for a worse move, a gain for a better) in
    words ('' when every part is below `QUIET`)."""
    d = (s.mine[:, a] - s.theirs[:, a]).astype(np.float64) \
        - (s.mine[:, b] - s.theirs[:, b])
    means, lows, highs = interval(d, alpha, s.exact)
    parts = {name: (float(means[c]), float(lows[c]), float(highs[c]))
             for c, name in enumerate(PARTS) if name in ALWAYS or (d[:, c] != 0).any()}
    total = means.sum()
    c = int(np.argmax(means * np.sign(total) if abs(total) >= QUIET else np.abs(means)))
    return parts, (_words(s, a, b, c) if abs(means[c]) >= QUIET else "")


def _words(s: Samples, a: int, b: int, c: int) -> str:
    """Part c of move a against move b in words, with the rates that make
    it: the other side's where they changed more (or as much, and rose: a
    point given away), else the side's own."""
    name = list(PARTS)[c]
    mine = s.mine[:, a, c].mean(), s.mine[:, b, c].mean()
    theirs = s.theirs[:, a, c].mean(), s.theirs[:, b, c].mean()
    other = "the other side" if s.sides == 2 else "the leading other side"
    if name == "scopas":
        return _scopa_words(s, a, b, mine, theirs, other)
    if name == "napola":
        return f"scores {mine[0]:.2f} napola points (vs {mine[1]:.2f})"
    thing = THINGS[name]
    given, own = theirs[0] - theirs[1], mine[0] - mine[1]
    if abs(given) > abs(own) or (np.isclose(abs(given), abs(own)) and given > 0):
        if name == "settebello" and theirs[0] > theirs[1]:
            return (f"exposes the settebello: {other} takes it {theirs[0]:.0%} of the time "
                    f"(vs {theirs[1]:.0%})")
        return f"{other} takes {thing} {theirs[0]:.0%} of the time (vs {theirs[1]:.0%})"
    return f"takes {thing} {mine[0]:.0%} of the time (vs {mine[1]:.0%})"


def _scopa_words(s: Samples, a: int, b: int, mine, theirs, other: str) -> str:
    """The scopas part in words: the sweeps given away (the next play's
    sweeps when they make most of it), the sweeps made, or both when each
    makes a third of the part or more, the larger first."""
    own, given = mine[0] - mine[1], theirs[0] - theirs[1]
    swept = s.swept[:, a].mean(), s.swept[:, b].mean()
    if swept[0] != swept[1] and abs(swept[0] - swept[1]) >= abs(given) / 2:
        away = f"gives away a scopa {swept[0]:.0%} of the time (vs {swept[1]:.0%})"
    else:
        away = f"{other} sweeps {theirs[0]:.2f} times a round (vs {theirs[1]:.2f})"
    made = f"sweeps {mine[0]:.2f} times a round (vs {mine[1]:.2f})"
    part = own - given
    said = sorted(((-given * np.sign(part), away), (own * np.sign(part), made)), reverse=True)
    return "; ".join(words for size, words in said if size >= abs(part) / 3) or said[0][1]


def verdict(m: np.ndarray, j: int, alpha: float, marks=(), exact: bool = False,
            precision: float = 0.0) -> dict:
    """Move j's verdict against the others at 1 - alpha, paired (module
    docstring), from the margins m[rollout, move] (`Samples.margin`):
    {"verdict", "versus" (a move index, or None when every other move is
    its twin or there is none), "edge", "edge_low", "edge_high" (j minus
    versus), "decided"}."""
    means = m.mean(0)
    rivals = [k for k in range(m.shape[1]) if k != j and (m[:, k] != m[:, j]).any()]
    if not rivals:
        twin = next((k for k in range(m.shape[1]) if k != j), None)
        return {"verdict": "best", "versus": twin, "edge": 0.0, "edge_low": 0.0,
                "edge_high": 0.0, "decided": True}
    if means[j] >= means[rivals].max():
        edges, lows, highs = interval(m[:, [j]] - m[:, rivals], alpha, exact)
        k = int(np.argmin(lows))
        separated = bool((lows > 0).all())
        return {"verdict": "best" if separated else "level", "versus": rivals[k],
                "edge": float(edges[k]), "edge_low": float(lows[k]),
                "edge_high": float(highs[k]),
                "decided": separated or highs[k] - lows[k] <= 2 * precision}
    b = rivals[int(np.argmax(means[rivals]))]
    edge, low, high = (float(v[0]) for v in interval(m[:, [j]] - m[:, [b]], alpha, exact))
    worse = high < 0
    straddled = any(-high < t < -low for t in marks)
    return {"verdict": "worse" if worse else "level", "versus": b, "edge": edge,
            "edge_low": low, "edge_high": high,
            "decided": (worse and not straddled) or high - low <= 2 * precision}
