"""The net strategy's reference (kernels/net.py): slow, plain Python and
NumPy, written from the description of the afterstate and the network, not
from the kernel's code.

`afterstate` reads a position array directly (the slots of
kernels/position.py) and returns the position a move leaves as the mover
sees it, a dict keyed by the names of `kernels.net.AFTER_FIELDS`;
`feature_vector` turns one into the network's input of 0s and 1s (float64,
`FEATURE_FIELDS` in order); `value` is the network's forward pass, dense and
in float64.
"""
import itertools

import numpy as np

from scopa_sim.kernels.layout import (
    R_ACE_TAKES_ALL, R_PLAYERS, R_SCOPA_ON_LAST_PLAY, R_SIDES, R_TEAMS)
from scopa_sim.kernels.net import FEATURE_FIELDS, F_SIZE
from scopa_sim.kernels.position import DECK, HAND, LAST, PILE, PLAYS, SCOPAS, TABLE, TOTAL

N_CARDS = 40
CARD_SETS = ("hand", "table", "mine", "theirs")      # a bit per card
FLAGS = ("next_partner",)                            # one slot: 1 when set


def cards_of(mask):
    """The cards (0..39) of a card set, ascending."""
    return [c for c in range(N_CARDS) if (int(mask) >> c) & 1]


def mask_of(cards):
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def rank(card):
    return int(card) % 10 + 1


def scores_a_scopa(table, take, card, last_play, scopa_on_last_play, ace_takes_all):
    """Whether taking `take` from `table` with `card` is a scopa: it leaves
    the table empty, it is not the round's last play (unless the rules
    count those), and it is not an ace sweeping a table with no ace on it
    under asso piglia tutto."""
    if not take:
        return False
    if set(cards_of(table)) - set(cards_of(take)):
        return False                                 # something is left on the table
    if last_play and not scopa_on_last_play:
        return False
    if ace_takes_all and rank(card) == 1 and not any(rank(c) == 1 for c in cards_of(take)):
        return False
    return True


def afterstate(pos, rules, seat, card, take):
    """The position `seat` leaves by playing `card` taking `take` (a card
    set; 0 for a trail), seen from its side, before any new deal."""
    pos = [int(x) for x in pos]
    rules = [int(x) for x in rules]
    players, sides = rules[R_PLAYERS], rules[R_SIDES]
    team = [rules[R_TEAMS + s] for s in range(players)]
    side = team[seat]
    take = int(take)

    hand = set(cards_of(pos[HAND + seat]))
    assert card in hand
    hand.discard(card)
    table = set(cards_of(pos[TABLE]))
    mine = set(cards_of(pos[PILE + side]))
    scopas_mine = pos[SCOPAS + side]
    theirs, scopas_theirs = set(), 0
    for t in range(sides):
        if t != side:
            theirs |= set(cards_of(pos[PILE + t]))
            scopas_theirs += pos[SCOPAS + t]

    if pos[LAST] == 0:
        last = 0
    elif team[pos[LAST] - 1] == side:
        last = 1
    else:
        last = 2

    if take:
        captured = set(cards_of(take))
        assert captured <= table
        last_play = pos[PLAYS] + 1 == pos[TOTAL]
        if scores_a_scopa(pos[TABLE], take, card, last_play, rules[R_SCOPA_ON_LAST_PLAY],
                          rules[R_ACE_TAKES_ALL]):
            scopas_mine += 1
        table -= captured
        mine |= captured | {card}
        last = 1
    else:
        table.add(card)

    nxt = (seat + 1) % players
    return {"hand": mask_of(hand), "table": mask_of(table), "mine": mask_of(mine),
            "theirs": mask_of(theirs), "scopas_mine": scopas_mine,
            "scopas_theirs": scopas_theirs, "deck_left": N_CARDS - pos[DECK],
            "hand_size": len(hand), "next_hand": len(cards_of(pos[HAND + nxt])),
            "last": last, "next_partner": int(team[nxt] == side),
            "table_sum": sum(c % 10 + 1 for c in table),
            "unseen": mask_of(set(range(N_CARDS)) - set(cards_of(pos[HAND + seat]))
                              - set(cards_of(pos[TABLE]))
                              - {c for t in range(6) for c in cards_of(pos[PILE + t])})}


def feature_vector(after):
    """The network's input for afterstate `after` (float64[F_SIZE]): field
    by field in FEATURE_FIELDS order, a bit per card of a card set, one slot
    of a count (capped at the field's last slot), a flag's one slot."""
    x = []
    for name, width in FEATURE_FIELDS:
        field = [0.0] * width
        if name == "unseen_rank":                 # per rank: how many of its 4 are unseen
            unseen = cards_of(int(after["unseen"]))
            for rank in range(1, 11):
                field[5 * (rank - 1) + sum(1 for c in unseen if c % 10 + 1 == rank)] = 1.0
            x += field
            continue
        if name == "takes":                       # per rank: some table cards sum to it
            ranks = [c % 10 + 1 for c in cards_of(int(after["table"]))]
            for r in range(1, 11):
                field[r - 1] = float(any(sum(s) == r for k in range(1, len(ranks) + 1)
                                         for s in itertools.combinations(ranks, k)))
            x += field
            continue
        v = int(after[name])
        if name in CARD_SETS:
            assert width == N_CARDS
            for c in cards_of(v):
                field[c] = 1.0
        elif name in FLAGS:
            assert width == 1 and v in (0, 1)
            field[0] = float(v)
        else:
            assert v >= 0
            field[min(v, width - 1)] = 1.0
        x += field
    assert len(x) == F_SIZE
    return np.array(x, np.float64)


def value(weights, x):
    """The network's value of input `x`: weights (w1, b1, w2, b2, w3, b3) as
    in a weights file, all in float64."""
    w1, b1, w2, b2, w3, b3 = (np.asarray(w, np.float64) for w in weights)
    h1 = np.maximum(np.asarray(x, np.float64) @ w1 + b1, 0.0)
    h2 = np.maximum(h1 @ w2 + b2, 0.0)
    return float(h2 @ w3 + b3[0])
