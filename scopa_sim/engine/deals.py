"""Deal columns: what every seat of every round of a run was dealt, computed
from the run's seed on demand (a round's deck is a function of seed, unit and
round alone, see `kernels.rng`), never stored with the run.

    hand_S    seat S's first hand                    (card sets: uint64, bit
    dealt_S   every card seat S was dealt in the round  `suit*10 + rank - 1`)
    table     the first table

A row is named by its unit and round: `round` in a run of rounds, `game` and
`round` (within the game) in a run of games; the dealer follows from them
(the unit's first dealer is unit % players, and the deal passes each round).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from . import decks
from .rules import Rules, kernel_rules

NUMPY_UNITS = 200_000     # runs of up to this many units are dealt again in numpy (`for_run`)
STREAMS_FORMAT = 2        # runs of an older store format were dealt from other streams
FIELDS = (("hand", "the seat's first hand"),
          ("dealt", "every card the seat was dealt in the round"))
TABLE = ("table", "the first table (cards dealt to the table before play)")


def names(rules: Rules) -> list[str]:
    """The deal column names of a run under these rules."""
    return [f"{f}_{s}" for f, _ in FIELDS for s in range(rules.players)] + [TABLE[0]]


def deck(seed: int, unit: int, number: int = 0) -> list[int]:
    """The deck order (40 cards, dealing order) of round `number` of unit
    `unit` (a round of a rounds run, or a game) of a run seeded `seed`."""
    from ..kernels.round import keyed_deal_round     # Numba: loaded when the kernel deals
    order = np.zeros(40, np.int64)
    keyed_deal_round(np.uint64(int(seed) % 2**64), np.uint64(int(seed) >> 64), np.int64(unit),
                     np.int64(number), order, np.zeros(1, np.uint64))
    return order.tolist()


def deal_columns(rules: Rules, seed: int, units, numbers=None, threads: int | None = None,
                 kernel: bool = True) -> dict[str, np.ndarray]:
    """The deal columns of rows (`units`: each row's round index, or game
    index with `numbers` its round within the game), dealt by the kernel on
    `threads` threads (default: one per core, for many rows; the kernel runs
    without the GIL), or without `kernel` in numpy (`decks`: the same sets,
    a few times slower a row, with no Numba to load)."""
    units = np.ascontiguousarray(units, np.int64)
    numbers = (np.zeros_like(units) if numbers is None
               else np.ascontiguousarray(numbers, np.int64))
    n = rules.players
    dealers = (units + numbers) % n
    if kernel and int(seed) < 2**64:          # a wider seed (an isolated run's): numpy's
        hands, dealt, tables = _kernel_sets(rules, seed, units, numbers, dealers, threads)
    else:
        hands, dealt, tables = decks.deal_sets(seed, units, numbers, dealers, rules)
    out = {f"hand_{s}": hands[:, s] for s in range(n)}
    out.update({f"dealt_{s}": dealt[:, s] for s in range(n)})
    out[TABLE[0]] = tables
    return out


def _kernel_sets(rules: Rules, seed: int, units, numbers, dealers, threads: int | None):
    """(hands, dealt, tables) of the rows, dealt by `kernels.deals.deal_sets`."""
    from ..kernels.deals import deal_sets       # Numba: loaded when the kernel deals
    n, rows = rules.players, len(units)
    hands, dealt = np.zeros((rows, n), np.uint64), np.zeros((rows, n), np.uint64)
    tables = np.zeros(rows, np.uint64)
    seed, rule_vector = np.uint64(seed), kernel_rules(rules)

    def part(lo, hi):
        deal_sets(seed, units[lo:hi], numbers[lo:hi], dealers[lo:hi], rule_vector,
                  hands[lo:hi], dealt[lo:hi], tables[lo:hi], np.zeros(40, np.int64),
                  np.zeros(1, np.uint64))
    threads = threads or (min(os.cpu_count() or 1, 8) if rows >= 100_000 else 1)
    cuts = np.linspace(0, rows, threads + 1).astype(int)
    if threads == 1:
        part(0, rows)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(part, cuts[:-1], cuts[1:]))
    return hands, dealt, tables


def keys(games: bool) -> list[str]:
    """The columns that name a row's deal: `game` and `round` in a run of
    games, `round` in a run of rounds (what `for_rows` reads)."""
    return ["game", "round"] if games else ["round"]


def for_rows(rules: Rules, seed: int, games: bool, rows,
             kernel: bool = True) -> dict[str, np.ndarray]:
    """The deal columns of a table's rows (a DataFrame or a dict of arrays
    with `round`, and `game` in a run of games; `kernel`: see `deal_columns`)."""
    if games:
        return deal_columns(rules, seed, np.asarray(rows["game"]), np.asarray(rows["round"]),
                            kernel=kernel)
    return deal_columns(rules, seed, np.asarray(rows["round"]), kernel=kernel)


def for_run(run, rows) -> dict[str, np.ndarray]:
    """The deal columns of rows of a stored run (`store.Run`; `for_rows`):
    dealt in numpy for a run of up to NUMPY_UNITS rounds or games, where
    loading Numba would cost more than the kernel saves, else by the kernel."""
    spec = run.spec
    return for_rows(spec.rules, spec.seed, spec.games, rows, kernel=spec.units > NUMPY_UNITS)


def dealt_again(manifest: dict) -> bool:
    """Whether a run's decks can be dealt again from its seed: it was made
    once dealing had a stream of its own (store format STREAMS_FORMAT on)."""
    fmt = manifest.get("format", 1)
    return isinstance(fmt, int) and not isinstance(fmt, bool) and fmt >= STREAMS_FORMAT


def check_run(root, manifest: dict) -> None:
    """Refuse a run whose decks cannot be dealt again (`dealt_again`)."""
    if not dealt_again(manifest):
        fmt = manifest.get("format", 1)
        made = manifest.get("versions", {}).get("scopa-sim", "an older version")
        raise ValueError(f"{root} was made by scopa-sim {made} (run format {fmt}), before "
                         f"every deck was a function of the seed: its deal columns cannot "
                         f"be computed; simulate it again for them")


def write(run, out, progress=None) -> list:
    """Write the deal columns of every finished batch of `run` (a
    `store.Run`) as Parquet files `out/part-NNNNNN.parquet` (the row's
    `round`, and `game` in games, then the card sets as uint64), for outside
    tools; `out` must be a new or empty folder outside the run."""
    import pyarrow as pa            # lazy: engine.game loads this module; a Game needs no pyarrow
    import pyarrow.parquet as pq
    check_run(run.root, run.manifest)
    out, root = Path(out).absolute(), Path(run.root).resolve()
    real = out.resolve()
    if root in real.parents:                  # the run itself, or one holding it, is not empty
        raise ValueError(f"{out} is inside the run {run.root}: write the deal columns to a "
                         f"folder of their own")
    if out.is_symlink() or (out.exists() and (not out.is_dir() or any(out.iterdir()))):
        raise ValueError(f"{out} exists and is not an empty folder: name a new one")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for b, df in run.batches(columns=keys(run.spec.games)):
        cols = {**df, **for_run(run, df)}
        path = out / f"part-{b:06d}.parquet"
        temp = path.with_suffix(".tmp")
        try:
            pq.write_table(pa.table(cols), temp)
            os.replace(temp, path)
        except OSError as e:                      # named as given, not as the temporary file
            raise OSError(e.errno, e.strerror, str(path)) from None
        finally:                                  # Ctrl-C mid-file: no half-written file stays
            temp.unlink(missing_ok=True)
        written.append(path)
        if progress:
            progress(b)
    return written
