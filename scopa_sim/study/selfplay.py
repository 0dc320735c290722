"""Self-play samples for the net strategy's training, on all cores.

`generate` plays rounds of a run in the kernel (`kernels.selfplay`) in
batches on threads (the kernel releases the GIL) and returns every sampled
move's afterstate and rollout target, in round order whatever the number of
workers (`engine.rollouts.SelfPlay`); `engine.nets.features` turns the
afterstates into the network's input.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..engine.rollouts import SelfPlay
from ..engine.rules import Rules
from ..engine.seats import Seats
from ..engine.strategies import parse_strategy

BATCH = 200                    # rounds per kernel call
ROOM = 400                     # sample rows per round, at most (a decision that would not fit
                               # is skipped, so this only has to be generous)


def generate(rules: Rules, seed: int, first: int, count: int, lineup="endgame",
             rollout="endgame", explore: float = 0.0, worlds: int = 0, infer: float = 0.5,
             workers: int | None = None, teacher=None):
    """Samples of rounds first..first+count-1 of run `seed`: afterstates
    (int64[rows, A_SIZE]), targets (float32[rows]) and decisions (int64[rows]),
    `lineup` playing every seat (a strategy, or one per side or seat) and
    `rollout` playing the rounds on from each move, in the true deal or over
    `worlds` sampled deals; or, with a `teacher` (a pimc or spimc search), its
    values of the moves (`kernels.selfplay`)."""
    play, roll = (Seats(rules, _every_seat(s, rules)) for s in (lineup, rollout))
    teach = Seats(rules, _every_seat(teacher, rules)) if teacher else None
    game = SelfPlay(rules, play, roll, explore, worlds, infer, teach)
    starts = list(range(first, first + count, BATCH))

    def batch(start):
        return game.samples(seed, start, min(BATCH, first + count - start), ROOM)

    with ThreadPoolExecutor(workers or os.cpu_count() or 1) as pool:
        parts = list(pool.map(batch, starts))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _every_seat(strategy, rules: Rules):
    """One strategy for every seat, or the seats' own (a list)."""
    return strategy if isinstance(strategy, (list, tuple)) else \
        [parse_strategy(strategy)] * rules.players
