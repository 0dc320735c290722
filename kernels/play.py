"""The one play-out loop: a position played on to the end of its round with
the strategies of a lineup.

Every kernel that plays a round on calls `play_out`: the round kernel
(`round.play_round`), advise's rollouts (`advise.rollouts`), the searches'
rollouts (`search.rollout`, which also stops at spimc's exact tail and at
a `leaf=net` cut), the exact line of
`advise.exact_values`; and the Python round loop steps it (`scopa_sim.engine.seats`:
it hands back when a seat's strategy decides in Python). What differs is a
chooser, passed as a jitted function (`strategies`), so each caller
compiles only the strategy code it plays:

    choose(strategy, p, seat, n, board, kit) -> index of the move to play

`strategy` and `p` the seat's id and parameter row in the lineup
(`registry.Lineup`), `n` the number of legal moves in board.cards/takes.
Two records carry the rest (named tuples of arrays, which Numba types field
by field):

    board  a `position.Board`: the position, its deck order, its move list
           (scratch) and the log of its plays
    kit    a `Kit`: what a decision works with besides the position: the
           rules, the random state, the capture search's scratch, the
           search strategies' scratch (`search.Search`), the users
           context (`users.Users`) and the networks (`net.Net`)
"""
from typing import NamedTuple

import numpy as np

from ._jit import spliced
from .bits import ix
from .moves import legal_moves
from .position import HAND, PLAYS, TABLE, TURN, dealt_out, is_over, play_move
from .registry import PYTHON
from .users import F_STRATEGY, record_fault

# what play_out ended on
OVER = 0          # the round is over
STOPPED = 1       # the deck is out and at most `stop` cards are in hands
FAULT = 2         # a strategy chose a move that does not exist (recorded in kit.users)
ASKED = 3         # the seat to play decides in Python (its lineup id is PYTHON)
CUT = 4           # `until` plays have been played in the round
NEVER = -1        # a `stop` or `until` that never stops (None: the same, compiled without
                  # the check)


class Kit(NamedTuple):
    """What a decision works with besides the position (see the module
    docstring)."""
    rules: np.ndarray          # int64[layout.R_SIZE]: the rules vector (`layout.RULE_FIELDS`)
    rng: np.ndarray            # uint64[1]: the random stream's state
    work: np.ndarray           # int64[W_SIZE]: the capture search's scratch (`moves`)
    search: tuple              # the search strategies' scratch, a `search.Search` (None
                               # in a rollout's: it plays fast or user strategies only)
    users: tuple               # the run's user strategies, a `users.Users`
    net: tuple                 # the run's networks and their scratch, a `net.Net` (None
                               # in a rollout's)


@spliced
def play_at(board, kit, i):
    """Play move i of the board's move list for the seat to move, logging it
    (row pos[PLAYS] of board.log: seat, card, capture set; a log of no rows
    keeps none: `round.play_units` keeps the last unit's only). The trailer's
    VOID (`position`) is kept only with a kit that has the search
    strategies' scratch: no other strategy reads it (a kit without is a
    simple or fast batch's, or a rollout's), so the others play without."""
    pos, log = board.pos, board.log
    card, take = board.cards[ix(i)], board.takes[ix(i)]
    at = np.int64(pos[PLAYS])
    if at < log.shape[0]:
        row = log[ix(at)]
        row[0], row[1], row[2] = np.int64(pos[TURN]), card, np.int64(take)
    play_move(pos, board.deck, kit.rules, card, take, kit.search)


@spliced
def play_out(choose, lineup, board, kit, stop, until):
    """Play the board's position on with `choose` for the lineup's strategies
    until the round is over (OVER), or, with `stop` >= 0, until the deck is
    out and at most `stop` cards are in hands (STOPPED), or, with `until` >=
    0, until the round's plays (pos[PLAYS]) number `until` (CUT), or until the seat
    to play is one whose strategy decides in Python (ASKED: its moves are
    not listed yet). A choice that is no legal move's index, or a bad choice
    recorded in kit.users (a user strategy's, in a rollout too), is recorded
    there with its seat and play and ends it (FAULT), before it is played."""
    pos, rules, fault = board.pos, kit.rules, kit.users.fault
    while not is_over(pos):
        if stop is not None and stop >= 0 and dealt_out(pos, rules, stop):
            return STOPPED
        if until is not None and 0 <= until <= np.int64(pos[PLAYS]):
            return CUT
        seat = np.int64(pos[TURN])
        strategy = lineup.strategies[ix(seat)]
        if strategy == PYTHON:
            return ASKED
        m = legal_moves(pos[ix(HAND + seat)], pos[TABLE], rules, board.cards, board.takes,
                        kit.work)
        i = choose(strategy, lineup.params[ix(seat)], seat, m, board, kit)
        if i < 0 or i >= m or fault[F_STRATEGY] >= 0:
            record_fault(kit.users, strategy, i, m, seat, pos[PLAYS])
            return FAULT
        play_at(board, kit, i)
    return OVER
