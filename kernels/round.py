"""One round and one game of play, from a deck order, with a strategy per seat.

Scratch arrays are owned by the caller (a batch) and reused for every round:
`sets` (uint64[12]: hands 0..5, side piles 6..11), `work` (int64[WORK]: the
capture search's scratch, then the scopas of each side), `cards`/`takes` (the move list), `log`
(int64[40, 3]: seat, card, capture mask of every play).
"""
import numpy as np

from ._jit import kernel
from .bits import ONE, ZERO, popcount
from .layout import (
    N_CARDS, Q_CAPTURES, Q_DEALER, Q_LAST_CAPTURER, Q_LEFTOVER, R_HAND, R_PLAYERS, R_REFILL, R_SIDES, R_TABLE, R_TARGET,
    R_TEAM, S_POINTS, S_SCORE)
from .moves import W_SIZE, clears_for_scopa, legal_moves
from .rng import shuffle
from .scoring import score_round
from .strategies import choose

HANDS, PILES, SCOPAS = 0, 6, W_SIZE
WORK = W_SIZE + 6


@kernel
def deal(deck, pos, sets, rules, leader):
    """A hand to every player, one card at a time from the leader; new deck position."""
    n = rules[R_PLAYERS]
    for _ in range(rules[R_HAND]):
        for i in range(n):
            sets[HANDS + (leader + i) % n] |= ONE << np.uint64(deck[pos])
            pos += 1
    return pos


@kernel
def n_deals(rules):
    """Deals in a round: while the deck lasts, or one when hands are not refilled."""
    if rules[R_REFILL]:
        return (N_CARDS - rules[R_TABLE]) // (rules[R_PLAYERS] * rules[R_HAND])
    return 1


@kernel
def play_round(deck, dealer, rules, strategies, params, best, rng,
               sets, work, cards, takes, log, out, info):
    """Play a round dealt from `deck` by `dealer`.

    Scores it into `out[side, S_*]` and fills `info[Q_*]`: the dealer, the
    last capturer (seat, or -1), the cards left on the table at the end,
    the number of captures.
    """
    n = rules[R_PLAYERS]
    sets[:] = ZERO
    work[SCOPAS:SCOPAS + 6] = 0
    table = ZERO
    for pos in range(rules[R_TABLE]):
        table |= ONE << np.uint64(deck[pos])
    pos = rules[R_TABLE]
    leader = (dealer + 1) % n
    deals = n_deals(rules)
    per_deal = n * rules[R_HAND]
    last_capturer = -1
    captures = 0
    play = 0
    for d in range(deals):
        pos = deal(deck, pos, sets, rules, leader)
        seat = leader
        for turn in range(per_deal):
            last_play = d == deals - 1 and turn == per_deal - 1
            m = legal_moves(sets[HANDS + seat], table, rules, cards, takes, work)
            i = choose(strategies[seat], params[seat], table, m, cards, takes,
                       last_play, rules, rng)
            card, take = cards[i], takes[i]
            card_set = ONE << np.uint64(card)
            sets[HANDS + seat] ^= card_set
            log[play, 0], log[play, 1], log[play, 2] = seat, card, np.int64(take)
            play += 1
            if take:
                side = rules[R_TEAM + seat]
                if clears_for_scopa(table, take, card, last_play, rules):
                    work[SCOPAS + side] += 1
                table ^= take
                sets[PILES + side] |= take | card_set
                last_capturer = seat
                captures += 1
            else:
                table |= card_set
            seat = seat + 1 if seat + 1 < n else 0
    leftover = popcount(table)
    if last_capturer >= 0:
        sets[PILES + rules[R_TEAM + last_capturer]] |= table
    out[:, :] = 0
    score_round(sets[PILES:PILES + 6], work[SCOPAS:SCOPAS + 6], rules, best, out)
    info[Q_DEALER] = dealer
    info[Q_LAST_CAPTURER] = last_capturer
    info[Q_LEFTOVER] = leftover
    info[Q_CAPTURES] = captures


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
    for c in range(N_CARDS):
        deck[c] = c
    shuffle(deck, rng)


@kernel
def store_round(out, info, sides, rounds, row):
    """Copy one round's results (out[side, S_*], info[Q_*]) into column
    `row` of the batch arrays sides[side, S_*, row], rounds[Q_*, row]."""
    for t in range(sides.shape[0]):
        for f in range(sides.shape[1]):
            sides[t, f, row] = out[t, f]
    for f in range(rounds.shape[0]):
        rounds[f, row] = info[f]


@kernel
def play_game(first_dealer, rules, strategies, params, best, rng, deck,
              sets, work, cards, takes, log, out, info, scores, sides, rounds, row):
    """Play a game's rounds into columns `row`.. of sides/rounds until it ends.

    Returns the row after the game's last round, or -1 when the arrays run
    out of room (the caller grows them and replays from the same stream).
    """
    n_sides = rules[R_SIDES]
    scores[:] = 0
    dealer = first_dealer
    while True:
        if row == rounds.shape[1]:
            return -1
        new_deck(deck, rng)
        play_round(deck, dealer, rules, strategies, params, best, rng,
                   sets, work, cards, takes, log, out, info)
        for t in range(n_sides):
            scores[t] += out[t, S_POINTS]
            out[t, S_SCORE] = scores[t]
        store_round(out, info, sides, rounds, row)
        row += 1
        dealer = (dealer + 1) % rules[R_PLAYERS]
        if game_over(scores, n_sides, rules[R_TARGET]):
            return row
