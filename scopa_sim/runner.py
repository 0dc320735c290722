"""Running simulations: the run spec, one batch in the kernel, and the one
batch loop (`run`): batches streamed from an executor (`executors`) to a
consumer, which folds them (a DataFrame here, Parquet parts and their tally
in `stored_run`, duplicate-deal totals in `matches`, rollouts in `advise`)
and says when to stop.

Batch `b` of a run covers units (rounds or games) `b*size .. (b+1)*size - 1`
and is a pure function of the run spec and `b`, so batches can run on any
worker, in any order, and give the same bytes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import batches as sizes, schema
from .cards import names
from .checks import MAX_SEED, SEED_SPAN, seed_or_fresh, whole
from .game import Game, Round
from .executors import executor, stream
from .kernels import layout as L
from .rules import Rules
from .seats import Seats
from .strategies import Strategy, seats_of

DEFAULT_BATCH = sizes.ROUNDS    # rounds per batch (batches.py sets every batch size)
MAX_UNITS = 10**13              # rounds or games in one run: a cluster-year, not a typo
MAX_BATCH = sizes.MAX           # rounds (or games) per batch: a batch is held in memory


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


class Planned:
    """What a run spec shares with a stored run's (`store.StoredSpec`, whose
    strategies are labels): the rules, seed, units and batches, checked once
    (`_check_plan`, on construction)."""
    rules: Rules
    seed: int
    units: int
    games: bool
    batch_size: int

    def _check_plan(self) -> None:
        if not isinstance(self.games, bool) or not isinstance(self.rules, Rules):
            raise ValueError("a run spec needs Rules, and games true or false")
        unit = "games" if self.games else "rounds"
        for name, title, low, high, span in (("units", f"the number of {unit}", 1, MAX_UNITS, None),
                                             ("seed", "seed", 0, MAX_SEED, SEED_SPAN),
                                             ("batch_size", "batch size", 1, MAX_BATCH, None)):
            object.__setattr__(self, name, whole(getattr(self, name), title, low, high, span))

    @property
    def n_batches(self) -> int:
        return -(-self.units // self.batch_size)

    def batch_range(self, b: int) -> tuple[int, int]:
        first = b * self.batch_size
        return first, min(self.units, first + self.batch_size) - first


@dataclass(frozen=True)
class RunSpec(Planned):
    """What to simulate: validated on construction, packed for the kernel."""
    rules: Rules
    strategies: tuple[Strategy, ...]
    seed: int
    units: int
    games: bool = False
    batch_size: int = DEFAULT_BATCH
    keep_taken: bool = False        # store each side's captured cards too (`taken`)

    def __post_init__(self):
        self._check_plan()
        if not isinstance(self.keep_taken, bool):
            raise ValueError("keep_taken must be true or false")

    @classmethod
    def make(cls, rounds=None, games=None, strategies=("random", "greedy"), rules="scopa",
             seed=0, batch_size=DEFAULT_BATCH, keep_taken=False) -> RunSpec:
        """`batch_size` None: `batches.default` for the kind of unit."""
        if (rounds is None) == (games is None):
            raise ValueError("give either rounds or games")
        rules = Rules.resolve(rules)
        if batch_size is None:
            batch_size = sizes.default(games is not None)
        return cls(rules, tuple(seats_of(strategies, rules)), seed, rounds if games is None else games,
                   games is not None, batch_size, keep_taken)



def run_batch(spec: RunSpec, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Batch `b` of a run: (sides int16[rows, n_sides, N_SIDE], rounds int64[rows, N_ROUND]).
    A strategy that fails raises `play.StrategyError`, naming where."""
    first, count = spec.batch_range(b)
    seats = Seats(spec.rules, spec.strategies)
    capacity = 8 * count + 64 if spec.games else count
    while True:
        sides = np.zeros((capacity, spec.rules.n_sides, L.N_SIDE), np.int16)
        rounds = np.zeros((capacity, L.N_ROUND), np.int64)
        rows = seats.play(spec.games, spec.seed, first, count, sides, rounds)
        if rows >= 0:
            return sides[:rows], rounds[:rows]
        capacity *= 4


def warm_kernels() -> None:
    """Load (or compile) the kernels of the default strategies in this
    process: a Dask worker's `setup`, so that no batch pays for it."""
    for kind in ("rounds", "games"):
        run_batch(RunSpec.make(**{kind: 1}, strategies=("random", "greedy")), 0)


def columns(spec: RunSpec, sides: np.ndarray, rounds: np.ndarray) -> dict[str, np.ndarray]:
    """A batch's arrays as named contiguous columns, as `schema` declares them:
    the round fields, then each side's fields (`points_0`, ...). The kernel
    writes rows; one transpose makes the columns."""
    by_field = np.ascontiguousarray(sides.transpose(1, 2, 0))     # [side, field, row]
    round_fields = np.ascontiguousarray(rounds.T)
    cols = {f.name: round_fields[L.ROUND_FIELDS.index(f.name)].astype(f.dtype, copy=False)
            for f in schema.present(schema.ROUND, spec.rules, spec.games)}
    fields = schema.present(schema.SIDE, spec.rules, spec.games)
    for t in range(spec.rules.n_sides):
        for f in fields:
            cols[f"{f.name}_{t}"] = by_field[t, L.SIDE_FIELDS.index(f.name)].astype(f.dtype,
                                                                                  copy=False)
    return cols


