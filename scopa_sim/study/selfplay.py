"""Self-play samples for the net strategy's training, on all cores.

`generate` plays rounds of a run in the kernel (`kernels.selfplay`) in
batches, on threads (the kernel releases the GIL) or a Dask cluster, and
returns every sampled move's afterstate and rollout target, in round order
whatever the number of workers or where they run (`engine.rollouts.SelfPlay`;
a batch is a pure function of the seed and its rounds, and its strategies
carry their networks' arrays to the workers); `engine.nets.features` turns
the afterstates into the network's input.
"""
from __future__ import annotations

import numpy as np

from ..engine.rollouts import SelfPlay
from ..engine.rules import Rules
from ..engine.seats import Seats
from ..engine.strategies import parse_strategy
from ..runs.executors import executor, stream
from ..runs.runner import warm_kernels

BATCH = 200                    # rounds per kernel call
ROOM = 400                     # sample rows per round, at most (a decision that would not fit
                               # is skipped, so this only has to be generous)


def generate(rules: Rules, seed: int, first: int, count: int, lineup="endgame",
             rollout="endgame", explore: float = 0.0, worlds: int = 0, infer: float = 0.5,
             workers: int | None = None, teacher=None, scheduler=None):
    """Samples of rounds first..first+count-1 of run `seed`: afterstates
    (int64[rows, A_SIZE]), targets (float32[rows]) and decisions (int64[rows]),
    `lineup` playing every seat (a strategy, or one per side or seat) and
    `rollout` playing the rounds on from each move, in the true deal or over
    `worlds` sampled deals; or, with a `teacher` (a pimc or spimc search), its
    values of the moves (`kernels.selfplay`). Batches of `BATCH` rounds run on
    `workers` threads, or on `scheduler` (as `runs.executors.executor` takes
    it, an open executor included)."""
    play, roll = (_every_seat(s, rules) for s in (lineup, rollout))
    teach = _every_seat(teacher, rules) if teacher else None
    recipe = (rules, play, roll, teach, explore, worlds, infer, seed, first, count)
    with executor(workers, scheduler, setup=warm_kernels) as ex:
        parts = [p for _, p in stream(_batch, recipe, range(0, count, BATCH), ex)]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _batch(rules, play, roll, teach, explore, worlds, infer, seed, first, count, at):
    """The samples of rounds first+at.. (`BATCH` of them, or those left)."""
    game = SelfPlay(rules, Seats(rules, play), Seats(rules, roll), explore, worlds, infer,
                    Seats(rules, teach) if teach else None)
    return game.samples(seed, first + at, min(BATCH, count - at), ROOM)


def _every_seat(strategy, rules: Rules) -> list:
    """One strategy for every seat, or the seats' own (a list), parsed here:
    a network named by its path travels as its arrays."""
    given = strategy if isinstance(strategy, (list, tuple)) else [strategy] * rules.players
    return [parse_strategy(s) for s in given]
