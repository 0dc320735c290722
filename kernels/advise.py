"""Advice kernels: every root move of a position evaluated, by rollouts on
shared deals of the hidden cards, or exactly when nothing is hidden.

Arrays, records of arrays and scalars in, arrays out. The caller
(`scopa_sim.study.advise`) checks the position and owns every array:

    root               the position, its deck order and the root moves
                       (root.cards/takes[:n], canonical order), a
                       `position.Board`
    seat               the adviser: the seat to play
    ends               what each move's rollouts end with, an `Outcomes`:
                       each side's round results after rollout r of move
                       j (`advise_batch`; count 1 on the exact line of
                       `exact_values`) and whether the next play swept
    rec                the rollouts' own buffers, a `Rollouts` (`buffers()`)
    kit                the decision scratch and the users context, a `play.Kit`

`advise_batch` plays rollouts first..first+count-1 (`deep_batch` the same,
by any strategy, the search ones too). Rollout r draws from
stream (seed, r) only: one deal of the cards the adviser has not seen
(`search.determinize`), then every root move played on that same deal and
from the same random state (common random numbers: the moves' results are
paired), the round played out by one fast strategy, or a user's (`users`, the
run's context: a bad choice is recorded there and stops the batch), for every
seat.

`exact_values` gives each root move's exact round point margin by
alpha-beta minimax (`search.minimax`, every move with the full window, so
no value is a bound), then follows one best line of it (`keep_value`: the
first move, in canonical order, that keeps the value) to the end of the
round to give each side's points on that line. Every play-out is the one
loop, `play.play_out`.
"""
from typing import NamedTuple

import numpy as np

from ._jit import kernel, outlined, spliced
from .heuristics import choose_fast
from .layout import MAX_PLAYERS, N_CARDS, N_SIDE, R_TEAMS
from .play import OVER, play_out
from .position import HAND, PLAYS, POS_SIZE, TABLE, Board, board, play_move, unseen
from .registry import Lineup, lineup
from .rng import stream
from .search import (
    NO_ROOM, Deal, copy_into, determinize, hidden_holder, minimax, score_into, value_after)
from .strategies import decide
from .users import F_STRATEGY

# The exact line's "strategy" at every seat: its parameter row holds the
# value to keep and the side it is the margin of.
LINE_PARAMS = ("value", "side")
LINE_VALUE, LINE_SIDE = (LINE_PARAMS.index(f) for f in ("value", "side"))


class Outcomes(NamedTuple):
    """What the root moves' rollouts end with (a named tuple of arrays)."""
    scores: np.ndarray         # int16[count, n, n_sides, N_SIDE]: each side's round results
                               # (`layout.SIDE_FIELDS`) after rollout r of root move j
    swept: np.ndarray          # bool[count, n]: whether the play after move j took the
                               # whole table (a sweep, scored as a scopa or not)


def outcomes(count, n, n_sides):
    """Fresh Outcomes for `count` rollouts of `n` moves."""
    return Outcomes(np.zeros((count, n, n_sides, N_SIDE), np.int16),
                    np.zeros((count, n), np.bool_))


class Rollouts(NamedTuple):
    """advise's rollout buffers (a named tuple of arrays)."""
    sample: Deal               # a deal of the hidden cards
    roll: Board                # a root move played on it, then played out
    lineup: Lineup             # the rollout strategy at every seat
    saved: np.ndarray          # uint64[1]: the random state every root move starts from


def buffers(strategy, params):
    """Fresh Rollouts for strategy id `strategy` with parameter row `params`
    at every seat."""
    line = lineup()
    line.strategies[:] = strategy
    line.params[:] = params
    return Rollouts(sample=Deal(np.zeros(POS_SIZE, np.uint64), np.zeros(N_CARDS, np.int64)),
                    roll=board(), lineup=line, saved=np.zeros(1, np.uint64))


@kernel
def took_all(board, table, at):
    """Whether play `at` of the board's log took all of `table` (the table
    it was played on): a sweep."""
    return table != 0 and board.pos[PLAYS] > at and board.log[at, 2] == np.int64(table)


