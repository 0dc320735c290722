"""What a seat may know, as the int64 array a user strategy receives.

Built afresh for every decision of the seat to move from the position, never
a view of it: hidden cards (other hands, the undealt deck) are not in it, only
their counts, and what one strategy wrote into an earlier observation is
gone.
Card sets are int64 with bit `card` set (cards 0..39, see `layout`); the
slots are declared once, in `OBS_FIELDS` (name, size)::

    obs[O_SEAT]           the seat to play          obs[O_SIDE]     its side
    obs[O_DEALER]         the seat that dealt       obs[O_PLAYS]    plays made this round
    obs[O_DECK_LEFT]      cards still to be dealt   obs[O_LAST]     last capturer's seat, -1: none
    obs[O_RANDOM]         63 random bits for this decision, fixed by the run's seed
                          (`rng.observed_bits`: nothing of the deal but what the seed tells)
    obs[O_LAST_PLAY]      1 if this is the round's last play
    obs[O_HAND]           the seat's hand           obs[O_TABLE]    the table
    obs[O_PLAYED]         every card out of play: captured, or out of the round
    obs[O_UNSEEN]         every card the seat has not seen (other hands and the deck)
    obs[O_PILES + side]   each side's captured cards (6 slots, sides beyond the rules' are 0)
    obs[O_SCOPAS + side]  each side's scopas this round
    obs[O_SCORES + side]  each side's game score before this round (0 outside games)
    obs[O_HAND_SIZES + seat]  cards each seat holds
    obs[O_RULES + R_*]    the rules vector's head (`layout.R_PLAYERS` .. the primiera scale)
"""
import numpy as np

from ._jit import kernel
from .bits import lowest, popcount
from .layout import MAX_PLAYERS, R_BEST, R_SIDES, R_TEAMS, slots
from .position import DEALER, DECK, HAND, LAST, PILE, PLAYS, SCOPAS, TABLE, is_last_play, unseen
from .rng import observed_bits

OBS_FIELDS = (("seat", 1), ("side", 1), ("dealer", 1), ("plays", 1), ("deck_left", 1),
              ("last", 1), ("random", 1), ("last_play", 1), ("hand", 1), ("table", 1),
              ("played", 1), ("unseen", 1), ("piles", MAX_PLAYERS), ("scopas", MAX_PLAYERS),
              ("scores", MAX_PLAYERS), ("hand_sizes", MAX_PLAYERS), ("rules", R_BEST))
_O, O_SIZE = slots(OBS_FIELDS)                # O_SIZE: 64
(O_SEAT, O_SIDE, O_DEALER, O_PLAYS, O_DECK_LEFT, O_LAST, O_RANDOM, O_LAST_PLAY, O_HAND, O_TABLE,
 O_PLAYED, O_UNSEEN, O_PILES, O_SCOPAS, O_SCORES, O_HAND_SIZES, O_RULES) = (
    _O[f] for f, _ in OBS_FIELDS)


@kernel
def observe(seat, pos, rules, scores, rng, obs):
    """Fill all of `obs` with what `seat` may know of `pos` under `rules`;
    `scores` are the game scores before the round (one per side), `rng` the
    round's decide stream (read, not advanced)."""
    obs[O_SEAT] = seat
    obs[O_SIDE] = rules[R_TEAMS + seat]
    obs[O_DEALER] = np.int64(pos[DEALER])
    obs[O_PLAYS] = np.int64(pos[PLAYS])
    obs[O_DECK_LEFT] = 40 - np.int64(pos[DECK])
    obs[O_LAST] = np.int64(pos[LAST]) - 1
    obs[O_RANDOM] = observed_bits(rng, pos[PLAYS])
    obs[O_LAST_PLAY] = 1 if is_last_play(pos) else 0
    obs[O_HAND] = np.int64(pos[HAND + seat])
    obs[O_TABLE] = np.int64(pos[TABLE])
    played = pos[PILE]
    for t in range(MAX_PLAYERS):
        played |= pos[PILE + t]
        obs[O_PILES + t] = np.int64(pos[PILE + t]) if t < rules[R_SIDES] else 0
        obs[O_SCOPAS + t] = np.int64(pos[SCOPAS + t])
        obs[O_SCORES + t] = scores[t]
        obs[O_HAND_SIZES + t] = popcount(pos[HAND + t])
    obs[O_PLAYED] = np.int64(played)
    obs[O_UNSEEN] = np.int64(unseen(pos, seat))
    for r in range(R_BEST):
        obs[O_RULES + r] = rules[r]


@kernel
def count(cards):
    """The number of cards in an int64 card set (one instruction)."""
    return popcount(np.uint64(cards))


@kernel
def lowest_card(cards):
    """The lowest card of a non-empty int64 card set (one instruction)."""
    return lowest(np.uint64(cards))
