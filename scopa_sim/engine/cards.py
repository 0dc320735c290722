"""Cards and their notation.

A card is an int 0..39, `suit*10 + rank - 1`: suits coins (d, ♦), cups
(h, ♥), swords (s, ♠), clubs (c, ♣); ranks 1..10 with A=1 and J/Q/K the
fante/cavallo/re = 8/9/10. Notation: rank then suit, case-insensitive:
`7d`, `Kc`, `10s`, `As`, `7♦`. A set of cards is an int bitmask.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from .checks import shown
SUITS = "dhsc"
SUIT_SYMBOLS = "♦♥♠♣"
SUIT_NAMES = ("coins", "cups", "swords", "clubs")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
_RANKS = {"A": 1, "J": 8, "Q": 9, "K": 10, **{str(r): r for r in range(1, 11)}}
_SUITS = {**{s: i for i, s in enumerate(SUITS)}, **{s: i for i, s in enumerate(SUIT_SYMBOLS)}}
_TOKEN = re.compile(r"^(10|[1-9]|[AJQK])([DHSC♦♥♠♣])$", re.IGNORECASE)
EXAMPLE = "write rank then suit, e.g. 7d, Kc, 10s, As or 7♦"

Card = int | str


def card(rank: int, suit: int) -> int:
    """The card of this rank (1..10) and suit index (0..3)."""
    return suit * 10 + rank - 1


def rank_of(c: int) -> int:
    return c % 10 + 1


def suit_of(c: int) -> int:
    return c // 10


def parse_card(token: Card) -> int:
    """A card from its notation (or an int 0..39); ValueError names a bad one."""
    if isinstance(token, int) and not isinstance(token, bool):
        if 0 <= token < 40:
            return token
        raise ValueError(f"bad card {shown(token)!r}: card numbers run 0..39 ({EXAMPLE})")
    m = _TOKEN.match(str(token).strip().replace("\ufe0f", ""))
    if not m:
        raise ValueError(f"bad card {shown(token)!r}: {EXAMPLE}")
    return card(_RANKS[m.group(1).upper()], _SUITS[m.group(2).lower()])


def parse_cards(spec: str | Iterable[Card]) -> list[int]:
    """Cards from "7d Kc 2h" (spaces or commas) or an iterable; no repeats."""
    try:
        tokens = re.split(r"[\s,]+", spec.strip()) if isinstance(spec, str) else list(spec)
    except TypeError:
        raise ValueError(f"cards are a text like '7d Kc 2h' or a list of cards, "
                         f"not {spec!r}") from None
    cards = [parse_card(t) for t in tokens if t != ""]
    seen = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"card {card_with_alias(c)} is listed twice")
        seen.add(c)
    return cards


def card_name(c: int) -> str:
    """Short notation: `7d`, `Kc`, `As`."""
    return RANK_NAMES[c % 10] + SUITS[c // 10]


def card_with_alias(c: int) -> str:
    """A duplicated card for an error: `Jc (also written 8c)`, since a face
    card has two spellings and the user may have written both."""
    also = f" (also written {c % 10 + 1}{SUITS[c // 10]})" if c % 10 >= 7 else ""
    return card_name(c) + also


def names(cards: Iterable[int]) -> str:
    """Cards as notation, space-separated."""
    return " ".join(card_name(c) for c in cards)


def move_text(card: int, take: Iterable[int]) -> str:
    """A move as advise and review write it: `7d takes 2c 5s`, `As trails`."""
    take = list(take)
    return f"{card_name(card)} " + (f"takes {names(take)}" if take else "trails")


class Move(NamedTuple):
    """A move: the card played and the table cards it captures (ascending;
    () for a trail). A tuple for code, `(6, (13, 22))`, that reads as cards
    when printed:

        >>> m = Move(6, (13, 22))
        >>> print(m), m == (6, (13, 22)), m.card, m.captured
        7d takes 4h 3s
        (None, True, 6, (13, 22))
        >>> m
        Move(7d takes 4h 3s)
    """
    card: int
    captured: tuple[int, ...]

    def __str__(self) -> str:
        return move_text(self.card, self.captured)

    def __repr__(self) -> str:
        return f"Move({self})"


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask of a set of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a bitmask (an int or a numpy integer), ascending: a loop
    over its set bits."""
    mask, out = int(mask), []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
