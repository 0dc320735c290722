"""One round and a batch of rounds or games, from a deck order, with a strategy
per seat.

The strategy code comes in as a jitted function, `choose` (see
`strategies`): the kernels here are compiled once per such function, so a
run of fast strategies never compiles the search strategies. The round is
played by the one play-out loop, `play.play_out`.

The scratch arrays are owned by the caller (a batch) and reused for every
round, in a `batch.Scratch` record: `scratch.deck` (the round's deck order),
`pos` (the position, see `position`), `work` (the capture search's scratch),
`cards`/`takes` (the move list), `log` (int64[40, 3]: seat, card and capture
mask of every play of the last round), `search` (the search strategies'
scratch, a `search.Search`), `users` (the user strategies, the game scores
and a fault record, a `users.Users`); `play_round` puts one round's results
into the `out`/`info` it is given (`play_units` passes the round's rows of
the batch arrays, and keeps each side's pile in `taken` when it has rows).
Who plays each seat is a `registry.Lineup`.
"""
import numpy as np

from ._jit import kernel, spliced
from .layout import (
    MAX_PLAYERS, Q_CAPTURES, Q_DEALER, Q_GAME, Q_LAST_CAPTURER, Q_LEFTOVER, Q_ROUND, R_PLAYERS,
    R_SIDES, R_TARGET, S_POINTS, S_SCORE)
from .play import OVER, Kit, play_out
from .position import (
    CAPTURES, LAST, PILE, PLAYS, SCOPAS, TURN, Board, finish_round, start_round)
from .rng import deal_stream, decide_stream, keyed_deal_stream, keyed_decide_stream, shuffle
from .scoring import score_round, strict_leader
from .users import F_PLAY, F_ROUND, F_SEAT, F_STRATEGY, F_UNIT


@spliced
def play_round(choose, dealer, rules, lineup, scratch, log, out, info):
    """Play a round dealt from `scratch.deck` by `dealer`, its plays logged
    in `log` (`scratch.log`, or a log of no rows: none); False if a strategy chose
    a move that does not exist (the fault is in `users`, see `users`).

    Scores it into `out[side, S_*]` (every field of every side written, the
    sides past R_SIDES zeros) and fills `info[Q_*]`: the dealer, the last
    capturer (seat, or -1), the cards left on the table at the end, the
    number of captures.
    """
    pos = scratch.pos
    start_round(pos, scratch.deck, dealer, rules)
    board = Board(pos, scratch.deck, scratch.cards, scratch.takes, log)
    kit = Kit(rules, scratch.rng, scratch.work, scratch.search, scratch.users, scratch.net)
    if play_out(choose, lineup, board, kit, None, None) != OVER:
        fault = scratch.users.fault                 # the decision that failed
        fault[F_SEAT], fault[F_PLAY] = np.int64(pos[TURN]), np.int64(pos[PLAYS])
        return False
    end_round(pos, rules, dealer, out, info)
    return True


@spliced
def end_round(pos, rules, dealer, out, info):
    """Finish a played-out round: the table to the last capturer, the sides'
    results into `out` (`score_round` writes every field) and the round's fields
    into `info`."""
    info[Q_LEFTOVER] = finish_round(pos, rules)
    score_round(pos[PILE:PILE + MAX_PLAYERS], pos[SCOPAS:SCOPAS + MAX_PLAYERS], rules,
                out)
    info[Q_DEALER] = dealer
    info[Q_LAST_CAPTURER] = np.int64(pos[LAST]) - 1
    info[Q_CAPTURES] = np.int64(pos[CAPTURES])


@kernel
def keep_piles(taken, row, pos, n_sides):
    """Each side's pile at the end of a round (the table's leftover given to
    the last capturer's side, `end_round`) into `taken[row]`, when `taken`
    has room for the row (a run that keeps its captured cards)."""
    if row < taken.shape[0]:
        for t in range(n_sides):
            taken[row, t] = pos[PILE + t]


@kernel
def add_round(scores, result, n_sides):
    """Add a round's points (`result[side, S_POINTS]`) to the game's
    `scores`, and write each side's new total into `result[side, S_SCORE]`."""
    for t in range(n_sides):
        scores[t] += result[t, S_POINTS]
        result[t, S_SCORE] = scores[t]