@kernel
def end_into(ends, r, j, board, rules, table, at):
    """Score the played-out board into ends[r, j], with whether play `at`
    swept `table`."""
    out = ends.scores[r, j]
    score_into(board.pos, rules, out)
    ends.swept[r, j] = took_all(board, table, at)


@spliced
def rollouts(choose, seed, first, count, seat, n, root, ends, rec, kit):
    """Rollouts first..first+count-1 of every root move, each round played
    out by `choose` for the lineup of `rec`; what each ends with into `ends`.
    Returns count, or -1 when a user strategy chose a move that does not
    exist (recorded in kit.users)."""
    rules, rng = kit.rules, kit.rng
    sample, roll, saved = rec.sample, rec.roll, rec.saved
    for r in range(count):
        stream(seed, first + r, rng)
        determinize(root.pos, root.deck, seat, rng, sample.pos, sample.deck, kit.work)
        saved[0] = rng[0]
        for j in range(n):
            copy_into(roll.pos, sample.pos)
            copy_into(roll.deck, sample.deck)
            rng[0] = saved[0]                         # the same draws for every move
            play_move(roll.pos, roll.deck, rules, root.cards[j], root.takes[j])
            table, at = roll.pos[TABLE], roll.pos[PLAYS]
            play_out(choose, rec.lineup, roll, kit, None, None)
            if kit.users.fault[F_STRATEGY] >= 0:
                return -1
            end_into(ends, r, j, roll, rules, table, at)
    return count


@outlined
def advise_batch(seed, first, count, seat, n, root, ends, rec, kit):
    """`rollouts` played out by a fast strategy or a user's."""
    return rollouts(choose_fast, seed, first, count, seat, n, root, ends, rec, kit)


@outlined
def deep_batch(seed, first, count, seat, n, root, ends, rec, kit):
    """`rollouts` played out by any strategy: the deep evaluation's, by a
    search strategy for every seat (`strategies.decide`, compiled apart, on
    first use)."""
    return rollouts(decide, seed, first, count, seat, n, root, ends, rec, kit)


@kernel
def keep_value(strategy, p, seat, n, board, kit):
    """The chooser of an exact line: the first move (canonical order) whose
    exact value (side p[LINE_SIDE]'s margin) is p[LINE_VALUE]; -1 when minimax
    runs out of scratch."""
    side = np.int64(p[LINE_SIDE])
    for i in range(n):
        w = value_after(board.pos, board.deck, side, board.cards[i], board.takes[i], -np.inf,
                        kit.rules, kit.work, kit.search.solver, kit.search.roll)
        if w == NO_ROOM:
            return -1
        if w == p[LINE_VALUE]:
            return i
    return 0


@outlined
def exact_values(seat, n, root, line, values, ends, kit):
    """Each root move's exact margin for `seat`'s side into values[:n], and
    what a best line of it ends with into ends[0, :n]; 0, or -1 if the
    scratch is too small (the caller checks `search.solvable` first). The
    line is played on the board `line`; minimax works in kit.search.solver."""
    rules, search = kit.rules, kit.search
    stack, lines = search.solver.stack, search.lineup
    side = rules[R_TEAMS + seat]
    copy_into(stack[0], root.pos)
    holder = hidden_holder(root.pos, seat, rules)
    if holder >= 0:
        stack[0, HAND + holder] = unseen(root.pos, seat)
    copy_into(line.deck, root.deck)
    for j in range(n):
        copy_into(line.pos, stack[0])
        play_move(line.pos, line.deck, rules, root.cards[j], root.takes[j])
        table, at = line.pos[TABLE], line.pos[PLAYS]
        copy_into(stack[1], line.pos)
        v = minimax(1, line.deck, side, -np.inf, np.inf, rules, kit.work, search.solver,
                    search.roll)
        if v == NO_ROOM:
            return -1
        values[j] = v
        for s in range(MAX_PLAYERS):                  # a best line: keep the value
            lines.strategies[s] = 0
            lines.params[s, LINE_VALUE] = v
            lines.params[s, LINE_SIDE] = side
        if play_out(keep_value, lines, line, kit, None, None) != OVER:
            return -1
        end_into(ends, 0, j, line, rules, table, at)
    return 0
