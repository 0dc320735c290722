"""Running simulations: one batch in the kernel, and the one batch loop
(`run`): batches streamed from an executor (`executors`) to a consumer,
which folds them (a DataFrame here, Parquet parts and their tally in
`resume`, duplicate-deal totals in `study.matches`, rollouts in
`study.advise`) and says when to stop. The run spec is `plan.RunSpec`.

Batch `b` of a run covers units (rounds or games) `b*size .. (b+1)*size - 1`
and is a pure function of the run spec and `b`, so batches can run on any
worker, in any order, and give the same bytes.
"""
from __future__ import annotations

import functools
import mmap
from collections.abc import Callable

import numpy as np

from ..engine import schema
from ..engine.checks import seed_or_fresh, whole
from ..engine.deals import for_rows
from ..engine.rules import Rules
from ..engine.seats import Seats, row_arrays
from ..kernels import layout as L
from . import taken
from .executors import HERE, Threads, executor, stream
from .plan import DEFAULT_BATCH, RunSpec


def run(task: Callable, args: tuple, batches, consume: Callable[[int, object], object],
        workers: int | None = None, scheduler=None, setup: Callable | None = None) -> bool:
    """The batch loop every simulation shares: `task(*args, b)` for each b of
    `batches` (planned lazily: any iterable) on `workers` threads or a Dask
    cluster (`scheduler`: as for `simulate`, or an executor already open),
    each result handed to `consume(b, result)` in batch order. A true return
    of `consume` stops the run: what is in flight is cancelled, and `run`
    returns True (False when every batch was consumed). Ctrl-C (or SIGTERM,
    `executors`) cancels the pending batches and raises KeyboardInterrupt
    out of `run`; what was consumed stays consumed."""
    with executor(workers, scheduler, setup=setup) as ex:
        for b, result in stream(task, args, batches, ex):
            if consume(b, result):
                return True
    return False


def run_batch(spec: RunSpec, b: int, entrants=None) -> tuple[np.ndarray, np.ndarray]:
    """Batch `b` of a run: (sides int16[rows, n_sides, N_SIDE], rounds int64[rows, N_ROUND]).
    A strategy that fails raises `play.StrategyError`, naming where. With
    `entrants` (`isolate.Entrants`), user strategies play in their processes."""
    first, count = spec.batch_range(b)
    seats = Seats(spec.rules, spec.strategies, entrants)
    return seats.play_rows(spec.games, spec.seed, first, count)[:2]


def warm_kernels() -> None:
    """Load (or compile) the kernels of the default strategies in this
    process: a Dask worker's `setup`, so that no batch pays for it."""
    for kind in ("rounds", "games"):
        run_batch(RunSpec.make(**{kind: 1}, strategies=("random", "greedy")), 0)


def columns(spec: RunSpec, sides: np.ndarray, rounds: np.ndarray) -> dict[str, np.ndarray]:
    """A batch's arrays as named contiguous columns, as `schema` declares them:
    the round fields, then each side's fields (`points_0`, ...): views of
    arrays made by `seats.row_arrays` (a field a column), copies of others
    and where the schema's type is narrower than the kernel's."""
    round_fields = rounds.T
    return {**{f.name: _column(round_fields[L.ROUND_FIELDS.index(f.name)], f.dtype)
               for f in schema.present(schema.ROUND, spec.rules, spec.games)},
            **side_columns(spec, sides)}


def side_columns(spec: RunSpec, sides: np.ndarray) -> dict[str, np.ndarray]:
    """Each side's fields (`points_0`, ...) of `sides` as columns (`columns`)."""
    by_field = sides.transpose(1, 2, 0)                           # [side, field, row]
    fields = schema.present(schema.SIDE, spec.rules, spec.games)
    return {f"{f.name}_{t}": _column(by_field[t, L.SIDE_FIELDS.index(f.name)], f.dtype)
            for t in range(spec.rules.n_sides) for f in fields}


