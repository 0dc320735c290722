"""Batches: the unit of work the runner schedules. A batch is a pure function
of (seed, first index, count, rules, strategies, parameters): round `i` (or
game `i`) draws from stream (seed, i), so batches can run anywhere, in any
order, any number of times, and give the same arrays.

Results go into caller-owned arrays, a row per round: `sides`
(int16[rows, n_sides, N_SIDE]) and `rounds` (int64[rows, N_ROUND]); a round's
results are written side by side, which is faster than one column each. `best` is the primiera lookup of the
rules (`layout.primiera_table`); `scratch()` makes the rest.
"""
import numpy as np

from ._jit import alloc, outlined
from .layout import MAX_MOVES, MAX_PLAYERS, N_CARDS, N_ROUND, N_SIDE, Q_GAME, Q_ROUND, R_PLAYERS
from .rng import stream
from .moves import W_SIZE
from .position import POS_SIZE
from .round import new_deck, play_game, play_round, store_round
from .search import search_scratch


@alloc
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
def simulate_rounds(seed, first, rules, strategies, params, best, sides, rounds,
                    rng, deck, pos, work, cards, takes, log, out, info, search):
    """Rounds first.. of run `seed`, one per column of `rounds`; round i is
    dealt by seat i % players."""
    for k in range(rounds.shape[0]):
        i = first + k
        stream(seed, i, rng)
        new_deck(deck, rng)
        play_round(deck, i % rules[R_PLAYERS], rules, strategies, params, best, rng,
                   pos, work, cards, takes, log, out, info, search)
        info[Q_ROUND] = i
        info[Q_GAME] = -1
        store_round(out, info, sides, rounds, k)


@outlined
def simulate_games(seed, first, count, rules, strategies, params, best, sides, rounds,
                   scores, rng, deck, pos, work, cards, takes, log, out, info, search):
    """Games first..first+count-1 of run `seed`, one row per round played.

    Game g draws all its rounds from stream (seed, g); its first dealer is
    seat g % players. `rounds[:, Q_ROUND]` is the round's number within its
    game (from 0), `rounds[:, Q_GAME]` the game index. Returns
    the number of rows, or -1 if the arrays were too small (call again with
    bigger ones).
    """
    row = 0
    for k in range(count):
        g = first + k
        stream(seed, g, rng)
        end = play_game(g % rules[R_PLAYERS], rules, strategies, params, best,
                        rng, deck, pos, work, cards, takes, log, out, info, search, scores,
                        sides, rounds, row)
        if end < 0:
            return -1
        for r in range(row, end):
            rounds[r, Q_ROUND] = r - row
            rounds[r, Q_GAME] = g
        row = end
    return row
