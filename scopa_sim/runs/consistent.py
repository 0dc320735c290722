"""Whether a part's rows agree with each other and with its batch: cheap
checks on columns in memory (numpy, no loop over rows), made by the store
as it reads a part (`store.Run._table`).

    index     a rounds run's part b holds rounds first..first+n-1 of its
              batch (`RunSpec.batch_range`), in order; a games run's holds
              games first..first+n-1, each game's rounds 0, 1, 2, ... in a
              row; its games table those games. A copied part holds another
              batch's indices, and is named with the part it copies.
    points    each side's points are the sum of its categories (scopas,
              most cards, coins, primiera, settebello, and re bello and
              napola when the rules have them: `schema.categories`).
    score     in a run of games, each round's score is its side's points in
              the game so far; each game in the games table has its rounds'
              count and last scores (`game_ends`), the top score's side as
              winner.
    dealer    round u of a rounds run is dealt by seat u % players; round r
              of game g by seat (g + r) % players (the deal passes on).

To check what a read uses, the store reads with it the columns these
checks need (`needed`): the index always (delta-encoded: next to free), a
side's points with all its categories whenever any of them is read, and
the games table whole (it is small), with its rounds part's scores if the
read has not read them yet.
"""
from __future__ import annotations

import hashlib

import numpy as np

from ..engine import schema


def always(rules, games: bool, table: str) -> list[str]:
    """The columns read with every read of a table: its index, and the whole
    games table (it is small)."""
    if table == "games":
        return list(schema.game_fields(rules))
    return ["game", "round"] if games else ["round"]


def scores(rules) -> list[str]:
    """The rounds table's scores, of a run of games (for `game_ends`)."""
    return [f"score_{t}" for t in range(rules.n_sides)]


def points_groups(rules, games: bool) -> list[list[str]]:
    """The rounds table's columns that must agree, one group per side: its
    categories, then its points (with games, then its running score)."""
    names = [name for name, _ in schema.categories(rules)] + (["score"] if games else [])
    return [[f"{name}_{t}" for name in names] for t in range(rules.n_sides)]


def needed(rules, games: bool, table: str, names: list[str], widen: bool = True) -> list[str]:
    """The columns to read with `names` so that the checks can be made: every
    side's points group on every rounds part, whatever `names` are (without
    `widen`, none: a read made for another check)."""
    extra = always(rules, games, table)
    if table == "rounds" and widen:
        for group in points_groups(rules, games):
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
    rounds = cols["round"]
    new = rounds == 0                    # a game's first round: the game one more, else the same
    ok = (new[0] and units[0] == first and np.count_nonzero(new) == n
          and np.array_equal(np.diff(units), new[1:])
          and np.array_equal(np.diff(rounds) == 1, ~new[1:]))
    if ok:
        return None
    return (f"(game, round) pairs of games {int(units[0]):,}..{int(units[-1]):,}, not its "
            f"batch's games {first:,}..{first + n - 1:,} each from round 0", int(units[0]))


def bad_rows(cols: dict, rules, games: bool, table: str) -> str | None:
    """What is wrong with the rows read, in words (None: nothing); the rows
    are in their batch's order (`bad_index` first)."""
    if table == "games":
        return _bad_games(cols, rules)
    new = cols["round"] == 0 if games else None
    why = _bad_dealer(cols, rules.players, new)
    for group in points_groups(rules, games):
        if why or not all(c in cols for c in group):
            continue
        *cats, points = [c for c in group if not c.startswith("score_")]
        total = cols[cats[0]].astype(np.int32)
        for c in cats[1:]:
            np.add(total, cols[c], out=total)
        if not np.array_equal(total, cols[points]):
            why = (f"{np.count_nonzero(total != cols[points]):,} rows whose {points} is not "
                   f"the sum of {', '.join(cats)}")
        elif games:
            why = _bad_score(cols, points, group[-1], new)
    return why


def game_ends(cols: dict, n_sides: int, table: str) -> bytes:
    """The sha256 of each game's rounds and final scores: from a games run's
    rounds part, or its games table (the same if they agree)."""
    scores = [f"score_{t}" for t in range(n_sides)]
    if table == "games":
        ends = np.stack([cols[c].astype(np.int64) for c in ["rounds", *scores]])
    else:
        last = np.append(np.flatnonzero(cols["round"][1:] == 0), len(cols["round"]) - 1)
        ends = np.stack([cols[c][last].astype(np.int64) + (c == "round")
                         for c in ["round", *scores]])
    return hashlib.sha256(ends.tobytes()).digest()


def _bad_dealer(cols: dict, players: int, new: np.ndarray | None) -> str | None:
    """Whether each dealer is the seat after the last round's (`new`: the
    rows that start a game), and each game's (run's) first the seat game
    (round) % players: no modulo over every row."""
    if "dealer" not in cols:
        return None
    dealer = cols["dealer"]
    step = np.diff(dealer)
    passes = (step == 1) | (step == 1 - players)
    if new is None:
        ok = passes.all() and dealer[0] == cols["round"][0] % players
        how = "round % players"
    else:
        starts = np.flatnonzero(new)
        ok = ((passes | new[1:]).all()
              and np.array_equal(dealer[starts], cols["game"][starts] % players))
        how = "(game + round) % players"
    return None if ok else f"rows whose dealer is not the seat {how}"


def _bad_games(cols: dict, rules) -> str | None:
    scores = np.stack([cols[f"score_{t}"] for t in range(rules.n_sides)], 1)
    wrong = np.count_nonzero(scores.argmax(1) != cols["winner"])
    if wrong:
        return f"{wrong:,} games whose winner is not the side with the top score"
    wrong = np.count_nonzero(cols["game"] % rules.players != cols["first_dealer"])
    if wrong:
        return f"{wrong:,} games whose first_dealer is not the seat game % players"
    return None


def _bad_score(cols: dict, points: str, score: str, new: np.ndarray) -> str | None:
    """Whether each round's score is the game's points so far: its points
    plus the score before (none at a game's first round, `new`)."""
    before = cols[score].astype(np.int32) - cols[points]
    ok = before[0] == 0 and np.array_equal(np.where(new[1:], 0, cols[score][:-1]), before[1:])
    return None if ok else f"rounds whose {score} is not the game's {points} so far"
