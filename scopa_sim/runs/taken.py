"""Taken columns: the cards each side captured in every round of a run.

    taken_T   the cards side T captured in the round, the table's leftover
              cards included for the last capturer's side, as scoring counts
              them: count(taken_T) == cards_T, and the sides' sets are apart
              (card sets: uint64, bit `suit*10 + rank - 1`)

Two ways to have them, as the deal columns are had (`engine.deals`):

- played again from the seed (`replay`, what `ask` and `values` do when a run
  does not store them): a run's rounds are a function of its spec, so the
  kernel plays a batch's units again (`kernels.taken`: the round kernel
  itself, whole games in order, with their scores) and keeps each side's
  pile. Only a run of built-in strategies is played again (a run's user
  strategies are code, and a run is data), and it costs what simulating it
  cost: for searches, store them instead;
- stored in the run (`simulate --keep-taken`): the batch is played once by
  the same kernel, which writes the run's rows and the piles together; a
  plain-Python strategy's batch is played by the Python round loop
  (`Seats.play_in_python`) and its piles read from its log.

A stored run's parts are the same bytes either way, but for these columns
(and `keep_taken` in its spec, only when on).
"""
from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from .. import kernels
from ..engine.rules import Rules
from ..engine.seats import Seats, _where
from ..engine.strategies import parse_strategy
from ..kernels import layout as L, registry
from .plan import RunSpec
from .sources import _Recorded
from .store import spec_dict

FIELD = ("taken", "the cards the side captured, the table's leftover to the last capturer")


def names(rules: Rules) -> list[str]:
    """The taken column names of a run under these rules: one per side."""
    return [f"taken_{t}" for t in range(rules.n_sides)]


def _kernels():
    return importlib.import_module("..kernels.taken", __package__)   # compiled on first use


def _kernel_for(ids):
    """The taken kernel of `batch.kernel_for(ids)`'s kind."""
    batch = kernels.batch
    return _kernels().KERNELS[batch.KERNELS.index(batch.kernel_for(ids))]


def needs_compile(ids) -> bool:
    """Whether a --keep-taken run of these strategy ids compiles its taken
    kernel first, rather than loading it from the disk cache (as
    `batch.needs_compile` says of the batch kernels)."""
    kernel = _kernel_for(ids)
    if kernel.overloads:
        return False
    try:
        index = Path(kernel._cache._cache_file._index_path)   # Numba's cache index file
    except AttributeError:
        return True
    return not index.exists()


def play_units(seats: Seats, games: bool, seed: int, first: int, count: int):
    """Units first..first+count-1 of run `seed`, played as `Seats.play` plays
    them: (sides, rounds, taken uint64[rows, n_sides]); StrategyError if a
    strategy fails."""
    rules = seats.rules
    capacity = 8 * count + 64 if games else count
    while True:
        sides = np.zeros((capacity, rules.n_sides, L.N_SIDE), np.int16)
        rounds = np.zeros((capacity, L.N_ROUND), np.int64)
        taken = np.zeros((capacity, rules.n_sides), np.uint64)
        if seats.python:
            rows = _in_python(seats, games, seed, first, count, sides, rounds, taken)
        else:
            rows = _in_kernel(seats, games, seed, first, count, sides, rounds, taken)
        if rows >= 0:
            return sides[:rows], rounds[:rows], taken[:rows]
        capacity *= 4


def _in_kernel(seats, games, seed, first, count, sides, rounds, taken) -> int:
    scratch = seats.scratch()
    kernel = _kernel_for(seats.ids[:seats.rules.players])
    try:
        rows = int(kernels.batch.call(kernel, bool(games), np.uint64(int(seed) % 2**64),
                                      np.int64(first), np.int64(count), seats.packed, seats.ids,
                                      seats.params, sides, rounds, taken, scratch))
    except Exception:
        if not seats.users:
            raise
        seats.play(games, seed, first, count, sides.copy(), rounds.copy())   # names the fault
        raise
    if rows == -2:
        f = scratch.users.fault
        seat = int(f[kernels.users.F_SEAT])
        raise seats.bad_choice(f, seat, _where(games, int(f[kernels.users.F_UNIT]),
                                               int(f[kernels.users.F_ROUND]), seat,
                                               int(f[kernels.users.F_PLAY])))
    return rows


