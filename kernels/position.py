"""A round in progress: one uint64 array holds the whole position, so that
search strategies can copy it, play on, and throw the copy away. Its slots
are declared once, in `POS_FIELDS` (name, size), and numbered from there::

    slot  0      6      12  13     19 20 21 22 23 24 25 26     32
          | HAND | PILE |TA| SCOPAS|LA|TU|PL|TO|DE|CA|DL| VOID |
          seats   sides     sides                        seats

    pos[HAND + seat]    seat's hand (card set), seats 0..5
    pos[PILE + side]    side's captured pile (card set), sides 0..5
    pos[TABLE]          the table (card set)
    pos[SCOPAS + side]  side's scopas so far
    pos[LAST]           last capturer's seat + 1 (0: nobody yet)
    pos[TURN]           seat to play
    pos[PLAYS]          plays made so far
    pos[TOTAL]          plays in the whole round
    pos[DECK]           deck index of the next card to deal
    pos[CAPTURES]       capturing plays so far
    pos[DEALER]         seat that dealt
    pos[VOID + seat]    cards seat trailed beside, this deal: every card that
                        could have captured from the table it trailed on

The deck order lives beside it (int64[40]); cards below `pos[DECK]` are dealt.
Under rules with fewer ranks than ten (`R_RANKS`) the cards set aside lead
the deck order, below the table's, and lie in pile OUT, which no side has
(`start_round`): seen by every seat, scored by none.
A position being played travels as a `Board` record: the position, its deck
order, the scratch for its legal moves and the log of its plays.
"""
from typing import NamedTuple

import numpy as np

from ._jit import kernel
from .bits import ONE, ZERO, ix, lowest, popcount
from .layout import (
    ALL_CARDS, MAX_MOVES, MAX_PLAYERS, N_CARDS, N_RANKS, R_ACE_TAKES_ALL, R_HAND_SIZE, R_PLAYERS,
    R_RANKS, R_REFILL, R_TABLE_SIZE, R_TEAMS, RANK, slots)
from .moves import SUMS, clears_for_scopa

POS_FIELDS = (("hand", MAX_PLAYERS), ("pile", MAX_PLAYERS), ("table", 1),
              ("scopas", MAX_PLAYERS), ("last", 1), ("turn", 1), ("plays", 1), ("total", 1),
              ("deck", 1), ("captures", 1), ("dealer", 1), ("void", MAX_PLAYERS))
_AT, POS_SIZE = slots(POS_FIELDS)
HAND, PILE, TABLE, SCOPAS, LAST, TURN, PLAYS, TOTAL, DECK, CAPTURES, DEALER, VOID = (
    _AT[f] for f in ("hand", "pile", "table", "scopas", "last", "turn", "plays", "total",
                     "deck", "captures", "dealer", "void"))
OUT = MAX_PLAYERS - 1      # the pile of the cards out of the round: no side's (at most 5 sides)


class Board(NamedTuple):
    """A position being played (a named tuple of arrays: Numba types it
    field by field)."""
    pos: np.ndarray            # uint64[POS_SIZE]: the position
    deck: np.ndarray           # int64[N_CARDS]: its deck order
    cards: np.ndarray          # int64[MAX_MOVES]: the legal moves' cards (scratch)
    takes: np.ndarray          # uint64[MAX_MOVES]: the legal moves' capture sets (scratch)
    log: np.ndarray            # int64[N_CARDS, 3]: seat, card, capture set of play k at row k


def board(pos=None, deck=None, cards=None, takes=None, log=None):
    """A Board of these arrays, fresh ones where not given."""
    return Board(pos=np.zeros(POS_SIZE, np.uint64) if pos is None else pos,
                 deck=np.zeros(N_CARDS, np.int64) if deck is None else deck,
                 cards=np.zeros(MAX_MOVES, np.int64) if cards is None else cards,
                 takes=np.zeros(MAX_MOVES, np.uint64) if takes is None else takes,
                 log=np.zeros((N_CARDS, 3), np.int64) if log is None else log)


@kernel
def deal(pos, deck, rules, beliefs=True):
    """A hand to every player, one card at a time from the leader; every
    VOID cleared (a new hand: nothing trailed beside yet) unless `beliefs`
    is None (see `play_move`: none was kept)."""
    n = rules[R_PLAYERS]
    at = np.int64(pos[DECK])
    leader = np.int64(pos[DEALER]) + 1
    if leader == n:
        leader = 0
    if beliefs is not None:
        for s in range(n):
            pos[ix(VOID + s)] = ZERO
    for _ in range(rules[R_HAND_SIZE]):
        seat = leader
        for i in range(n):
            pos[ix(HAND + seat)] |= ONE << np.uint64(deck[ix(at)])
            at += 1
            seat += 1
            if seat == n:
                seat = 0
    pos[DECK] = at
    pos[TURN] = leader


