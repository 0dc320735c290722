"""Self-play samples for the net strategy's training, on all cores.

`generate` plays rounds of a run in the kernel (`kernels.selfplay`) in
batches on threads (the kernel releases the GIL) and returns every sampled
move's afterstate and rollout target, in round order whatever the number of
workers. `features` turns afterstates into the network's input, as the
kernel reads them (`kernels.net`).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import kernels
from ..engine import nets as weights
from ..engine.rules import Rules, kernel_rules
from ..engine.seats import Seats
from ..engine.strategies import parse_strategy
from ..kernels import net as N
from ..kernels.registry import Lineup

BATCH = 200                    # rounds per kernel call
ROOM = 400                     # sample rows per round, at most (a decision that would not fit
                               # is skipped, so this only has to be generous)


def features(after: np.ndarray) -> np.ndarray:
    """The network's input (float32[rows, F_SIZE] of 0 and 1) of afterstates
    (int64[rows, A_SIZE], `kernels.net.after`)."""
    rows = after.shape[0]
    x = np.zeros((rows, N.F_SIZE), np.float32)
    bits = np.arange(40, dtype=np.uint64)
    for field, at in (("hand", N.F_HAND), ("table", N.F_TABLE), ("mine", N.F_MINE),
                      ("theirs", N.F_THEIRS)):
        sets = after[:, N.AFTER_FIELDS.index(field)].astype(np.uint64)
        x[:, at:at + 40] = (sets[:, None] >> bits) & np.uint64(1)
    r = np.arange(rows)
    for field, at in (("scopas_mine", N.F_SCOPAS_MINE), ("scopas_theirs", N.F_SCOPAS_THEIRS),
                      ("deck_left", N.F_DECK_LEFT), ("hand_size", N.F_HAND_SIZE),
                      ("next_hand", N.F_NEXT_HAND), ("last", N.F_LAST),
                      ("table_sum", N.F_TABLE_SUM)):
        x[r, at + np.minimum(after[:, N.AFTER_FIELDS.index(field)], N.WIDTH[field] - 1)] = 1
    x[:, N.F_NEXT_PARTNER] = after[:, N.A_NEXT_PARTNER]
    hidden = after[:, N.A_UNSEEN].astype(np.uint64)
    for rank in range(1, 11):
        held = (hidden[:, None] >> (bits[rank - 1::10])) & np.uint64(1)     # its 4 cards
        x[r, N.F_UNSEEN_RANK + 5 * (rank - 1) + held.sum(1).astype(np.int64)] = 1
    return x


def generate(rules: Rules, seed: int, first: int, count: int, lineup="endgame",
             rollout="endgame", explore: float = 0.0, worlds: int = 0, infer: float = 0.5,
             workers: int | None = None):
    """Samples of rounds first..first+count-1 of run `seed`: afterstates
    (int64[rows, A_SIZE]), targets (float32[rows]) and decisions (int64[rows]),
    `lineup` playing every seat (a strategy, or one per side or seat) and
    `rollout` playing the rounds on from each move, in the true deal or over
    `worlds` sampled deals (`kernels.selfplay`)."""
    play, roll = (Seats(rules, _every_seat(s, rules)) for s in (lineup, rollout))
    nets = list(dict.fromkeys(play.nets + roll.nets))
    index = {w: k for k, w in enumerate(nets)}
    recipe = kernels.selfplay.recipe(_lineup(play, index), _lineup(roll, index), explore, worlds,
                                     infer)
    vector = kernel_rules(rules)
    record = weights.record(nets)
    starts = list(range(first, first + count, BATCH))

    def batch(start):
        n = min(BATCH, first + count - start)
        scratch = kernels.scratch(*play._slots(), nets=record)
        out = kernels.selfplay.samples(n * ROOM, N.A_SIZE)
        rows = kernels.batch.call(kernels.selfplay.self_play, np.uint64(seed % 2**64),
                                  np.int64(start), np.int64(n), vector, recipe, out, scratch,
                                  kernels.selfplay.rollout_scratch())
        if rows < 0:
            raise RuntimeError("a strategy failed in self-play")
        return out.after[:rows], out.target[:rows], out.decision[:rows]

    with ThreadPoolExecutor(workers or os.cpu_count() or 1) as pool:
        parts = list(pool.map(batch, starts))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _every_seat(strategy, rules: Rules):
    """One strategy for every seat, or the seats' own (a list)."""
    return strategy if isinstance(strategy, (list, tuple)) else \
        [parse_strategy(strategy)] * rules.players


def _lineup(seats: Seats, index: dict) -> Lineup:
    """The seats' lineup, each network by its index among the generator's."""
    params = seats.params.copy()
    for i, s in enumerate(seats.seats):
        params[i] = s.vector(index)
    return Lineup(seats.ids.copy(), params)
