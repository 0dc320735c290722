"""Batches: the unit of work the runner schedules. A batch is a pure function
of (seed, first index, count, rules, strategies, parameters): round `i` (or
game `i`) draws from stream (seed, i), so batches can run anywhere, in any
order, any number of times, and give the same arrays.

Results go into caller-owned arrays, a row per round: `sides`
(int16[rows, n_sides, N_SIDE]) and `rounds` (int64[rows, N_ROUND]); a round's
results are written side by side, which is faster than one column each. The
rules vector carries everything the rules say, the primiera lookup included
(`layout.R_BEST`); `scratch()` makes the rest.

`simulate_rounds` and `simulate_games` are Python functions that pick one of
three compiled kernels by the strategies a run names: `simple_units` when
every seat plays random or greedy, `fast_units` when every seat plays a fast
strategy, `search_units` when one searches. Each is compiled
(or loaded from the cache) the first time a run needs it, so a run of fast
strategies never compiles the search code; `needs_compile` says whether a
run's kernel still has to be compiled.
"""
import threading
from pathlib import Path

import numpy as np

from ._jit import outlined
from .ids import HEURISTIC, PIMC
from .layout import MAX_MOVES, MAX_PLAYERS, N_CARDS, N_ROUND, N_SIDE
from .moves import W_SIZE
from .position import POS_SIZE
from .round import play_units
from .search import search_scratch
from .strategies import choose, choose_fast, choose_simple


def scratch():
    """Fresh scratch arrays for one batch: rng, deck, pos, work, cards, takes,
    log, out (one round's side results), info (one round's fields), search
    (the search strategies' scratch tuple)."""
    return (np.zeros(1, np.uint64), np.zeros(N_CARDS, np.int64),
            np.zeros(POS_SIZE, np.uint64), np.zeros(W_SIZE, np.int64),
            np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.uint64),
            np.zeros((N_CARDS, 3), np.int64), np.zeros((MAX_PLAYERS, N_SIDE), np.int16),
            np.zeros(N_ROUND, np.int64), search_scratch())


@outlined
def simple_units(games, seed, first, count, rules, strategies, params, sides, rounds,
                 scores, rng, deck, pos, work, cards, takes, log, out, info, search):
    """`round.play_units` with random and greedy only."""
    return play_units(choose_simple, games, seed, first, count, rules, strategies, params,
                      sides, rounds, scores, rng, deck, pos, work, cards, takes, log, out,
                      info, search)


@outlined
def fast_units(games, seed, first, count, rules, strategies, params, sides, rounds,
               scores, rng, deck, pos, work, cards, takes, log, out, info, search):
    """`round.play_units` with the fast strategies only."""
    return play_units(choose_fast, games, seed, first, count, rules, strategies, params,
                      sides, rounds, scores, rng, deck, pos, work, cards, takes, log, out,
                      info, search)


@outlined
def search_units(games, seed, first, count, rules, strategies, params, sides, rounds,
                 scores, rng, deck, pos, work, cards, takes, log, out, info, search):
    """`round.play_units` with every strategy."""
    return play_units(choose, games, seed, first, count, rules, strategies, params,
                      sides, rounds, scores, rng, deck, pos, work, cards, takes, log, out,
                      info, search)


KERNELS = (simple_units, fast_units, search_units)
_COMPILING = threading.Lock()


def kernel_for(strategies):
    """The batch kernel for these strategy ids (one per seat): the one that
    compiles the least strategy code."""
    top = max(int(s) for s in strategies)
    return simple_units if top < HEURISTIC else fast_units if top < PIMC else search_units


def needs_compile(strategies) -> bool:
    """Whether running these strategy ids (one per seat) compiles a kernel
    first, rather than loading it from the disk cache (seconds, not a
    fraction of one)."""
    kernel = kernel_for(strategies)
    if kernel.signatures:
        return False
    try:
        index = Path(kernel._cache._cache_file._index_path)   # Numba's cache index file
    except AttributeError:
        return True
    return not index.exists()


def _run(strategies, *args):
    kernel = kernel_for(strategies)
    if kernel.signatures:
        return kernel(*args)
    with _COMPILING:          # one thread compiles (or loads); the others wait
        return kernel(*args)


def simulate_rounds(seed, first, rules, strategies, params, sides, rounds,
                    rng, deck, pos, work, cards, takes, log, out, info, search):
    """Rounds first.. of run `seed`, one per row of `rounds`; round i is
    dealt by seat i % players."""
    _run(strategies, False, np.uint64(int(seed) % 2**64), np.int64(first),
         np.int64(rounds.shape[0]), rules, strategies, params, sides, rounds,
         np.zeros(MAX_PLAYERS, np.int64), rng, deck, pos, work, cards, takes, log, out, info,
         search)


def simulate_games(seed, first, count, rules, strategies, params, sides, rounds,
                   scores, rng, deck, pos, work, cards, takes, log, out, info, search):
    """Games first..first+count-1 of run `seed`, one row per round played.

    Game g draws all its rounds from stream (seed, g); its first dealer is
    seat g % players. `rounds[:, Q_ROUND]` is the round's number within its
    game (from 0), `rounds[:, Q_GAME]` the game index. Returns
    the number of rows, or -1 if the arrays were too small (call again with
    bigger ones).
    """
    return int(_run(strategies, True, np.uint64(int(seed) % 2**64), np.int64(first),
                    np.int64(count), rules, strategies, params, sides, rounds, scores,
                    rng, deck, pos, work, cards, takes, log, out, info, search))