@kernel
def set_aside(deck, rules):
    """Move the cards of ranks above `R_RANKS` to the front of the deck order,
    ascending, the others after them in their order (a shuffled deck stays
    shuffled); return how many were set aside (none under ten ranks: the
    deck is left as it is)."""
    ranks = rules[R_RANKS]
    if ranks == N_RANKS:
        return 0
    at = N_CARDS                          # the kept cards to the back, in their order
    for i in range(N_CARDS - 1, -1, -1):
        if deck[i] % N_RANKS < ranks:
            at -= 1
            deck[at] = deck[i]
    out = 0
    for c in range(N_CARDS):
        if c % N_RANKS >= ranks:
            deck[out] = c
            out += 1
    return out


@kernel
def start_round(pos, deck, dealer, rules):
    """The position after the table cards and the first hands are dealt,
    the cards of ranks above `R_RANKS` set aside first (`set_aside`) into
    pile OUT."""
    for i in range(POS_SIZE):             # its known size: stores, not a call to memset
        pos[i] = ZERO
    out = set_aside(deck, rules)
    for i in range(out):
        pos[PILE + OUT] |= ONE << np.uint64(deck[i])
    table = ZERO
    for i in range(out, out + rules[R_TABLE_SIZE]):
        table |= ONE << np.uint64(deck[i])
    pos[TABLE] = table
    pos[DECK] = out + rules[R_TABLE_SIZE]
    pos[DEALER] = dealer
    dealt = (N_CARDS - out - rules[R_TABLE_SIZE] if rules[R_REFILL]
             else rules[R_PLAYERS] * rules[R_HAND_SIZE])
    pos[TOTAL] = dealt
    deal(pos, deck, rules, None)          # every VOID is clear


@kernel
def is_over(pos):
    return pos[PLAYS] == pos[TOTAL]


@kernel
def is_last_play(pos):
    """Whether the next play is the round's last."""
    return pos[PLAYS] + ONE == pos[TOTAL]


@kernel
def capturers(table, rules):
    """Every card that can capture from a non-empty `table`: its ranks and
    the sums of its subsets (up to 10), and the aces under asso piglia tutto."""
    reach = np.int64(1)
    m = table
    while m:
        reach |= (reach << RANK[lowest(m)]) & SUMS
        m &= m - ONE
    ranks = np.uint64(reach >> 1)
    if rules[R_ACE_TAKES_ALL]:
        ranks |= ONE
    return ranks | (ranks << np.uint64(10)) | (ranks << np.uint64(20)) | (ranks << np.uint64(30))


@kernel
def play_move(pos, deck, rules, card, take, beliefs=True):
    """Play `card` capturing `take` (0: a trail) for the seat to move; pass the
    turn, and deal new hands when all are empty and the deck lasts. A trail
    adds to the seat's VOID unless `beliefs` is None (a play whose
    strategies never read it, `play.play_at`: then it is not compiled)."""
    n = rules[R_PLAYERS]
    seat = np.int64(pos[TURN])
    card_set = ONE << np.uint64(card)
    table = pos[TABLE]
    pos[ix(HAND + seat)] ^= card_set
    if take:
        side = rules[ix(R_TEAMS + seat)]
        if clears_for_scopa(table, take, card, is_last_play(pos), rules):
            pos[ix(SCOPAS + side)] += ONE
        pos[TABLE] = table ^ take
        pos[ix(PILE + side)] |= take | card_set
        pos[LAST] = seat + 1
        pos[CAPTURES] += ONE
    else:
        if beliefs is not None and table:
            pos[ix(VOID + seat)] |= capturers(table, rules)
        pos[TABLE] = table | card_set
    pos[PLAYS] += ONE
    pos[TURN] = seat + 1 if seat + 1 < n else 0
    if pos[PLAYS] < pos[TOTAL] and pos[HAND + pos[TURN]] == ZERO:
        deal(pos, deck, rules, beliefs)


@kernel
def finish_round(pos, rules):
    """Give the table to the last capturer's side; return how many cards were left."""
    leftover = popcount(pos[TABLE])
    if pos[LAST]:
        pos[PILE + rules[R_TEAMS + np.int64(pos[LAST]) - 1]] |= pos[TABLE]
        pos[TABLE] = ZERO
    return leftover


@kernel
def unseen(pos, seat):
    """Cards `seat` has not seen: not in its hand, on the table or in any pile."""
    seen = pos[HAND + seat] | pos[TABLE]
    for t in range(MAX_PLAYERS):
        seen |= pos[PILE + t]
    return ALL_CARDS & ~seen


@kernel
def hand_cards(pos, rules):
    """The cards in all hands."""
    cards = 0
    for s in range(rules[R_PLAYERS]):
        cards += popcount(pos[HAND + s])
    return cards


@kernel
def dealt_out(pos, rules, max_cards):
    """Whether the deck is out and at most `max_cards` are in hands."""
    if pos[DECK] < N_CARDS:
        return False
    return hand_cards(pos, rules) <= max_cards
