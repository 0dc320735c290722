"""Simulating into a stored run: the runner's Parquet consumer (each batch
saved as its part files, in batch order, its tally folded into the run's
summary) and `resume`, which finishes an interrupted run from Python as
`scopa-sim simulate --resume` does from the command line.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable

from .summary import Tally
from .executors import HERE, executor
from .plan import RunSpec
from .runner import batch_columns, run
from .sources import open_to_resume
from .parts import encode_batch


def simulate_part(spec: RunSpec, meta: bytes | None, b: int, entrants=None):
    """Batch b as part files' bytes (`meta` in their metadata; None: the
    spec's) and its tally (a batch task: runs on the thread pool or on a
    Dask worker; with `entrants`, here, see `store_isolated`)."""
    cols = batch_columns(spec, b, entrants)
    tally = Tally(spec.rules)
    tally.add(cols)
    return encode_batch(spec, cols, meta), tally


def store_batches(stored, workers: int | None = None, scheduler=None,
                  progress: Callable[[int, float | None], None] | None = None) -> dict:
    """Run the missing batches of the run `stored` (a `store.Run` open to
    write, which holds its lock), saving each batch's part files and folding
    its tally in batch order; returns the run's summary (the tally of every
    round on disk, with unit, seconds, rounds_run, rounds_per_second and
    already_complete). `progress(units, rate)`: first the units already on
    disk (rate None), then after each batch its units and the rounds a
    second so far. A finished run is only summed up. Ctrl-C (or a lost
    cluster) leaves the saved parts, to be finished by `resume`, and
    removes the half-written ones."""
    spec = stored.spec
    stored.clean_temporaries()
    tally = Tally(spec.rules)
    was_finished = stored.manifest.get("finished") and stored.n_missing == 0
    complete = stored.n_missing == 0
    done_units = 0
    for b, df in stored.batches():                     # resumed: count what is on disk
        tally.add(df)
        done_units += spec.batch_range(b)[1]
    if progress:
        progress(done_units, None)
    rounds_run = 0
    start = time.perf_counter()

    def save(b, result) -> None:
        nonlocal rounds_run
        part, counts = result
        stored.save(b, part)
        tally.merge(counts)
        rounds_run += counts.rounds
        if progress:
            progress(spec.batch_range(b)[1], rounds_run / (time.perf_counter() - start))
    try:
        with executor(workers, scheduler) as ex:
            run(simulate_part, (spec, stored.meta), stored.missing_batches(), save, scheduler=ex)
            elapsed = time.perf_counter() - start
            used = ex.workers
    except BaseException:
        stored.clean_temporaries()
        raise
    if not was_finished:
        stored.finish(elapsed, used)
    summary = tally.result()
    summary.update(unit="games" if spec.games else "rounds", seconds=elapsed,
                   rounds_run=rounds_run, already_complete=complete,
                   rounds_per_second=rounds_run / elapsed if elapsed > 0 else float("nan"))
    return summary


def store_isolated(root, spec: RunSpec, overwrite: bool, entrants,
                   progress: Callable[[int, float | None], None] | None = None):
    """An isolated run (`spec.isolate`, user strategies in the processes of
    `entrants`): every batch played here, one at a time, and held in
    memory; only then is the run written to `root` (`Run.create`), its
    manifest with the seed and the forfeits: no file holds the seed while
    the entrants play. The run (closed) and its summary, as `store_batches`'."""
    from .store import Run
    tally, parts, rounds_run = Tally(spec.rules), [], 0
    start = time.perf_counter()

    def keep(b, result) -> None:
        nonlocal rounds_run
        parts.append(result[0])
        tally.merge(result[1])
        rounds_run += result[1].rounds
        if progress:
            progress(spec.batch_range(b)[1], rounds_run / (time.perf_counter() - start))
    task = functools.partial(simulate_part, entrants=entrants)
    run(task, (spec, None), range(spec.n_batches), keep, workers=1, scheduler=HERE)
    elapsed = time.perf_counter() - start
    with Run.create(root, spec, overwrite=overwrite) as stored:
        for b, part in enumerate(parts):
            stored.save(b, part)
        stored.manifest["forfeits"] = entrants.report()
        stored.manifest["confinement"] = entrants.confinement
        stored.finish(elapsed, 1)
    summary = tally.result()
    summary.update(unit="games" if spec.games else "rounds", seconds=elapsed,
                   rounds_run=rounds_run, already_complete=False, forfeits=entrants.report(),
                   confinement=entrants.confinement,
                   rounds_per_second=rounds_run / elapsed if elapsed > 0 else float("nan"))
    return stored, summary


def resume(path, strategy_files=(), workers: int | None = None, scheduler=None,
           progress: Callable[[int, float | None], None] | None = None) -> dict:
    """Finish the interrupted run in folder `path`, as `scopa-sim simulate
    --resume PATH` does, and return its summary (`store_batches`). The run's
    own settings are kept; its user strategies are loaded from
    `strategy_files` ({TEXT: PATH} or "TEXT=PATH" strings, TEXT as the run
    records it), each checked against the run's sha256 before any of it
    runs (`sources.open_to_resume`). A run already complete is only summed up.

        >>> scopa_sim.resume("runs/mine", strategy_files={"mine.py:f": "mine.py"})
    """
    with open_to_resume(path, strategy_files) as stored:
        return store_batches(stored, workers, scheduler, progress)
