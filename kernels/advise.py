"""Advice kernels: every root move of a position evaluated, by rollouts on
shared deals of the hidden cards, or exactly when nothing is hidden.

Arrays and scalars in, arrays out; no Python objects. The caller
(`scopa_sim.study.advise`) checks the position and owns every array:

    pos, deck          the position and its deck order (`position`)
    seat               the adviser: the seat to play
    cards, takes       the root moves (n of them, canonical order)
    out                int16[count, n, n_sides]: each side's round points
                       after rollout r of move j (`advise_batch`), or
                       int16[n, n_sides] on the exact line of move j
                       (`exact_values`)

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
no value is a bound), then follows one best line of it (the first move, in
canonical order, that keeps the value) to the end of the round to give each
side's points on that line.
"""
import numpy as np

from ._jit import kernel, outlined, spliced
from .heuristics import pick_fast
from .layout import R_SIDES, R_TEAM, S_POINTS
from .moves import legal_moves
from .position import HAND, TABLE, TURN, is_over, play_move, unseen
from .rng import stream
from .search import (
    NO_ROOM, copy_into, determinize, hidden_holder, minimax, score_into, value_after)
from .strategies import decide
from .users import F_STRATEGY, is_user, play_user

@kernel
def play_out(strategy, p, pos, deck, rules, rng, cards, takes, work, search, users):
    """Play the round out, every seat by `strategy` (fast or a user's) with
    parameters `p` (`search` unused: the search strategies play in `play_out_any`)."""
    while not is_over(pos):
        seat = np.int64(pos[TURN])
        m = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards, takes, work)
        if is_user(strategy):
            i = play_user(strategy, p, seat, pos, rules, m, cards, takes, rng, users)
        else:
            i = pick_fast(strategy, p, seat, pos, rules, m, cards, takes, rng)
        play_move(pos, deck, rules, cards[i], takes[i])


@kernel
def play_out_any(strategy, p, pos, deck, rules, rng, cards, takes, work, search, users):
    """`play_out` by any strategy, the search ones too (`strategies.decide`,
    with the search scratch `search`)."""
    while not is_over(pos):
        seat = np.int64(pos[TURN])
        m = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards, takes, work)
        i = decide(strategy, p, seat, pos, deck, rules, m, cards, takes, rng, work, search,
                   users)
        play_move(pos, deck, rules, cards[i], takes[i])


@spliced
def rollouts(play, seed, first, count, seat, pos, deck, rules, strategy, p, n, cards, takes,
             out, rng, saved, work, spos, sdeck, rpos, rdeck, rcards, rtakes, sout, search,
             users):
    """Rollouts first..first+count-1 of every root move, each round played
    out by `play` (`play_out` or `play_out_any`); points into `out`.
    Returns count, or -1 when a user strategy chose a move that does not
    exist (recorded in `users`)."""
    n_sides = rules[R_SIDES]
    for r in range(count):
        stream(seed, first + r, rng)
        determinize(pos, deck, seat, rng, spos, sdeck, work)
        saved[0] = rng[0]
        for j in range(n):
            copy_into(rpos, spos)
            copy_into(rdeck, sdeck)
            rng[0] = saved[0]                         # the same draws for every move
            play_move(rpos, rdeck, rules, cards[j], takes[j])
            play(strategy, p, rpos, rdeck, rules, rng, rcards, rtakes, work, search, users)
            if users.fault[F_STRATEGY] >= 0:
                return -1
            score_into(rpos, rules, sout)
            for t in range(n_sides):
                out[r, j, t] = sout[t, S_POINTS]
    return count


@outlined
def advise_batch(seed, first, count, seat, pos, deck, rules, strategy, p, n, cards, takes,
                 out, rng, saved, work, spos, sdeck, rpos, rdeck, rcards, rtakes, sout, search,
                 users):
    """`rollouts` played out by a fast strategy or a user's."""
    return rollouts(play_out, seed, first, count, seat, pos, deck, rules, strategy, p, n, cards,
                    takes, out, rng, saved, work, spos, sdeck, rpos, rdeck, rcards, rtakes, sout,
                    search, users)


@outlined
def deep_batch(seed, first, count, seat, pos, deck, rules, strategy, p, n, cards, takes,
               out, rng, saved, work, spos, sdeck, rpos, rdeck, rcards, rtakes, sout, search,
               users):
    """`rollouts` played out by any strategy: the deep evaluation's, by a
    search strategy for every seat (compiled apart, on first use)."""
    return rollouts(play_out_any, seed, first, count, seat, pos, deck, rules, strategy, p, n,
                    cards, takes, out, rng, saved, work, spos, sdeck, rpos, rdeck, rcards, rtakes,
                    sout, search, users)


@outlined
def exact_values(seat, pos, deck, rules, n, cards, takes, values, out, lpos, lcards, ltakes,
                 mcards, mtakes, work, sout, stack, frames, bounds):
    """Each root move's exact margin for `seat`'s side into values[:n], and
    each side's points on a best line of it into out[:n]; 0, or -1 if the
    scratch is too small (the caller checks `search.solvable` first)."""
    side = rules[R_TEAM + seat]
    n_sides = rules[R_SIDES]
    copy_into(stack[0], pos)
    holder = hidden_holder(pos, seat, rules)
    if holder >= 0:
        stack[0, HAND + holder] = unseen(pos, seat)
    for j in range(n):
        copy_into(lpos, stack[0])
        play_move(lpos, deck, rules, cards[j], takes[j])
        copy_into(stack[1], lpos)
        v = minimax(stack, 1, deck, rules, side, -np.inf, np.inf, mcards, mtakes, work, sout,
                    frames, bounds)
        if v == NO_ROOM:
            return -1
        values[j] = v
        while not is_over(lpos):                      # a best line: keep the value
            mover = np.int64(lpos[TURN])
            m = legal_moves(lpos[HAND + mover], lpos[TABLE], rules, lcards, ltakes, work)
            pick = 0
            for i in range(m):
                w = value_after(stack, lpos, deck, rules, side, lcards[i], ltakes[i], -np.inf,
                                mcards, mtakes, work, sout, frames, bounds)
                if w == NO_ROOM:
                    return -1
                if w == v:
                    pick = i
                    break
            play_move(lpos, deck, rules, lcards[pick], ltakes[pick])
        score_into(lpos, rules, sout)
        for t in range(n_sides):
            out[j, t] = sout[t, S_POINTS]
    return 0