def _in_python(seats, games, seed, first, count, sides, rounds, taken) -> int:
    """The Python round loop's rows, and each round's piles from its log:
    a capture puts the card and what it took in the capturer's side's pile,
    and what is left (the cards of the round no pile holds) goes to the last
    capturer's side."""
    record: list = []
    rows = seats.play_in_python(games, seed, first, count, sides, rounds, seats.scratch(), record)
    if rows < 0:
        return rows
    rules, teams = seats.rules, seats.rules.teams
    for row, (deck, log) in enumerate(record):
        piles = [0] * rules.n_sides
        cards = 0
        for c in deck[:rules.table_size]:
            cards |= 1 << int(c)
        last = -1
        for seat, card, take in log:
            cards |= 1 << int(card)
            if take:
                piles[teams[int(seat)]] |= int(take) | 1 << int(card)
                last = int(seat)
        if last >= 0:
            held = 0
            for pile in piles:
                held |= pile
            piles[teams[last]] |= cards & ~held
        taken[row] = piles
    return rows


def check_replayable(root, stored) -> None:
    """Refuse to play a stored run again when it plays user strategies (its
    strategies are code; a run is data): such runs store their taken columns
    (`simulate --keep-taken`)."""
    if stored.sources or any(s.strip().split(":")[0].lower() not in registry.NAMES
                             for s in stored.strategies):
        raise ValueError(f"{root} plays user strategies: its captured cards cannot be played "
                         f"again from the seed (a run's code is never run when it is read); "
                         f"simulate it with --keep-taken to store them")


def seats_of_run(root, stored) -> Seats:
    """The seats of a stored run of built-in strategies, read from their
    labels (nothing is loaded), checked to read back as recorded."""
    check_replayable(root, stored)
    spec = RunSpec(stored.rules, tuple(parse_strategy(t, _Recorded({}))
                                       for t in stored.strategies),
                   stored.seed, stored.units, stored.games, stored.batch_size)
    mine, theirs = spec_dict(spec), stored.as_dict()
    if [mine[k] for k in ("rules", "strategies")] != [theirs[k] for k in ("rules", "strategies")]:
        raise ValueError(f"{root}: the run's strategies read back as "
                         f"{', '.join(map(str, spec.strategies))}, not as recorded: this "
                         f"scopa-sim cannot play it again; simulate it with --keep-taken")
    return Seats(spec.rules, spec.strategies)


def replay(run, b: int, rows) -> dict[str, np.ndarray]:
    """The taken columns of the rows (`round`, and `game` in games) of batch
    `b` of a stored run, its units played again from the seed."""
    spec = run.spec
    seats = getattr(run, "_taken_seats", None)
    if seats is None:
        seats = run._taken_seats = seats_of_run(run.root, run.stored)
    first, count = spec.batch_range(b)
    _, rounds, taken = play_units(seats, spec.games, spec.seed, first, count)
    if spec.games:
        key = rounds[:, L.Q_GAME] * (1 << 20) + rounds[:, L.Q_ROUND]
        want = np.asarray(rows["game"], np.int64) * (1 << 20) + np.asarray(rows["round"], np.int64)
    else:
        key, want = rounds[:, L.Q_ROUND], np.asarray(rows["round"], np.int64)
    at = np.searchsorted(key, want)
    if len(key) == 0 or np.any(at >= len(key)) or np.any(key[np.minimum(at, len(key) - 1)] != want):
        raise ValueError(f"{run.root}: batch {b} does not play again as stored")
    return {f"taken_{t}": taken[at, t] for t in range(spec.rules.n_sides)}
