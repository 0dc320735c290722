"""What each card is worth: for every card, the round margin and the win
edge of the side whose first hand holds it, with 95% intervals, and the
distribution of a first hand's worth, from a run's rows and its deal
columns (`scopa_sim.engine.deals`, computed from the seed).

For a card in seat s's first hand, s on side t: the margin is t's round
points minus the best other side's, and the win edge is 1 if t wins the
round, -1 if another side does, 0 on a tie at the top (so its mean is P(t
wins) - P(another side wins)). A card on the first table or dealt later
counts for nobody. A hand's worth is the sum of its cards' margins: the
margin it promises, card by card. Values hold under the run's strategies.

By who captured it (`by="taken"`): for a card in side t's captured cards
(`scopa_sim.runs.taken`: stored with the run, or played again from its seed),
t's margin and win edge; every card of a round counts for one side. There is
no hand's worth then.
"""
from __future__ import annotations

import numpy as np

from ..engine import deals
from ..runs import taken
from ..runs.parts import side_strategy
from ..runs.store import Run
from ..stats import mean_from_sums, strict_leader

CHUNK = 1 << 18          # rows unpacked to bits at once (CHUNK x 40 floats)
BINS = 0.05              # the width of the hand-worth histogram's bins, in points
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _bits(masks: np.ndarray) -> np.ndarray:
    """rows x 40 of 0/1 (float64): bit c of each card set."""
    as_bytes = np.ascontiguousarray(masks, np.uint64).view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :40].astype(np.float64)


def _sides(run: Run, df) -> tuple[np.ndarray, np.ndarray]:
    """Each side's round margin (rows x sides) and win edge (+1, -1, 0)."""
    points = np.stack([df[f"points_{t}"].astype(np.int64)
                       for t in range(run.spec.rules.n_sides)], 1)
    margins = np.empty_like(points)
    for t in range(points.shape[1]):
        margins[:, t] = points[:, t] - np.delete(points, t, axis=1).max(1)
    winner = strict_leader(points)
    edges = np.where(winner[:, None] == np.arange(points.shape[1]), 1,
                     np.where(winner[:, None] >= 0, -1, 0))
    return margins, edges


def _hands(run: Run, columns: list[str]):
    """Batch by batch: the rows (`columns`) and every seat's first hand."""
    spec = run.spec
    for b, df in run.batches(columns=deals.keys(spec.games) + columns):
        dealt = deals.for_run(run, df)
        yield b, df, [dealt[f"hand_{s}"] for s in range(spec.rules.players)]


def _taken(run: Run, columns: list[str]):
    """Batch by batch: the rows (`columns`) and every side's captured cards
    (stored, or played again from the seed)."""
    spec = run.spec
    stored = getattr(spec, "keep_taken", False)
    if not stored:
        taken.check_replayable(run.root, run.stored)
    names = taken.names(spec.rules)
    for b, df in run.batches(columns=deals.keys(spec.games) + columns
                             + (names if stored else [])):
        sets = df if stored else taken.replay(run, b, df)
        yield b, df, [np.asarray(sets[n]) for n in names]


BY = ("hand", "taken")


def card_values(run: Run, progress=None, by: str = "hand") -> dict:
    """The values of the 40 cards and the distribution of hand worth, as
    plain data (two passes over the run's batches: values, then worth;
    `progress(b)` after each batch of each). `by="taken"`: by the side that
    captured each card (one pass; no hand worth)."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
    spec, rules = run.spec, run.spec.rules
    deals.check_run(run.root, run.manifest)
    sums = np.zeros((5, 40))              # n, margin sum, margin sum sq, edge sum, edge sum sq
    rows = 0
    for b, df, hands in (_hands if by == "hand" else _taken)(
            run, [f"points_{t}" for t in range(rules.n_sides)]):
        margins, edges = _sides(run, df)
        rows += len(margins)
        for s, hand in enumerate(hands):
            t = rules.teams[s] if by == "hand" else s
            for lo in range(0, len(margins), CHUNK):
                m, e = margins[lo:lo + CHUNK, t], edges[lo:lo + CHUNK, t]
                terms = np.stack([np.ones_like(m), m, m * m, e, e * e]).astype(np.float64)
                sums += terms @ _bits(hand[lo:lo + CHUNK])
        if progress:
            progress(b)
    if rows == 0:
        raise ValueError(f"{run.root} has no complete batch yet")
    margin = [mean_from_sums(sums[1, c], sums[2, c], int(sums[0, c])) for c in range(40)]
    edge = [mean_from_sums(sums[3, c], sums[4, c], int(sums[0, c])) for c in range(40)]
    worth = np.array([m.mean if m.n else 0.0 for m in margin])
    out = {"run": str(run.root), "rules": rules.name, "seed": spec.seed, "rounds": rows,
           "strategies": [side_strategy(spec, t) for t in range(rules.n_sides)],
           "cards": [{"card": c, "margin": margin[c].as_dict(), "win_edge": edge[c].as_dict()}
                     for c in range(40)]}
    if run.partial():                        # an unfinished run: said beside the values
        out["partial"] = run.partial()
    if by == "taken":
        return {**out, "by": "taken", "hand_worth": None}
    return {**out, "hand_worth": _hand_worth(run, worth, rules.hand_size, progress)}


def _hand_worth(run: Run, worth: np.ndarray, size: int, progress=None) -> dict:
    """The histogram (bins of BINS points from `low`) and mean of the worth
    of every first hand of the run: the sum of its cards' values."""
    ordered = np.sort(worth)
    low = np.floor(ordered[:size].sum() / BINS) * BINS           # the least a hand can be worth
    counts = np.zeros(int((ordered[-size:].sum() - low) / BINS) + 2, np.int64)
    total = total_sq = n = 0.0
    for b, _, hands in _hands(run, []):
        if progress:
            progress(b)
        for hand in hands:
            for lo in range(0, len(hand), CHUNK):
                w = _bits(hand[lo:lo + CHUNK]) @ worth
                at = np.clip(((w - low) / BINS).astype(np.int64), 0, len(counts) - 1)
                counts += np.bincount(at, minlength=len(counts))
                total, total_sq, n = total + w.sum(), total_sq + (w * w).sum(), n + len(w)
    last = int(np.flatnonzero(counts).max()) + 1
    first = int(np.flatnonzero(counts).min())
    cumulative = np.cumsum(counts) / counts.sum()
    return {"low": float(low + first * BINS), "bin": BINS,
            "counts": [int(k) for k in counts[first:last]],
            "mean": mean_from_sums(total, total_sq, int(n)).as_dict(),
            "quantiles": {str(q): float(low + (np.searchsorted(cumulative, q) + 1) * BINS)
                          for q in QUANTILES}}
