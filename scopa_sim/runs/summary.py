"""The summary of a run, tallied batch by batch in constant memory: the
runner's tally consumer, folded as parts are written (`resume`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import schema
from ..stats import mean_from_sums, strict_leader, wilson


@dataclass
class Tally:
    """Running sums over the rounds (and games) of a run, for the point
    categories of its rules (`schema.categories`, `points` last)."""
    rules: object
    rounds: int = 0
    games: int = 0
    round_wins: np.ndarray = None       # per side, then ties at the top
    game_wins: np.ndarray = None
    sums: np.ndarray = None             # [side, category, sum / sum of squares]

    def __post_init__(self):
        self.n_sides = self.rules.n_sides
        self.categories = schema.categories(self.rules)
        self.round_wins = np.zeros(self.n_sides + 1, np.int64)
        self.game_wins = np.zeros(self.n_sides, np.int64)
        self.sums = np.zeros((self.n_sides, len(self.categories), 2), np.int64)

    def add(self, cols) -> None:
        """Count one batch of round rows (a DataFrame or a dict of columns)."""
        rows = len(cols["round"])
        values = np.empty((self.n_sides, len(self.categories), rows), np.int16)
        for t in range(self.n_sides):
            for j, (c, _) in enumerate(self.categories):
                values[t, j] = cols[f"{c}_{t}"]
        wide = values.astype(np.int64)
        self.sums += np.stack([wide.sum(2), (wide * wide).sum(2)], 2)
        top = strict_leader(values[:, -1].T) + 1           # by the points (last); 0: a tie
        self.round_wins += np.roll(np.bincount(top, minlength=self.n_sides + 1), -1)
        self.rounds += rows
        if "game" in cols:
            game = np.asarray(cols["game"])
            last = np.append(game[1:] != game[:-1], True)
            scores = np.stack([np.asarray(cols[f"score_{t}"])[last] for t in range(self.n_sides)])
            self.games += int(last.sum())
            self.game_wins += np.bincount(scores.argmax(0), minlength=self.n_sides)

    def merge(self, other: Tally) -> None:
        """Add another tally's counts (of other batches, under the same rules)."""
        self.rounds += other.rounds
        self.games += other.games
        self.round_wins += other.round_wins
        self.game_wins += other.game_wins
        self.sums += other.sums

    def result(self) -> dict:
        """Win rates with Wilson intervals, mean points per category with intervals."""
        sides = []
        for t in range(self.n_sides):
            side = {"side": t, "round_win": wilson(self.round_wins[t], self.rounds).as_dict()}
            if self.games:
                side["game_win"] = wilson(self.game_wins[t], self.games).as_dict()
            for j, (c, _) in enumerate(self.categories):
                side[c] = mean_from_sums(*self.sums[t, j], self.rounds).as_dict()
            sides.append(side)
        out = {"rounds": self.rounds, "round_tie": wilson(self.round_wins[-1], self.rounds).as_dict(),
               "sides": sides, "categories": [list(c) for c in self.categories]}
        if self.games:
            out["games"] = self.games
        return out
