"""A slow, obviously-correct reference of the three cautious fast strategies,
``heuristic``, ``counter`` and ``reply`` (kernels/heuristics.py `cautious`),
written from what they mean rather than from the kernel's bit tricks.

Cards are plain ints 0..39 (``suit * 10 + rank - 1``, suit 0 coins, the
settebello is 6), sets and lists; the card helpers, the legal moves, the
scopa rule and greedy's score come from the reference engine (``engine.py``).
Nothing here imports ``kernels`` or ``scopa_sim``.

A strategy scores each legal move and plays the best, the first in canonical
order on a tie. A score is in hundredths of a card::

    value = gain - exposure

``gain`` is greedy's score: for a capture the worth of the cards taken and
the card played, plus the ``scopa`` weight when it scores a scopa; for a
trail minus the worth of the card trailed. The worth of a card is ``card``,
plus ``coin`` for a coin, plus ``settebello`` for the settebello, plus
``primiera`` times its primiera value (the standard values, whatever the
rules' primiera scale).

``exposure`` is what the table the move leaves (``after``) costs when the
next player to move answers it. It is 0 on the round's last play, when the
next seat is a partner (same side), and when ``after`` is empty. Otherwise,
with ``chance(r)`` the probability that the next player holds a card of
rank r:

* ``sweep`` x chance(s) when the ranks on ``after`` sum to s <= 10 (a card
  of rank s takes the whole table);
* ``seven`` x chance(7) for each seven left;
* ``settebello_exposed`` x chance(7) when the settebello is left;
* ``coin_exposed`` x chance(rank) for each coin left;
* reply only: ``match`` x worth x chance(rank) for each card left, and
  ``pair`` x (worth of both) x chance(r) for each unordered pair of cards
  left whose ranks sum to r <= 10 when no card of rank r is left (with one
  on the table, a card of rank r would have to take it instead).

``heuristic`` takes every chance as 1 (the next player is assumed to hold
everything). ``counter`` and ``reply`` count cards: the next player's hand
is taken as dealt at random from the cards the seat has not seen (not in
its hand, on the table or in any pile), of the size it holds now, or the
rules' hand size when it holds none (a new deal comes first), and

    chance(r) = P(a hand of h cards from the `total` unseen holds at least
                  one of the `good` unseen cards of rank r)
              = 1 - C(total - good, h) / C(total, h)

(reply's ``match`` and ``pair`` terms always use that counted chance).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from .engine import (N_CARDS, SETTEBELLO, RefRules, greedy_score, is_coin, legal_moves, rank,
                     worth)

CAUTIOUS = ("heuristic", "counter", "reply")


@dataclasses.dataclass(frozen=True)
class View:
    """What the seat to move sees, and all the strategies read.

    ``captured`` holds every card in any side's pile (and any card known to
    be out of the round). ``next_hand`` is how many cards the next seat
    holds now. ``last_play``: whether this play is the round's last.
    """

    seat: int
    hand: tuple[int, ...]
    table: tuple[int, ...]
    captured: tuple[int, ...]
    next_hand: int
    last_play: bool

    def unseen(self) -> set[int]:
        """The cards the seat has not seen: in the other hands or the deck."""
        return set(range(N_CARDS)) - set(self.hand) - set(self.table) - set(self.captured)


def chance_to_hold(total: int, good: int, h: int) -> float:
    """P(a hand of h cards dealt from ``total`` cards holds one of the ``good`` ones)."""
    if good == 0 or h == 0:
        return 0.0
    if h > total - good:           # too few other cards to fill the hand without one
        return 1.0
    return 1.0 - math.comb(total - good, h) / math.comb(total, h)


def next_seat(seat: int, rules: RefRules) -> int:
    return (seat + 1) % rules.players


def table_after(table, move) -> list[int]:
    """The table a move leaves: the captured cards gone, or the trailed card added."""
    card, captured = move
    if captured:
        return sorted(set(table) - set(captured))
    return sorted(set(table) | {card})


def exposure(strategy: str, params, rules: RefRules, view: View, move) -> float:
    """What the table the move leaves costs when the next player answers."""
    if strategy not in CAUTIOUS:
        raise ValueError(f"not a cautious strategy: {strategy!r}")
    if view.last_play:
        return 0.0
    nxt = next_seat(view.seat, rules)
    if rules.teams[nxt] == rules.teams[view.seat]:
        return 0.0
    after = table_after(view.table, move)
    if not after:
        return 0.0

    unseen = view.unseen()
    h = view.next_hand if view.next_hand > 0 else rules.hand_size

    def counted(r: int) -> float:
        good = sum(1 for c in unseen if rank(c) == r)
        return chance_to_hold(len(unseen), good, h)

    def chance(r: int) -> float:
        return 1.0 if strategy == "heuristic" else counted(r)

    cost = 0.0
    total = sum(rank(c) for c in after)
    if total <= 10:
        cost += params["sweep"] * chance(total)
    sevens = [c for c in after if rank(c) == 7]
    cost += params["seven"] * len(sevens) * chance(7)
    if SETTEBELLO in after:
        cost += params["settebello_exposed"] * chance(7)
    for c in after:
        if is_coin(c):
            cost += params["coin_exposed"] * chance(rank(c))
    if strategy == "reply":
        for c in after:
            cost += params["match"] * worth(c, params) * counted(rank(c))
        ranks_left = {rank(c) for c in after}
        for c, d in itertools.combinations(after, 2):
            r = rank(c) + rank(d)
            if r <= 10 and r not in ranks_left:
                cost += params["pair"] * (worth(c, params) + worth(d, params)) * counted(r)
    return cost


def gain(params, rules: RefRules, view: View, move) -> float:
    """Greedy's score: worth taken (+ scopa), or minus the worth trailed."""
    return greedy_score(move, list(view.table), view.last_play, params, rules)


def move_value(strategy: str, params, rules: RefRules, view: View, move) -> float:
    """The score ``strategy`` (heuristic, counter or reply) with ``params``
    (a mapping by parameter name) gives ``move`` = (card, captured tuple)."""
    return gain(params, rules, view, move) - exposure(strategy, params, rules, view, move)


def moves_of(rules: RefRules, view: View):
    """The legal moves of the seat's hand on the table, canonical order."""
    return legal_moves(list(view.hand), list(view.table), rules)


def values(strategy: str, params, rules: RefRules, view: View) -> list[float]:
    """Every legal move's score, canonical order."""
    return [move_value(strategy, params, rules, view, m) for m in moves_of(rules, view)]


def choose(strategy: str, params, rules: RefRules, view: View) -> int:
    """Index (canonical order) of the move the strategy plays: the best
    score, the first on a tie."""
    scores = values(strategy, params, rules, view)
    best = max(scores)
    return scores.index(best)
