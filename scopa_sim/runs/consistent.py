"""Whether a part's rows agree with each other and with its batch: cheap
checks on columns already in memory (numpy, no loop over rows), made by
the store as it reads a part (`store.Run._table`).

    index     a rounds run's part b holds rounds first..first+n-1 of its
              batch (`RunSpec.batch_range`), in order; a games run's holds
              games first..first+n-1, each game's rounds 0, 1, 2, ... in a
              row; its games table those games. A copied part holds another
              batch's indices, and is named with the part it copies.
    points    each side's points are the sum of its categories (scopas,
              most cards, coins, primiera, settebello, and re bello and
              napola when the rules have them: `schema.categories`).
    score     in a run of games, each round's score is its side's points in
              the game so far; the games table's winner has the top score.

To check what a read uses, the store reads with it the columns these
checks need (`needed`): the index always (delta-encoded: next to free),
and a side's points group whenever any column of it is read.
"""
from __future__ import annotations

import numpy as np

from ..engine import schema


def index_columns(games: bool, table: str) -> list[str]:
    """The columns that number a table's rows."""
    if table == "games":
        return ["game"]
    return ["game", "round"] if games else ["round"]


def points_groups(rules, games: bool, table: str) -> list[list[str]]:
    """The columns that must agree with each other, one group per side: its
    categories and points (with games, its running score); in the games
    table, the winner and the final scores."""
    n = rules.n_sides
    if table == "games":
        return [["winner", *(f"score_{t}" for t in range(n))]]
    names = [name for name, _ in schema.categories(rules)] + (["score"] if games else [])
    return [[f"{name}_{t}" for name in names] for t in range(n)]


def needed(rules, games: bool, table: str, names: list[str]) -> list[str]:
    """The columns to read with `names` so that the checks can be made."""
    extra = list(index_columns(games, table))
    for group in points_groups(rules, games, table):
        if any(c in group for c in names):
            extra += group
    return [c for c in dict.fromkeys(extra) if c not in names]


def bad_index(cols: dict, first: int, n: int, games: bool, table: str) -> tuple[str, int] | None:
    """(what is wrong, the batch whose indices the part holds, or -1) when a
    part's row indices are not its batch's first..first+n-1; None if they are."""
    unit = "game" if games else "round"
    units = cols[unit].astype(np.int64, copy=False)
    if not len(units):
        return (f"no {unit}", -1)
    if table == "games" or not games:
        if len(units) == n and np.array_equal(units, np.arange(first, first + n)):
            return None
        start, end = int(units[0]), int(units[-1])
        if (start, end) == (first, first + n - 1):
            return (f"{unit}s {first:,}..{end:,} with some repeated or out of order", -1)
        return f"{unit}s {start:,}..{end:,}, not its batch's {first:,}..{first + n - 1:,}", start
    step = np.diff(units)
    rounds = cols["round"].astype(np.int64, copy=False)
    new = np.concatenate(([True], step != 0))
    ok = (units[0] == first and units[-1] == first + n - 1 and ((step == 0) | (step == 1)).all()
          and (rounds[new] == 0).all() and (np.diff(rounds)[~new[1:]] == 1).all())
    if ok:
        return None
    return (f"(game, round) pairs of games {int(units[0]):,}..{int(units[-1]):,}, not its "
            f"batch's games {first:,}..{first + n - 1:,} each from round 0", int(units[0]))


def bad_points(cols: dict, rules, games: bool, table: str) -> str | None:
    """What is wrong with the points read, in words (None: nothing)."""
    groups = [g for g in points_groups(rules, games, table) if all(c in cols for c in g)]
    if table == "games":
        return _bad_winner(cols, groups[0]) if groups else None
    for group in groups:
        *cats, points = [c for c in group if not c.startswith("score_")]
        total = cols[cats[0]].astype(np.int32)
        for c in cats[1:]:
            np.add(total, cols[c], out=total)
        if not np.array_equal(total, cols[points]):
            return (f"{np.count_nonzero(total != cols[points]):,} rows whose {points} is not "
                    f"the sum of {', '.join(cats)}")
        if games:
            why = _bad_score(cols, points, group[-1])
            if why:
                return why
    return None


def _bad_score(cols: dict, points: str, score: str) -> str | None:
    """Whether each round's score is the game's points so far (the rows in
    game order: `bad_index` first)."""
    so_far = np.cumsum(cols[points], dtype=np.int64)
    new = np.flatnonzero(cols["round"] == 0)
    before = np.concatenate(([0], so_far))[new]               # points before each game
    starts = np.repeat(before, np.diff(np.append(new, len(so_far))))
    wrong = np.flatnonzero(so_far - starts != cols[score])
    if len(wrong):
        return f"{len(wrong):,} rounds whose {score} is not the game's {points} so far"
    return None


def _bad_winner(cols: dict, group: list[str]) -> str | None:
    scores = np.stack([cols[c] for c in group[1:]], 1)
    wrong = np.flatnonzero(scores.argmax(1) != cols["winner"])
    if len(wrong):
        return f"{len(wrong):,} games whose winner is not the side with the top score"
    return None
