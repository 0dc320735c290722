"""Taken columns: the cards each side captured in every round of a run.

    taken_T   the cards side T captured in the round, the table's leftover
              cards included for the last capturer's side, as scoring counts
              them: count(taken_T) == cards_T, and the sides' sets are apart
              (card sets: uint64, bit `suit*10 + rank - 1`)

Two ways to have them, as the deal columns are had (`engine.deals`):

- played again from the seed (`replay`, what `ask` and `values` do when a run
  does not store them): a run's rounds are a function of its spec, so the
  batch kernel plays a batch's units again (whole games in order, with their
  scores) with room in its scratch for the piles (`round.keep_piles`). Only
  a run of built-in strategies is played again (a run's user strategies are
  code, and a run is data), and it costs what simulating it cost: for
  searches, store them instead;
- stored in the run (`simulate --keep-taken`): the batch is played once, and
  its rows and piles written together (`runner.batch_columns`); the Python
  round loop (`Seats.play_in_python`) keeps the piles the same way.

A stored run's parts are the same bytes either way, but for these columns
(and `keep_taken` in its spec, only when on).
"""
from __future__ import annotations

import numpy as np

from ..engine.rules import Rules
from ..engine.strategies import parse_strategy
from ..kernels import layout as L, registry
from .plan import RunSpec, revised, shipped_before, spec_dict
from .sources import _Recorded

FIELD = ("taken", "the cards the side captured, the table's leftover to the last capturer")


def names(rules: Rules) -> list[str]:
    """The taken column names of a run under these rules: one per side."""
    return [f"taken_{t}" for t in range(rules.n_sides)]


def user_strategies(stored) -> list[str]:
    """The strategies of a stored run that are user code (by their labels):
    a run of these is never played again when it is read."""
    return [s.text for s in stored.sources] + [
        s for s in stored.strategies if s.strip().split(":")[0].lower() not in registry.NAMES]


def check_replayable(root, stored) -> None:
    """Refuse to play a stored run again when it plays user strategies (its
    strategies are code; a run is data): such runs store their taken columns
    (`simulate --keep-taken`)."""
    if user_strategies(stored):
        raise ValueError(f"{root} plays user strategies: its captured cards cannot be played "
                         f"again from the seed (a run's code is never run when it is read); "
                         f"simulate it with --keep-taken to store them")


def builtin_spec(root, stored, advice: str = "simulate it with --keep-taken") -> RunSpec:
    """The RunSpec of a stored run of built-in strategies, read from their
    labels (nothing is loaded), checked to read back as recorded, networks
    included (ValueError ending in `advice` otherwise); the caller has
    refused user strategies."""
    spec = RunSpec(stored.rules, tuple(parse_strategy(t, _Recorded({}))
                                       for t in stored.strategies),
                   stored.seed, stored.units, stored.games, stored.batch_size, stored.keep_taken)
    why = revised(stored, spec)
    if why:
        raise ValueError(f"{root}: {why}: this scopa-sim cannot play it again; {advice}")
    mine, theirs = spec_dict(spec), stored.as_dict()
    if any(mine.get(k) != theirs.get(k) for k in ("rules", "strategies", "nets")):
        raise ValueError(f"{root}: the run's strategies read back as "
                         f"{', '.join(map(str, spec.strategies))}, not as recorded (or their "
                         f"networks' files have changed): this scopa-sim cannot play it again"
                         f"{shipped_before(stored.nets)}; {advice}")
    return spec


def seats_of_run(root, stored):
    """The seats (`engine.seats.Seats`) of a stored run of built-in
    strategies (`builtin_spec`)."""
    from ..engine.seats import Seats   # the kernels: loaded only to play again
    check_replayable(root, stored)
    spec = builtin_spec(root, stored)
    return Seats(spec.rules, spec.strategies)


def replay(run, b: int, rows) -> dict[str, np.ndarray]:
    """The taken columns of the rows (`round`, and `game` in games) of batch
    `b` of a stored run, its units played again from the seed."""
    spec = run.spec
    seats = getattr(run, "_taken_seats", None)
    if seats is None:
        seats = run._taken_seats = seats_of_run(run.root, run.stored)
    first, count = spec.batch_range(b)
    _, rounds, taken = seats.play_rows(spec.games, spec.seed, first, count, piles=True)
    if spec.games:
        key = rounds[:, L.Q_GAME] * (1 << 20) + rounds[:, L.Q_ROUND]
        want = np.asarray(rows["game"], np.int64) * (1 << 20) + np.asarray(rows["round"], np.int64)
    else:
        key, want = rounds[:, L.Q_ROUND], np.asarray(rows["round"], np.int64)
    at = np.searchsorted(key, want)
    if len(key) == 0 or np.any(at >= len(key)) or np.any(key[np.minimum(at, len(key) - 1)] != want):
        raise ValueError(f"{run.root}: batch {b} does not play again as stored")
    return {f"taken_{t}": taken[at, t] for t in range(spec.rules.n_sides)}
