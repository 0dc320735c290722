""""How often" questions over a run: P(event | condition) with n and a 95%
interval, or the mean of a number given a condition.

Expressions are in the small language of `expr` (never pandas or Python
eval) over the columns of the dataset (README, "Data: columns of a round")
plus a few derived columns (`ROUND_DERIVED`, `GAME_DERIVED`) and, in the
rounds table, the deal columns (`scopa_sim.engine.deals`: card sets computed from
the run's seed, batch by batch). They are checked in full before anything is
read, and only the columns they name are read or computed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..engine import deals
from ..runs import taken
from ..runs.store import Run
from . import expr as expression
from ..stats import Moments, strict_leader, wilson

TABLES = ("rounds", "games")
Columns = dict[str, np.ndarray]         # a batch's rows, column by column (`Run.batch_arrays`)


@dataclass(frozen=True)
class Derived:
    """A column computed from stored ones: what it needs and what it means."""
    needs: Callable[[Run], list[str]]
    compute: Callable[[Run, Columns, int], np.ndarray]     # (run, rows, batch)
    doc: str
    games_only: bool = False


def _points(run: Run) -> list[str]:
    return [f"points_{t}" for t in range(run.spec.rules.n_sides)]


def _side_of(run: Run, seats: np.ndarray, shift: int = 0) -> np.ndarray:
    r = run.spec.rules
    return np.asarray(r.teams, np.int8)[(seats.astype(np.int64) + shift) % r.players]


def _game_winner(run: Run, df: Columns, b: int) -> np.ndarray:
    games = run.batch_arrays(b, "games", columns=["game", "winner"])    # the batch's games
    order = np.argsort(games["game"], kind="stable")
    at = order[np.searchsorted(games["game"], df["game"], sorter=order)]
    return games["winner"][at].astype(np.int8)


def _stack(df: Columns, cols: list[str]) -> np.ndarray:
    """rows x columns, of their common type."""
    return np.stack([df[c] for c in cols], 1)


def _others_best(df: Columns, cols: list[str]) -> np.ndarray:
    return _stack(df, cols[1:]).max(1)


ROUND_DERIVED: dict[str, Derived] = {
    "winner": Derived(_points, lambda run, df, b: strict_leader(_stack(df, _points(run))),
                      "side with the most points in the round; -1 on a tie at the top"),
    "margin": Derived(_points, lambda run, df, b: df[_points(run)[0]].astype(np.int64)
                      - _others_best(df, _points(run)),
                      "points_0 minus the best other side's points (two sides: points_0 - points_1)"),
    "total_points": Derived(_points, lambda run, df, b: _stack(df, _points(run)).astype(np.int64)
                            .sum(1), "all sides' round points together"),
    "dealer_side": Derived(lambda run: ["dealer"], lambda run, df, b: _side_of(run, df["dealer"]),
                           "side of the seat that dealt"),
    "leader": Derived(lambda run: ["dealer"],
                      lambda run, df, b: ((df["dealer"].astype(np.int64) + 1)
                                       % run.spec.rules.players).astype(np.int8),
                      "seat that led (the one after the dealer)"),
    "leader_side": Derived(lambda run: ["dealer"], lambda run, df, b: _side_of(run, df["dealer"], 1),
                           "side of the seat that led"),
    "game_winner": Derived(lambda run: ["game"], _game_winner,
                           "side that won the round's game (runs of games)", games_only=True),
}

GAME_DERIVED: dict[str, Derived] = {
    "dealer_side": Derived(lambda run: ["first_dealer"],
                           lambda run, df, b: _side_of(run, df["first_dealer"]),
                           "side of the seat that dealt the game's first round"),
    "margin": Derived(lambda run: [f"score_{t}" for t in range(run.spec.rules.n_sides)],
                      lambda run, df, b: df["score_0"].astype(np.int64)
                      - _others_best(df, [f"score_{t}" for t in range(run.spec.rules.n_sides)]),
                      "final score_0 minus the best other side's final score"),
}

EXAMPLES = (
    ('"winner == 0" --given "settebello_0 == 1"',
     "how often does the side that takes the settebello win the round"),
    ('"winner == dealer_side" --table games', "how often does the dealer (of the first round) "
     "win a game (a run of --games)"),
    ('"rounds" --table games', "how long is a game, in rounds (a mean, not a probability)"),
    ('"scopas_0 + scopas_1 >= 2"', "how often are there two or more scopas in a round"),
    ('"game_winner == 0" --given "round == 0 and settebello_0 == 1"',
     "how often does the side that takes the first round's settebello win the game"),
)


def derived_columns(run: Run, table: str) -> dict[str, Derived]:
    d = ROUND_DERIVED if table == "rounds" else GAME_DERIVED
    out = {k: v for k, v in d.items() if not v.games_only or run.spec.games}
    if table == "rounds":                   # computed together, batch by batch, in `batches`
        out.update({name: Derived(lambda run: deals.keys(run.spec.games), None,
                                  "a deal column (card set)")
                    for name in deals.names(run.spec.rules)})
        if not getattr(run.spec, "keep_taken", False):   # else stored: read, not played again
            out.update({name: Derived(lambda run: deals.keys(run.spec.games), None,
                                      "a taken column (card set), played again from the seed")
                        for name in taken.names(run.spec.rules)})
    return out


def stored_columns(run: Run, table: str) -> list[str]:
    """The dataset's column names, as the run spec declares them (every part
    is checked to hold exactly these when read; no data read here)."""
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
    if table == "games" and not run.spec.games:
        raise ValueError(f"{run.root} is a run of rounds: it has no games table "
                         f"(simulate with --games)")
    if not run.done_batches():
        raise ValueError(f"{run.root} has no finished batch yet")
    return run.columns(table)


def _names(expr: str) -> set[str]:
    """The column names an expression uses; ValueError if it is not valid."""
    return expression.names(expr)


def _columns(run: Run, exprs: list[str], table: str) -> tuple[list[str], list[str]]:
    """The stored columns to read and the derived ones to compute for the
    expressions (checked in full first: nothing is read for a bad one)."""
    stored = stored_columns(run, table)
    derived = derived_columns(run, table)
    names = set().union(*(_names(e) for e in exprs))
    unknown = sorted(names - set(stored) - set(derived))
    if unknown:
        raise ValueError(f"unknown column{'s' * (len(unknown) > 1)} {', '.join(unknown)}; "
                         f"the {table} columns are {', '.join(stored)}; derived: "
                         f"{', '.join(derived)}")
    want = {n for n in names if n in stored}
    for n in names & set(derived):
        want.update(derived[n].needs(run))
    return [c for c in stored if c in want] or [stored[0]], sorted(names & set(derived))


def batches(run: Run, exprs: list[str], table: str = "rounds") -> Iterator[Columns]:
    """Batch by batch, the columns the expressions use (stored and derived),
    and no others: memory holds one batch, whatever the size of the run."""
    read, compute = _columns(run, exprs, table)
    derived = derived_columns(run, table)
    replayed = [n for n in compute if derived[n].compute is None
                and n in taken.names(run.spec.rules)]
    dealt = [n for n in compute if derived[n].compute is None and n not in replayed]
    if dealt or replayed:
        deals.check_run(run.root, run.manifest)
    if replayed:
        taken.check_replayable(run.root, run.stored)
    for b in run.done_batches():
        df = run.batch_arrays(b, table, columns=read)
        if replayed:
            cols = taken.replay(run, b, df)
            for n in replayed:
                df[n] = cols[n]
        if dealt:
            cols = deals.for_run(run, df)
            for n in dealt:
                df[n] = cols[n]
        for n in compute:
            if derived[n].compute is not None:
                df[n] = derived[n].compute(run, df, b)
        yield df


def load(run: Run, exprs: list[str], table: str = "rounds"):
    """All the columns the expressions use, in one pandas DataFrame (see
    `batches`)."""
    import pandas as pd
    return pd.concat(map(pd.DataFrame, batches(run, exprs, table)), ignore_index=True)


def _rows(df: Columns) -> int:
    return len(next(iter(df.values())))


def _evaluate(df: Columns, expr: str) -> np.ndarray:
    """One value per row of `df`: bool, int64, float64 or text."""
    return expression.evaluate(expr, df, _rows(df))


def _in_part(k: int, parts: int, fn, *args):
    """`fn(*args)` on the k-th of `parts` parts read: an error (whose row
    counts are that part's) says which part it is."""
    try:
        return fn(*args)
    except ValueError as e:
        if parts == 1:
            raise
        raise ValueError(f"{e} (in part {k} of {parts}, the first it happens in)") from None


def ask(run: Run, event: str, given: str | None = None, table: str = "rounds") -> dict:
    """P(event | given) with n and a 95% Wilson interval, if `event` is true
    or false per row; else the mean of `event` given the condition, with a
    normal 95% interval."""
    if not event.strip():
        raise ValueError("give an event, e.g. \"winner == 0\"")
    exprs = [event] + ([given] if given else [])
    rows, kind, k, moments = 0, None, 0, Moments()
    parts = len(run.done_batches())
    for part, df in enumerate(batches(run, exprs, table), 1):
        rows += _rows(df)
        if given:
            cond = _in_part(part, parts, _evaluate, df, given)
            if cond.dtype != bool:
                raise ValueError(f"condition {given!r} is not true or false per row "
                                 f"(write a comparison, e.g. \"settebello_0 == 1\")")
            df = {c: v[cond] for c, v in df.items()}
        value = _in_part(part, parts, _evaluate, df, event)
        this = "probability" if value.dtype == bool else "mean" if value.dtype.kind in "if" else None
        if this is None:
            is_set = value.dtype == np.uint64
            raise ValueError(f"event {event!r} is {'a card set' if is_set else 'text'} per row, "
                             f"neither true/false nor a number"
                             + (f" (count it: count({event}))" if is_set else ""))
        kind = kind or this
        k += int(value.sum()) if this == "probability" else 0
        try:
            with np.errstate(over="raise", invalid="raise"):
                moments.add(value.astype(np.float64))
        except FloatingPointError:
            raise ValueError(f"event {event!r} reaches {np.abs(value).max():.3g}: too large to "
                             f"average in floating point, scale it down") from None
    if moments.n == 0:
        raise ValueError(f"no row of the {rows:,} satisfies the condition {given!r}")
    out = {"run": str(run.root), "table": table, "event": event, "given": given,
           "rows": rows}
    if run.partial():                        # an unfinished run: say so beside every answer
        out.update(partial=run.partial(), parts=len(run.done_batches()),
                   parts_planned=run.spec.n_batches)
    if kind == "probability":
        r = wilson(k, moments.n)
        out.update(kind="probability", estimate=r.value, k=r.k, n=r.n, low=r.low, high=r.high)
    else:
        m = moments.result()
        out.update(kind="mean", estimate=m.mean, sd=m.sd, n=m.n, low=m.low, high=m.high)
    return out