def _column(values: np.ndarray, dtype) -> np.ndarray:
    """`values` as a contiguous column of `dtype`: itself if it is one."""
    return np.ascontiguousarray(values).astype(dtype, copy=False)


def batch_columns(spec: RunSpec, b: int, entrants=None) -> dict[str, np.ndarray]:
    """Batch `b` as named columns (a batch task: runs on any executor); with
    `keep_taken`, each side's captured cards last (`taken`); with
    `entrants`, user strategies in their processes (`isolate`)."""
    if not spec.keep_taken:
        return columns(spec, *run_batch(spec, b, entrants))
    first, count = spec.batch_range(b)
    sides, rounds, sets = Seats(spec.rules, spec.strategies, entrants).play_rows(
        spec.games, spec.seed, first, count, piles=True)
    cols = columns(spec, sides, rounds)
    cols.update({name: np.ascontiguousarray(sets[:, t])
                 for t, name in enumerate(taken.names(spec.rules))})
    return cols


def simulate(rounds: int | None = None, games: int | None = None,
             strategies=("random", "greedy"), rules: str | Rules = "scopa",
             seed: int | None = None, workers: int = 1, batch_size: int = DEFAULT_BATCH,
             progress: Callable[[int], None] | None = None, scheduler=None,
             deals: bool = False, taken: bool = False, isolate: bool = False,
             move_timeout: float | None = None):
    """Simulate `rounds` rounds (or `games` games) and return one row per round
    (with games, `game` is the game index and `round` the round within it);
    with `deals`, also each round's deal columns (`scopa_sim.engine.deals`: every
    seat's first hand and cards dealt, and the first table, as card sets);
    with `taken`, the cards each side captured (`taken_0`, ..., `runs.taken`).

    Strategies: one per side (or per seat), e.g. ("random", "greedy:scopa=2000").
    Batches run on `workers` threads, or on a Dask cluster (`scheduler`: an
    address tcp://HOST:PORT, "local:N" for N local worker processes, or a
    `distributed.Client`). The same seed gives the same rows for any
    `workers`, `batch_size` and scheduler; without one a fresh seed is drawn.
    The seed is in `df.attrs["seed"]`.

    With `isolate`, user strategies (PATH.py:NAME or module:NAME) play in
    processes of their own (`engine.isolate`; each move within
    `move_timeout` seconds, default 1), the batches one at a time here, from
    a secret 128-bit seed unless one is given; `df.attrs["forfeits"]` counts
    the rounds each entrant forfeited.
    """
    import pandas as pd              # for the DataFrame: `simulate` the command needs none
    if isolate:
        return _isolated(pd, rounds, games, strategies, rules, seed, batch_size, progress,
                         scheduler, deals, taken, move_timeout)
    spec = RunSpec.make(rounds, games, strategies, rules, seed_or_fresh(seed), batch_size,
                        keep_taken=bool(taken))
    workers = whole(workers, "workers", 1, 1024)
    with executor(workers, scheduler, setup=warm_kernels) as ex:
        if isinstance(ex, Threads) and not spec.games and not spec.keep_taken:
            columns = _rounds_in_place(spec, ex, progress)
        else:
            columns = _batches_joined(spec, ex, progress)
    if deals:
        columns.update(for_rows(spec.rules, spec.seed, spec.games, columns))
    df = pd.DataFrame(columns, copy=False)
    df.attrs["seed"] = spec.seed
    return df


def _isolated(pd, rounds, games, strategies, rules, seed, batch_size, progress, scheduler,
              deals, taken, move_timeout):
    """`simulate` with `isolate`."""
    from ..engine.isolate import MOVE_TIMEOUT, Entrants
    if scheduler is not None:
        raise ValueError("isolation runs on this machine: drop the scheduler")
    rules = Rules.resolve(rules)
    with Entrants(rules, move_timeout or MOVE_TIMEOUT) as pool:
        spec = isolated_spec(rounds, games, strategies, rules, seed, batch_size, bool(taken),
                             pool)
        with executor(1, HERE) as ex:
            columns = _batches_joined(spec, ex, progress, pool)
    if deals:
        columns.update(for_rows(spec.rules, spec.seed, spec.games, columns))
    df = pd.DataFrame(columns, copy=False)
    df.attrs.update(seed=spec.seed, forfeits=pool.report(), confinement=pool.confinement)
    return df


