"""The maxims of the rule texts as switches on one plain strategy.

`maxims` values each legal move as a sum of terms, in rough points: the
base terms (a capture +0.2, a scopa +1) and one term per maxim, scaled by
its parameter (1: on, its default; 0: off). Ties break at random, from the
observation's RANDOM bits. A maxim is measured by two strategies that
differ only in its parameter:

    scopa-sim compare "docs/examples/maxims/base.py:maxims:settebello=1" \\
                      "docs/examples/maxims/base.py:maxims:settebello=0" --deals 100000

The maxims, and where the rule texts give them (docs/examples/maxims/README.md):

1. settebello: "The settebello is now in your pile, where nobody can take it
   from you." (seed 003's commentary); "Prioritize capturing the 7 of Coins"
   (seed 002's strategy notes). A capture that takes the 7 of coins, or is
   made with it.
2. above_ten: "Instead you lay down A♠. The table is 4, 9, 3 and 1, which
   adds up to 17, so no single card can clear it." (seed 003's commentary).
   A move that leaves a table adding up to more than 10.
3. single: "A single card left on a bare table is an open invitation."
   (seed 003's commentary). A move that leaves exactly one card, penalised.
4. primiera: "Collect Sevens and Sixes for Prime dominance ... ensure you
   have at least one card per suit" (seed 002's strategy notes). Sevens and
   sixes taken, and suits new to our pile.
5. coins: "consider withholding Coins cards from the table when possible"
   (seed 002's strategy notes). Trailing a coin penalised; coins taken.
6. cards: "Prefer sum captures that take multiple cards over single-card
   captures" (seed 002's strategy notes). Each table card taken.
7. no_seven: "That is a mistake: a four and a three make seven, and there
   are four sevens in the pack." (seed 003's commentary). A move that leaves
   cards adding up to 7 while a seven is unseen, penalised.

Maxims 2, 3 and 7 look at the table the next player faces, so they are idle
on the round's last play.
"""
import numba

import scopa_sim
from scopa_sim.kernels.layout import R_ACE_TAKES_ALL, R_SCOPA_ON_LAST_PLAY
from scopa_sim.observation import (HAND, LAST_PLAY, PILES, RANDOM, RULES, SIDE, TABLE,
                                   UNSEEN, count, lowest_card)

COINS, SETTEBELLO, ACES = (1 << 10) - 1, 1 << 6, 1 | 1 << 10 | 1 << 20 | 1 << 30
SEVENS, SIXES = 1 << 6 | 1 << 16 | 1 << 26 | 1 << 36, 1 << 5 | 1 << 15 | 1 << 25 | 1 << 35

# base terms, then each maxim's weight (points, roughly); the parameters scale the maxims
CAPTURE, SCOPA = 0.2, 1.0
W_SETTEBELLO, W_ABOVE_TEN, W_SINGLE = 0.8, 0.2, 0.1
W_SEVEN, W_SIX, W_NEW_SUIT = 0.15, 0.08, 0.1
W_COIN_TAKEN, W_COIN_TRAILED, W_CARD, W_SETS_SEVEN = 0.1, 0.1, 0.18, 0.15
TIE = 1e-9                                   # times 16 random bits: breaks ties only


@numba.njit(cache=True)
def rank_sum(cards):
    """The sum of the ranks (ace 1 .. king 10) of a set of cards."""
    total = 0
    while cards:
        total += lowest_card(cards) % 10 + 1
        cards &= cards - 1
    return total


@numba.njit(cache=True)
def makes_seven(cards):
    """Whether some of the cards add up to 7 (a subset-sum bitset up to 7)."""
    reach = 1
    while cards:
        reach = (reach | reach << (lowest_card(cards) % 10 + 1)) & 0xFF
        cards &= cards - 1
    return (reach >> 7) & 1 == 1


@numba.njit(cache=True)
def suits(cards):
    """The suits a set of cards holds, as 4 bits."""
    out = 0
    for s in range(4):
        if cards >> (10 * s) & 1023:
            out |= 1 << s
    return out


@numba.njit(cache=True)
def sweeps(obs, card, take):
    """Whether capturing `take` with `card` is a scopa."""
    if obs[TABLE] != take or (obs[LAST_PLAY] and not obs[RULES + R_SCOPA_ON_LAST_PLAY]):
        return False
    return not (obs[RULES + R_ACE_TAKES_ALL] and card % 10 == 0 and take & ACES == 0)


@scopa_sim.params(settebello=1.0, above_ten=1.0, single=1.0, primiera=1.0, coins=1.0,
                  cards=1.0, no_seven=1.0)
@numba.njit(cache=True)
def maxims(obs, cards, takes, params):
    """The move of highest value: base terms plus each maxim times its switch."""
    if cards.shape[0] == 1:
        return 0
    p = params
    best, best_value = 0, -1e18
    for i in range(cards.shape[0]):
        card, take = cards[i], takes[i]
        gained = take | (1 << card) if take else 0          # into our pile
        left = obs[TABLE] ^ take if take else obs[TABLE] | (1 << card)
        value = 0.0
        if take:                                            # base
            value += CAPTURE + SCOPA * sweeps(obs, card, take)
        value += p[0] * W_SETTEBELLO * (gained & SETTEBELLO != 0)        # 1 settebello
        if not obs[LAST_PLAY] and left:
            value += p[1] * W_ABOVE_TEN * (rank_sum(left) > 10)          # 2 above ten
            value -= p[2] * W_SINGLE * (count(left) == 1)                # 3 single card
            value -= p[6] * W_SETS_SEVEN * (obs[UNSEEN] & SEVENS != 0 and makes_seven(left))  # 7
        value += p[3] * (W_SEVEN * count(gained & SEVENS) + W_SIX * count(gained & SIXES)
                         + W_NEW_SUIT * count(suits(gained) & ~suits(obs[PILES + obs[SIDE]])))  # 4
        value += p[4] * (W_COIN_TAKEN * count(gained & COINS)
                         - W_COIN_TRAILED * (take == 0 and card < 10))   # 5 coins
        value += p[5] * W_CARD * count(take)                             # 6 more cards
        value += TIE * (((obs[RANDOM] + i) * 0x5851F42D4C957F2D >> 40) & 0xFFFF)
        if value > best_value:
            best, best_value = i, value
    return best
