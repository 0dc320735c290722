"""Kernel positions built in one place: from hands, table and undealt deck
(`position_arrays`: `Round.from_position`, a round changed by hand), or
written out from the seat to play's view (`build_position`: advise).
A position is the kernel's array (`kernels.position`) and its deck order."""
from __future__ import annotations

import functools

import numpy as np

from ..kernels import layout as L, position as P
from .cards import card_with_alias, mask_of, parse_cards
from .checks import pair, plural
from .rules import Rules

OUT = P.OUT     # the pile slot of cards out of the round (no side's)


def not_in_play(rules: Rules, cards) -> None:
    """ValueError (one line) if a card of `cards` is set aside by the rules."""
    aside = set(rules.set_aside).intersection(cards)
    if aside:
        raise ValueError(f"card {card_with_alias(min(aside))} is not in play: {rules.name} "
                         f"plays A up to rank {rules.ranks} of every suit")


def position_arrays(rules: Rules, hands, table, deck, plays: int,
                    piles: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A kernel position array and deck order from hands, table and undealt
    deck (lists of cards), `plays` plays into the round, with the piles,
    scopas, last capturer, turn, dealer and captures of `piles` (a position
    array; none: nobody has captured). Every card in none of them and in no
    pile is out of the round: in pile slot OUT, when no side has it. The one
    position builder: `Round.from_position`, a round changed by hand and
    `build_position` build here."""
    pos = np.zeros(P.POS_SIZE, np.uint64) if piles is None else piles.copy()
    for seat in range(L.MAX_PLAYERS):
        pos[P.HAND + seat] = mask_of(hands[seat]) if seat < len(hands) else 0
    pos[P.TABLE] = mask_of(table)
    pos[P.PLAYS] = plays
    pos[P.TOTAL] = plays + sum(map(len, hands)) + len(deck)
    pos[P.DECK] = L.N_CARDS - len(deck)
    if rules.n_sides < L.MAX_PLAYERS:
        held = pos[P.HAND:P.PILE + OUT].tolist() + [int(pos[P.TABLE]), mask_of(deck)]
        pos[P.PILE + OUT] = int(L.ALL_CARDS) & ~functools.reduce(int.__or__, held)
    undealt = set(deck)
    return pos, np.array([c for c in range(L.N_CARDS) if c not in undealt] + list(deck),
                         np.int64)


def build_position(rules: Rules, hand, table, seen=(), mine=(), theirs=(), scopas=None,
                   last=None) -> tuple[np.ndarray, np.ndarray]:
    """The kernel position (seat 0 to play) and deck order of a position
    written out from the seat to play's view; ValueError (one line) if the
    rules cannot reach it.

    `hand`: the seat's cards; `table`; `seen`: cards out of play whose pile
    does not matter (they score for nobody); `mine` / `theirs`: the piles of
    the seat's side and (two sides only) of the other side; `scopas`
    (mine, theirs); `last`: "mine" or "theirs", the side that captured last
    (default: the only side with a pile; with neither, nobody, so leftovers
    nobody captures after stay unscored). Every other card is in the other
    hands or the undealt deck. The plays so far follow from the counts (the
    table and the piles, less the cards first dealt to the table), and from
    them the deal: who leads, every hand's size, the deck's size.
    """
    n, h, t = rules.players, rules.hand_size, rules.table_size
    given = {"hand": parse_cards(hand), "table": parse_cards(table), "seen": parse_cards(seen),
             "mine": parse_cards(mine), "theirs": parse_cards(theirs)}
    total = sum(map(len, given.values()))
    if total > L.N_CARDS:
        raise ValueError(f"{total} cards given: the deck holds {L.N_CARDS}")
    where: dict[int, str] = {}
    for place, cs in given.items():
        for c in cs:
            if c in where:
                raise ValueError(f"card {card_with_alias(c)} is in two places: {where[c]} "
                                 f"and {place}")
            where[c] = place
    hand, table, seen, mine, theirs = given.values()
    not_in_play(rules, where)
    if theirs and rules.n_sides != 2:
        raise ValueError(f"{rules.name} has {rules.n_sides} sides: give the other sides' "
                         f"captured cards as seen")
    if seen and rules.n_sides == L.MAX_PLAYERS:
        raise ValueError(f"with {rules.n_sides} sides there is no pile for cards seen out of "
                         f"play (only mine can be given)")
    if not hand:
        raise ValueError("the hand is empty: give the cards of the seat to play")
    if len(hand) > h:
        raise ValueError(f"a hand of {plural(len(hand), 'card')}: {rules.name} deals "
                         f"{plural(h, 'card')}")
    plays = len(table) + len(seen) + len(mine) + len(theirs) - t
    if plays < 0:
        raise ValueError(f"{plural(t + plays, 'card')} {'is' if t + plays == 1 else 'are'} on "
                         f"the table or out of play: a round starts "
                         f"with {t} on the table (give captured cards as mine, theirs or seen)")
    per_deal = n * h
    round_cards = rules.deck_size - t if rules.refill else per_deal
    if plays >= round_cards:
        raise ValueError(f"{plays} cards have been played: the round is over after "
                         f"{round_cards}")
    q, r = divmod(plays % per_deal, n)            # turns round the table this deal, and past
    if len(hand) != h - q:
        raise ValueError(f"a hand of {plural(len(hand), 'card')} after {plural(plays, 'play')}: "
                         f"the seat to play holds {h - q} (the table, the piles and the seen "
                         f"cards say how many cards were played; a deal gives {h} to each of "
                         f"{n} players)")
    sides = pair(scopas, "scopas") if scopas is not None else (0, 0)
    if sides[1] and rules.n_sides != 2:
        raise ValueError("scopas of the other side need rules with two sides")
    captures = 0                     # the fewest captures the piles and scopas need
    for k, pile, who in ((0, mine, "mine"), (1, theirs, "theirs")):
        if len(pile) == 1:
            raise ValueError(f"a pile of one card ({who}): a capture takes the card played "
                             f"and at least one from the table")
        if sides[k] > len(pile) // 2:
            raise ValueError(f"{sides[k]} scopas for {who} need at least {2 * sides[k]} cards "
                             f"in that pile, not {len(pile)}")
        captures += max(sides[k], len(pile) > 0)
    if plays < max(captures, len(seen) > 0):
        raise ValueError(f"the piles and seen cards need at least "
                         f"{plural(max(captures, 1), 'play')}, but with {len(table)} cards on "
                         f"the table the counts say {plural(plays, 'play')} (a round starts "
                         f"with {t} on the table)")
    if last is None:
        last = "mine" if mine and not theirs else "theirs" if theirs and not mine else None
        if mine and theirs:
            raise ValueError("both sides have captured: say which captured last "
                             "(last: mine or theirs)")
    elif last not in ("mine", "theirs"):
        raise ValueError(f"last is mine or theirs, not {last!r}")
    elif not (mine if last == "mine" else theirs):
        raise ValueError(f"{last} captured last but that pile is empty")

    # Seat 0 plays: the leader is r seats before it; the seats from the leader
    # up to seat 0 have played this deal (one card fewer). The other hands
    # hold placeholders, as the deck does: a rollout deals them afresh.
    leader = -r % n
    aside = set(rules.set_aside)
    unknown = [c for c in range(L.N_CARDS) if c not in where and c not in aside]
    hands = [hand]
    for s in range(1, n):
        size = h - q - ((s - leader) % n < r)
        hands.append(unknown[:size])
        unknown = unknown[size:]
    base = np.zeros(P.POS_SIZE, np.uint64)     # the piles, scopas, last capturer, turn, dealer
    ours = rules.teams[0]
    base[P.PILE + ours] = mask_of(mine)
    base[P.SCOPAS + ours] = sides[0]
    if rules.n_sides == 2:
        base[P.PILE + 1 - ours] = mask_of(theirs)
        base[P.SCOPAS + 1 - ours] = sides[1]
    base[P.LAST] = 0 if last is None else 1 if last == "mine" else n     # seat 0, or seat n-1
    base[P.TURN] = 0
    base[P.DEALER] = (leader - 1) % n
    return position_arrays(rules, hands, table, unknown, plays, piles=base)