def isolated_spec(rounds, games, strategies, rules: Rules, seed, batch_size, keep_taken: bool,
                  entrants) -> RunSpec:
    """The RunSpec of an isolated run: its user strategies described by
    their own processes (`entrants.load`), none loaded here; a fresh seed
    of 128 bits if none is given."""
    from ..engine.strategies import parse_strategy, split_strategies
    texts = split_strategies(strategies) if isinstance(strategies, str) else list(strategies)
    parsed = tuple(parse_strategy(t, loader=entrants.load) for t in texts)
    return RunSpec.make(rounds, games, parsed, rules, seed_or_fresh(seed, wide=True), batch_size,
                        keep_taken=keep_taken, isolate=True)


def fill_batch(spec: RunSpec, sides: np.ndarray, fields: dict, b: int) -> int:
    """Batch `b` of a rounds run played into its rows of the run's `sides`
    (a row per round of the run), its round fields copied into their rows
    of the run's columns `fields` (by name); its number of rows."""
    first, count = spec.batch_range(b)
    end = first + count
    _, rounds = row_arrays(0, count + 1)       # the batch's alone: its memory is used again
    rows = Seats(spec.rules, spec.strategies).play(False, spec.seed, first, count,
                                                   sides[first:end + 1], rounds)
    for name, column in fields.items():
        column[first:end] = rounds[:count, L.ROUND_FIELDS.index(name)]
    return rows


def _rounds_in_place(spec: RunSpec, ex, progress) -> dict[str, np.ndarray]:
    """A rounds run on threads: every batch played straight into the run's
    side results (laid out as `row_arrays` lays them: their columns are
    views) and round columns (the schema's types, narrower than the
    kernel's): no copy, and no more new memory than the columns take."""
    shape = (spec.rules.n_sides, L.N_SIDE, spec.units + 1)    # a row to spare: a batch of
    sides = _new_memory(shape, np.int16).transpose(2, 0, 1)    # one round gets two
    fields = {f.name: _new_memory((spec.units,), f.dtype)
              for f in schema.present(schema.ROUND, spec.rules, spec.games)}

    def done(_, rows):
        if progress:
            progress(rows)
    run(fill_batch, (spec, sides, fields), range(spec.n_batches), done, scheduler=ex)
    return {**fields, **side_columns(spec, sides[:spec.units])}


def _new_memory(shape: tuple, dtype) -> np.ndarray:
    """A zeroed array of new memory, for a run's rows to fill once: pages
    of the ordinary size where the system lets us say so. The system gives a
    large array huge pages (NumPy asks it to); on a virtual machine the
    first touch of a huge page the host has taken back costs hundreds of the
    host's page faults, and made simulate() 9 to 12% slower than its kernel
    (0.2 to 0.3 s of system time for two million rounds, against 0.05)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    flags = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0)
    if not flags or not hasattr(mmap, "MADV_NOHUGEPAGE"):
        return np.zeros(shape, dtype)
    memory = mmap.mmap(-1, max(count * dtype.itemsize, 1), flags=flags)
    memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype, count).reshape(shape)


def _batches_joined(spec: RunSpec, ex, progress, entrants=None) -> dict[str, np.ndarray]:
    """Any run: each batch's columns made where it runs, joined in order
    (one copy of each column)."""
    parts = []

    def keep(_, cols):
        parts.append(cols)
        if progress:
            progress(len(cols["round"]))
    task = functools.partial(batch_columns, entrants=entrants)
    run(task, (spec,), range(spec.n_batches), keep, scheduler=ex)
    rows = sum(len(p["round"]) for p in parts)
    return {k: np.concatenate([p[k] for p in parts], out=_new_memory((rows,), parts[0][k].dtype))
            for k in parts[0]}