@spliced
def game_over(scores, n_sides, target):
    """Whether a game ends with these totals: someone at the target, top not tied."""
    top = strict_leader(scores, n_sides)
    return top >= 0 and scores[top] >= target


@kernel
def next_dealer(dealer, players):
    """The seat that deals the next round of a game: the deal passes on."""
    return dealer + 1 if dealer + 1 < players else 0


@spliced
def new_deck(deck, rng):
    """The deck in a fresh random order drawn from `rng`."""
    for c in range(deck.shape[0]):
        deck[c] = c
    shuffle(deck, rng)


@spliced
def deal_deck(seed, unit, number, deck, rng):
    """The deck of round `number` of unit `unit` of run `seed`, shuffled by
    its deal stream (drawn from `rng`)."""
    deal_stream(seed, unit, number, rng)
    new_deck(deck, rng)


@spliced
def deal_round(seed, unit, number, deck, rng):
    """`deal_deck`, then `rng` at the start of the round's decide stream."""
    deal_deck(seed, unit, number, deck, rng)
    decide_stream(seed, unit, number, rng)


@spliced
def keyed_deal_round(seed, hi, unit, number, deck, rng):
    """`deal_round` of the 128-bit seed hi << 64 | seed (`rng`): the Python
    round loop's, which plays a contest's secret seed; hi = 0 deals as
    `deal_round`."""
    keyed_deal_stream(seed, hi, unit, number, rng)
    new_deck(deck, rng)
    keyed_decide_stream(seed, hi, unit, number, rng)


@spliced
def play_units(choose, games, seed, first, count, rules, lineup, sides, rounds, scratch):
    """Units first..first+count-1 of run `seed`: rounds, or with `games`
    whole games, one row of sides/rounds per round played.

    Round r of unit u is dealt from its deal stream and decided from its
    decide stream (`deal_round`); the unit's first round is dealt by seat
    u % players. A round's `rounds[:, Q_ROUND]` is u and Q_GAME -1; a game's
    rounds have Q_ROUND their number within the game (from 0), Q_GAME u, and
    S_SCORE each side's total so far (`scratch.users.scores`, which
    observations show). A round is scored straight into its rows
    (`scratch.out` and `scratch.info` are not used). Only the last unit's
    rounds are logged (`play.play_at`: the other rounds' logs were a tenth of
    a random round's time, and nobody reads them): `scratch.log` holds the
    last round's plays afterwards, as `scratch.deck` its deck. Returns the number of
    rows; -1 if the arrays were too small (call again with bigger ones); -2
    if a strategy chose a move that does not exist (the fault, with its unit
    and round, is in `scratch.users`).
    """
    deck, rng = scratch.deck, scratch.rng
    scores, fault = scratch.users.scores, scratch.users.fault
    fault[F_STRATEGY] = -1
    n = rules[R_PLAYERS]
    n_sides = rules[R_SIDES]
    row = np.int64(0)            # not literal 0s: they would compile the callees twice
    for k in range(count):
        u = first + k
        dealer = u % n
        for t in range(n_sides):
            scores[t] = 0
        number = np.int64(0)
        log = scratch.log if k == count - 1 else scratch.log[:0]    # the last unit's only
        while True:
            if row == rounds.shape[0]:
                return -1
            deal_round(seed, u, number, deck, rng)
            result, fields = sides[row], rounds[row]     # the round's row, written in place
            if not play_round(choose, dealer, rules, lineup, scratch, log, result, fields):
                fault[F_UNIT], fault[F_ROUND] = u, number
                return -2
            keep_piles(scratch.taken, row, scratch.pos, n_sides)
            if games:
                add_round(scores, result, n_sides)
                fields[Q_ROUND] = number
                fields[Q_GAME] = u
            else:
                fields[Q_ROUND] = u
                fields[Q_GAME] = -1
            row += 1
            if not games or game_over(scores, n_sides, rules[R_TARGET]):
                break
            number += 1
            dealer = next_dealer(dealer, n)
    return row