def batch_columns(spec: RunSpec, b: int) -> dict[str, np.ndarray]:
    """Batch `b` as named columns (a batch task: runs on any executor)."""
    if getattr(spec, "keep_taken", False):
        from .taken import batch_columns as with_taken
        return with_taken(spec, b)
    return columns(spec, *run_batch(spec, b))


def simulate(rounds: int | None = None, games: int | None = None,
             strategies=("random", "greedy"), rules: str | Rules = "scopa",
             seed: int | None = None, workers: int = 1, batch_size: int = DEFAULT_BATCH,
             progress: Callable[[int], None] | None = None, scheduler=None,
             deals: bool = False, taken: bool = False) -> pd.DataFrame:
    """Simulate `rounds` rounds (or `games` games) and return one row per round
    (with games, `game` is the game index and `round` the round within it);
    with `deals`, also each round's deal columns (`scopa_sim.deals`: every
    seat's first hand and cards dealt, and the first table, as card sets);
    with `taken`, the cards each side captured (`taken_0`, ..., `scopa_sim.taken`).

    Strategies: one per side (or per seat), e.g. ("random", "greedy:scopa=2000").
    Batches run on `workers` threads, or on a Dask cluster (`scheduler`: an
    address tcp://HOST:PORT, "local:N" for N local worker processes, or a
    `distributed.Client`). The same seed gives the same rows for any
    `workers`, `batch_size` and scheduler; without one a fresh seed is drawn.
    The seed is in `df.attrs["seed"]`.
    """
    spec = RunSpec.make(rounds, games, strategies, rules, seed_or_fresh(seed), batch_size,
                        keep_taken=bool(taken))
    workers = whole(workers, "workers", 1, 1024)
    parts = []

    def keep(_, cols):
        parts.append(cols)
        if progress:
            progress(len(cols["round"]))
    run(batch_columns, (spec,), range(spec.n_batches), keep, workers, scheduler, warm_kernels)
    columns = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if deals:
        from .deals import for_rows
        columns.update(for_rows(spec.rules, spec.seed, spec.games, columns))
    df = pd.DataFrame(columns, copy=False)              # one copy of each column, no more
    df.attrs["seed"] = spec.seed
    return df


def trace_game(seed: int, index: int, strategies=("random", "greedy"),
               rules: str | Rules = "scopa") -> Game:
    """Game `index` of a games run with this seed, replayed move by move
    through the checked `Game` (so an illegal kernel move raises), dealt as
    `Game(rules, seed=seed, index=index)` deals it."""
    whole(index, "game index", 0, MAX_UNITS - 1)
    spec = RunSpec.make(games=index + 1, strategies=strategies, rules=rules, seed=seed)
    seats = Seats(spec.rules, spec.strategies)
    rows, record = 64, []
    while True:
        sides = np.zeros((rows, spec.rules.n_sides, L.N_SIDE), np.int16)
        rounds = np.zeros((rows, L.N_ROUND), np.int64)
        record.clear()
        if seats.play_in_python(True, seed, index, 1, sides, rounds, seats.scratch(), record) >= 0:
            break
        rows *= 4                                           # a long game: more rows
    game = Game(spec.rules, seed=seed, index=index)
    for deck, log in record:
        if game.round.deck_order != deck.tolist():
            raise AssertionError(f"round {len(game.rounds) - 1} of the kernel's game was "
                                 f"dealt otherwise than Game deals it")
        _replay(game, log)
    return game


def _replay(game, log) -> None:
    """Play a kernel log (seat, card, capture set per play) into a checked
    Round or Game."""
    for seat, card, take in log:
        turn = (game.round if isinstance(game, Game) else game).turn
        if seat != turn:
            raise AssertionError(f"kernel played seat {seat} out of turn (expected {turn})")
        game.play(int(card), [c for c in range(40) if int(take) >> c & 1])


def deck_of(seed: int, index: int, number: int = 0) -> str:
    """The deck of round `index` of a rounds run with this seed, as the run
    dealt it (`deals.deck`): the 40 cards in dealing order (the table's
    first), written out, for `Round(deck=...)`. Round i is dealt by seat i % players, and its deck
    is the same whatever the strategies and rules (docs/ENGINE.md). With
    `number`: round `number` (from 0) of game `index` of a run of games.

        >>> rnd = Round(deck=deck_of(seed=1, index=3), dealer=3 % 2)
    """
    seed = whole(seed, "seed", 0, MAX_SEED, SEED_SPAN)
    index = whole(index, "round index", 0, MAX_UNITS - 1)
    number = whole(number, "round number", 0, MAX_UNITS - 1)
    from .deals import deck
    return names(deck(seed, index, number))


def trace_round(seed: int, index: int, strategies=("random", "greedy"),
                rules: str | Rules = "scopa") -> Round:
    """Round `index` of a rounds run with this seed, replayed move by move
    through the checked `Round` (so an illegal kernel move raises)."""
    whole(index, "round index", 0, MAX_UNITS - 1)
    spec = RunSpec.make(rounds=index + 1, strategies=strategies, rules=rules, seed=seed)
    seats = Seats(spec.rules, spec.strategies)
    sides = np.zeros((1, spec.rules.n_sides, L.N_SIDE), np.int16)
    rounds = np.zeros((1, L.N_ROUND), np.int64)
    scratch = seats.scratch()
    seats.play(False, seed, index, 1, sides, rounds, scratch)
    deck, log = scratch.deck, scratch.log
    game = Round(spec.rules, deck=[int(c) for c in deck], dealer=index % spec.rules.players)
    _replay(game, log[:40 - spec.rules.table_size])
    return game
