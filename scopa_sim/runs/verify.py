"""Verifying a run by playing it again: `scopa-sim verify RUN [--sample K]`.

Reading a run checks what a file can say of itself: each part's sha256 is the
manifest's, its spec, columns and values are the run's, its rows are its
batch's and add up (points are their categories' sum, games their rounds'). A
forger who changes a part consistently and writes the hashes again passes all
of that. But a run of built-in strategies is a pure function of its spec and
seed (batch b is `runner.batch_columns(spec, b)`), so `verify` plays batches
again and compares every column, row by row, with the parts: all of them, or
`sample` of them chosen with a seed drawn here, which nobody can know in
advance. A run of user strategies is not played again: its strategies are
code, and a run is data.
"""
from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from .parts import games_table, part_name, rounds_table
from .runner import batch_columns, run as loop
from .store import Run
from .taken import builtin_spec, user_strategies


class NotVerified(ValueError):
    """A part that is not what its batch plays (one line: where it first differs)."""


def verify(root, sample: int | None = None, progress: Callable[[int], None] | None = None,
           draw: int | None = None, workers: int | None = None) -> dict:
    """Play the finished batches of the run in `root` again (all, or `sample`
    of them drawn with the seed `draw`, fresh if None) and compare each table's
    part with the replay. NotVerified names the first part, row and column that
    differ; otherwise {"run", "batches" (finished), "planned", "partial" (None, or
    what is missing), "checked": [b, ...], "draw" (None: every batch), "identical"}.
    Batches play on `workers` threads (all cores), compared in batch order;
    `progress(units)` after each batch."""
    run = Run.open(root)
    spec = builtin_spec(run.root, _replayable(run), "it cannot be verified")
    done = run.done_batches()
    if sample is not None and sample < 1:
        raise ValueError(f"--sample is a number of batches, at least 1, not {sample}")
    draw = secrets.randbits(63) if draw is None else draw
    picked = (done if sample is None or sample >= len(done)
              else sorted(random.Random(draw).sample(done, sample)))
    def check(b: int, cols: dict) -> None:
        replayed = {"rounds": rounds_table(spec, cols)}
        if spec.games:
            replayed["games"] = games_table(spec, cols)
        for table in run.tables:
            _compare(run, b, table, run.stored_part(b, table), replayed[table])
        if progress:
            progress(spec.batch_range(b)[1])

    loop(batch_columns, (spec,), picked, check, workers)
    return {"run": str(run.root), "batches": len(done), "planned": spec.n_batches,
            "partial": run.partial(), "checked": picked,
            "draw": draw if len(picked) < len(done) else None, "identical": True}


def _replayable(run: Run):
    """The run's stored spec, if a replay can verify it: built-in strategies only."""
    stored = run.stored
    users = user_strategies(stored)
    if users or stored.isolate:
        what = f"the user strategy {users[0]}" if users else "entrants in their own processes"
        raise ValueError(f"{run.root} plays {what}: a run's code is never run when it is read, "
                         f"so verify cannot play it again (reading it still checks what a "
                         f"file can say of itself: docs/CLI.md, 'What reading a run checks')")
    return stored


def _compare(run: Run, b: int, table: str, stored: pa.Table, replayed: pa.Table) -> None:
    """Refuse, naming the first row and column, a part that is not its replay."""
    path = Path(run.root) / table / part_name(b)
    if stored.num_rows != replayed.num_rows:
        raise NotVerified(f"not verified: {path} holds {stored.num_rows:,} rows, its batch "
                          f"plays {replayed.num_rows:,}")
    for name in replayed.column_names:
        ours, theirs = _plain(replayed.column(name)), _plain(stored.column(name))
        same = pc.fill_null(pc.equal(ours, theirs), False)
        if not pc.all(same).as_py():
            row = pc.index(same, False).as_py()
            unit = "game" if run.stored.games else "round"
            at = stored.column(unit)[row].as_py()
            where = (f"round {stored.column('round')[row].as_py() + 1} of game {at + 1}"
                     if table == "rounds" and unit == "game" else f"{unit} {at + 1}")
            raise NotVerified(f"not verified: {path} differs from its replay at row {row + 1} "
                              f"({where}), column {name}: {theirs[row].as_py()!r} stored, "
                              f"{ours[row].as_py()!r} played")


def _plain(column: pa.ChunkedArray) -> pa.Array:
    """A column as one array of plain values (labels decoded), to compare."""
    column = column.combine_chunks()
    return column.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else column
