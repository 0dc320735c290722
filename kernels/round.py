"""One round and one game of play, from a deck order, with a strategy per seat.

Scratch arrays are owned by the caller (a batch) and reused for every round:
`pos` (the position, see `position`), `work` (the capture search's scratch),
`cards`/`takes` (the move list), `log` (int64[40, 3]: seat, card and capture
mask of every play), `out`/`info` (one round's results), `search` (a tuple
of the search strategies' scratch arrays, see `search.search_scratch`).
"""
import numpy as np

from ._jit import kernel, outlined
from .layout import (
    Q_CAPTURES, Q_DEALER, Q_LAST_CAPTURER, Q_LEFTOVER, R_PLAYERS, R_SIDES, R_TARGET,
    S_POINTS, S_SCORE)
from .moves import legal_moves
from .position import (
    CAPTURES, HAND, LAST, PILE, SCOPAS, TABLE, TURN, finish_round, is_over, play_move,
    start_round)
from .rng import shuffle
from .scoring import score_round
from .strategies import choose


@outlined
def play_round(deck, dealer, rules, strategies, params, best, rng,
               pos, work, cards, takes, log, out, info, search):
    """Play a round dealt from `deck` by `dealer`.

    Scores it into `out[side, S_*]` and fills `info[Q_*]`: the dealer, the
    last capturer (seat, or -1), the cards left on the table at the end,
    the number of captures.
    """
    start_round(pos, deck, dealer, rules)
    play = 0
    while not is_over(pos):
        seat = np.int64(pos[TURN])
        m = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards, takes, work)
        i = choose(strategies[seat], params[seat], seat, pos, deck, rules, best, m,
                   cards, takes, rng, work, search)
        log[play, 0], log[play, 1], log[play, 2] = seat, cards[i], np.int64(takes[i])
        play += 1
        play_move(pos, deck, rules, cards[i], takes[i])
    info[Q_LEFTOVER] = finish_round(pos, rules)
    out[:, :] = 0
    score_round(pos[PILE:PILE + 6], pos[SCOPAS:SCOPAS + 6], rules, best, out)
    info[Q_DEALER] = dealer
    info[Q_LAST_CAPTURER] = np.int64(pos[LAST]) - 1
    info[Q_CAPTURES] = np.int64(pos[CAPTURES])


@kernel
def game_over(scores, n_sides, target):
    """Whether a game ends with these totals: someone at the target, top not tied."""
    top = scores[0]
    for t in range(1, n_sides):
        top = max(top, scores[t])
    if top < target:
        return False
    leaders = 0
    for t in range(n_sides):
        leaders += scores[t] == top
    return leaders == 1


@kernel
def new_deck(deck, rng):
    """The deck in a fresh random order drawn from `rng`."""
    for c in range(deck.shape[0]):
        deck[c] = c
    shuffle(deck, rng)


@kernel
def store_round(out, info, sides, rounds, row):
    """Copy one round's results (out[side, S_*], info[Q_*]) into row `row`
    of the batch arrays sides[row, side, S_*], rounds[row, Q_*]."""
    for t in range(sides.shape[1]):
        for f in range(sides.shape[2]):
            sides[row, t, f] = out[t, f]
    for f in range(rounds.shape[1]):
        rounds[row, f] = info[f]


@kernel
def play_game(first_dealer, rules, strategies, params, best, rng, deck,
              pos, work, cards, takes, log, out, info, search, scores, sides, rounds, row):
    """Play a game's rounds into rows `row`.. of sides/rounds until it ends.

    Returns the row after the game's last round, or -1 when the arrays run
    out of room (the caller grows them and replays from the same stream).
    """
    n_sides = rules[R_SIDES]
    scores[:] = 0
    dealer = first_dealer
    while True:
        if row == rounds.shape[0]:
            return -1
        new_deck(deck, rng)
        play_round(deck, dealer, rules, strategies, params, best, rng,
                   pos, work, cards, takes, log, out, info, search)
        for t in range(n_sides):
            scores[t] += out[t, S_POINTS]
            out[t, S_SCORE] = scores[t]
        store_round(out, info, sides, rounds, row)
        row += 1
        dealer = (dealer + 1) % rules[R_PLAYERS]
        if game_over(scores, n_sides, rules[R_TARGET]):
            return row
