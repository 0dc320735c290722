"""What each side captured in every round: a batch played as `round.play_units`
plays it, with each side's pile kept.

A round's captured cards are its sides' piles when it ends: `round.end_round`
has given the table's leftover cards to the last capturer's side, as scoring
does, so a side's pile holds `cards_t` cards. The rounds are dealt and played
by the round kernel itself (`round.deal_round`, `round.play_round`, the game's
scores by `round.add_round`, as `play_units` keeps them), so the rows written
here are the batch kernel's rows, byte for byte, and the piles are those of
the rounds a run played (tests/test_taken.py checks both). Arrays and scalars
in, arrays out::

    sides    int16[rows, n_sides, N_SIDE]  as `play_units` writes them
    rounds   int64[rows, N_ROUND]          as `play_units` writes them
    taken    uint64[rows, n_sides]         each side's pile at the round's end
                                           (bit suit*10 + rank - 1)

Three kernels with one signature, one per chooser of `batch` (picked by
`registry.KINDS`, as `batch.kernel_for` picks): `taken_simple`, `taken_fast`
and `taken_search`, the last calling `strategies.decide` (the search
strategies compiled once, as a function of their own) so that it compiles
the round loop only.
"""
from ._jit import outlined, spliced
from .bits import ix
from .layout import Q_GAME, Q_ROUND, R_PLAYERS, R_SIDES, R_TARGET
from .position import PILE
from .round import add_round, deal_round, game_over, next_dealer, play_round
from .strategies import choose_fast, choose_simple, decide
from .users import F_ROUND, F_STRATEGY, F_UNIT


@spliced
def taken_units(choose, games, seed, first, count, rules, strategies, params, sides, rounds,
                taken, scratch):
    """`round.play_units`, and `taken[row, side]` each side's pile at the end
    of the row's round. Returns the number of rows, -1 if the arrays were
    too small, -2 if a strategy chose a move that does not exist."""
    deck, rng, pos = scratch.deck, scratch.rng, scratch.pos
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
            result, fields = sides[row], rounds[row]
            if not play_round(choose, dealer, rules, strategies, params, scratch, result,
                              fields):
                fault[F_UNIT], fault[F_ROUND] = u, number
                return -2
            for t in range(n_sides):
                taken[row, t] = pos[ix(PILE + t)]
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


@outlined
def taken_simple(games, seed, first, count, rules, strategies, params, sides, rounds, taken,
                 scratch):
    """`taken_units` with random and greedy only."""
    return taken_units(choose_simple, games, seed, first, count, rules, strategies, params,
                       sides, rounds, taken, scratch)


@outlined
def taken_fast(games, seed, first, count, rules, strategies, params, sides, rounds, taken,
               scratch):
    """`taken_units` with the fast strategies only."""
    return taken_units(choose_fast, games, seed, first, count, rules, strategies, params,
                       sides, rounds, taken, scratch)


@outlined
def taken_search(games, seed, first, count, rules, strategies, params, sides, rounds, taken,
                 scratch):
    """`taken_units` with every strategy (through `strategies.decide`)."""
    return taken_units(decide, games, seed, first, count, rules, strategies, params,
                       sides, rounds, taken, scratch)


KERNELS = (taken_simple, taken_fast, taken_search)      # in the order of `registry.KINDS`
