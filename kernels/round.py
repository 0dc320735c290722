"""One round and a batch of rounds or games, from a deck order, with a strategy
per seat.

The strategy code comes in as a jitted function, `choose` (see
`strategies`): the kernels here are compiled once per such function, so a
run of fast strategies never compiles the search strategies.

The scratch arrays are owned by the caller (a batch) and reused for every
round, in a `batch.Scratch` record: `scratch.deck` (the round's deck order),
`pos` (the position, see `position`), `work` (the capture search's scratch),
`cards`/`takes` (the move list), `log` (int64[40, 3]: seat, card and capture
mask of every play of the last round), `search` (a tuple of the search
strategies' scratch arrays, see `search.search_scratch`), `users` (the user
strategies, the game scores and a fault record, a `users.Users`); `play_round`
puts one round's results into the `out`/`info` it is given (`play_units`
passes the round's rows of the batch arrays).
"""
import numpy as np

from ._jit import kernel, spliced
from .bits import ix
from .layout import (
    Q_CAPTURES, Q_DEALER, Q_GAME, Q_LAST_CAPTURER, Q_LEFTOVER, Q_ROUND, R_PLAYERS, R_SIDES,
    R_TARGET, S_POINTS, S_SCORE)
from .moves import legal_moves
from .position import (
    CAPTURES, HAND, LAST, PILE, SCOPAS, TABLE, TURN, finish_round, is_over, play_move,
    start_round)
from .rng import deal_stream, decide_stream, shuffle
from .scoring import score_round, strict_leader
from .users import F_PLAY, F_ROUND, F_SEAT, F_STRATEGY, F_UNIT, record_fault


@spliced
def play_round(choose, dealer, rules, strategies, params, scratch, out, info):
    """Play a round dealt from `scratch.deck` by `dealer`; False if a strategy chose
    a move that does not exist (the fault is in `users`, see `users`).

    Scores it into `out[side, S_*]` (every side of `out` zeroed first) and
    fills `info[Q_*]`: the dealer, the last capturer (seat, or -1), the cards
    left on the table at the end, the number of captures.
    """
    deck, rng, pos, work = scratch.deck, scratch.rng, scratch.pos, scratch.work
    cards, takes, log, search, users = (scratch.cards, scratch.takes, scratch.log,
                                        scratch.search, scratch.users)
    start_round(pos, deck, dealer, rules)
    play = 0
    fault = users.fault
    while not is_over(pos):
        seat = np.int64(pos[TURN])
        m = legal_moves(pos[ix(HAND + seat)], pos[TABLE], rules, cards, takes, work)
        strategy = strategies[ix(seat)]
        i = choose(strategy, params[ix(seat)], seat, pos, deck, rules, m,
                   cards, takes, rng, work, search, users)
        if i < 0 or i >= m or fault[F_STRATEGY] >= 0:
            record_fault(users, strategy, i, m, seat, play)
            fault[F_SEAT], fault[F_PLAY] = seat, play       # the decision that failed
            return False
        card, take = cards[ix(i)], takes[ix(i)]
        at = ix(play)
        log[at, 0], log[at, 1], log[at, 2] = seat, card, np.int64(take)
        play += 1
        play_move(pos, deck, rules, card, take)
    end_round(pos, rules, dealer, out, info)
    return True


@kernel
def end_round(pos, rules, dealer, out, info):
    """Finish a played-out round: the table to the last capturer, the sides'
    results into `out` (zeroed first) and the round's fields into `info`."""
    info[Q_LEFTOVER] = finish_round(pos, rules)
    out[:, :] = 0
    score_round(pos[PILE:PILE + 6], pos[SCOPAS:SCOPAS + 6], rules, out)
    info[Q_DEALER] = dealer
    info[Q_LAST_CAPTURER] = np.int64(pos[LAST]) - 1
    info[Q_CAPTURES] = np.int64(pos[CAPTURES])


@kernel
def add_round(scores, result, n_sides):
    """Add a round's points (`result[side, S_POINTS]`) to the game's
    `scores`, and write each side's new total into `result[side, S_SCORE]`."""
    for t in range(n_sides):
        scores[t] += result[t, S_POINTS]
        result[t, S_SCORE] = scores[t]


@kernel
def game_over(scores, n_sides, target):
    """Whether a game ends with these totals: someone at the target, top not tied."""
    top = strict_leader(scores, n_sides)
    return top >= 0 and scores[top] >= target


@kernel
def next_dealer(dealer, players):
    """The seat that deals the next round of a game: the deal passes on."""
    return dealer + 1 if dealer + 1 < players else 0


@kernel
def new_deck(deck, rng):
    """The deck in a fresh random order drawn from `rng`."""
    for c in range(deck.shape[0]):
        deck[c] = c
    shuffle(deck, rng)


@kernel
def deal_deck(seed, unit, number, deck, rng):
    """The deck of round `number` of unit `unit` of run `seed`, shuffled by
    its deal stream (drawn from `rng`)."""
    deal_stream(seed, unit, number, rng)
    new_deck(deck, rng)


@kernel
def deal_round(seed, unit, number, deck, rng):
    """`deal_deck`, then `rng` at the start of the round's decide stream."""
    deal_deck(seed, unit, number, deck, rng)
    decide_stream(seed, unit, number, rng)


@spliced
def play_units(choose, games, seed, first, count, rules, strategies, params, sides,
               rounds, scratch):
    """Units first..first+count-1 of run `seed`: rounds, or with `games`
    whole games, one row of sides/rounds per round played.

    Round r of unit u is dealt from its deal stream and decided from its
    decide stream (`deal_round`); the unit's first round is dealt by seat
    u % players. A round's `rounds[:, Q_ROUND]` is u and Q_GAME -1; a game's
    rounds have Q_ROUND their number within the game (from 0), Q_GAME u, and
    S_SCORE each side's total so far (`scratch.users.scores`, which
    observations show). A round is scored straight into its rows
    (`scratch.out` and `scratch.info` are not used). Returns the number of
    rows; -1 if the arrays were too small (call again with bigger ones); -2
    if a strategy chose a move that does not exist (the fault, with its unit
    and round, is in `scratch.users`).
    """
    deck, rng = scratch.deck, scratch.rng
    scores, fault = scratch.users.scores, scratch.users.fault
    fault[F_STRATEGY] = -1
    n = rules[R_PLAYERS]
    n_sides = rules[R_SIDES]
    row = 0
    for k in range(count):
        u = first + k
        dealer = u % n
        for t in range(n_sides):
            scores[t] = 0
        number = 0
        while True:
            if row == rounds.shape[0]:
                return -1
            deal_round(seed, u, number, deck, rng)
            result, fields = sides[row], rounds[row]     # the round's row, written in place
            if not play_round(choose, dealer, rules, strategies, params, scratch, result,
                              fields):
                fault[F_UNIT], fault[F_ROUND] = u, number
                return -2
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
