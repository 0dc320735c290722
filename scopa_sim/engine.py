"""The checked, step-by-step face of the engine: legal moves of a position,
and a `Game` round that can be dealt, stepped, replayed and printed.

The moves and scores come from the same kernels as the simulator; this module
adds the checks and the bookkeeping a person needs.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from . import kernels
from .cards import Card, card_name, cards_of, mask_of, names, parse_card, parse_cards
from .kernels import layout as L, position as P
from .rules import Rules

Move = tuple[int, tuple[int, ...]]


def side_fields(rules: Rules) -> list[str]:
    """The per-side result fields of a round under these rules (points for
    re bello and napola only where the rule is on; no game score)."""
    skip = {"score"} | ({"pt_re_bello"} - ({"pt_re_bello"} if rules.re_bello else set())) \
        | ({"pt_napola"} - ({"pt_napola"} if rules.napola else set()))
    return [f for f in L.SIDE_FIELDS if f not in skip]


class _Buffers:
    """Scratch arrays for kernel calls from Python (one set per call site)."""

    def __init__(self):
        (self.rng, self.deck, self.pos, self.work, self.cards, self.takes,
         self.log, self.out, self.info, self.search) = kernels.scratch()


def _disjoint(hand: Sequence[int], table: Sequence[int]) -> None:
    both = set(hand) & set(table)
    if both:
        raise ValueError(f"card {card_name(min(both))} is both in the hand and on the table")


def legal_captures(table: str | Iterable[Card], card: Card,
                   rules: str | Rules = "scopa") -> list[tuple[int, ...]]:
    """The sets of table cards `card` can capture, in canonical order (each
    ascending); empty when it can only be trailed."""
    rules = Rules.resolve(rules)
    table, card = parse_cards(table), parse_card(card)
    _disjoint([card], table)
    b = _Buffers()
    n = kernels.captures_of(np.uint64(mask_of(table)), card, rules.pack(), b.takes, b.work)
    return [tuple(cards_of(int(m))) for m in b.takes[:n]]


def legal_moves(hand: str | Iterable[Card], table: str | Iterable[Card],
                rules: str | Rules = "scopa") -> list[Move]:
    """Every legal (card, captured cards) of `hand` on `table`, canonical order;
    a trail captures ()."""
    rules = Rules.resolve(rules)
    hand, table = parse_cards(hand), parse_cards(table)
    _disjoint(hand, table)
    return _moves(mask_of(hand), mask_of(table), rules.pack(), _Buffers())


def _moves(hand: int, table: int, packed: np.ndarray, b: _Buffers) -> list[Move]:
    n = kernels.legal_moves(np.uint64(hand), np.uint64(table), packed, b.cards, b.takes, b.work)
    return [(int(c), tuple(cards_of(int(m)))) for c, m in zip(b.cards[:n], b.takes[:n])]


class Game:
    """One round, played move by move with every move checked.

    Deal it from a deck order (`Game(deck=..., dealer=...)`, the kernel's deal:
    table first, then a card at a time from the leader) or set a position
    (`Game.from_position(hands=..., table=..., deck=...)`). `play` checks
    each move; `log()` prints the round.
    """

    def __init__(self, rules: str | Rules = "scopa", deck: str | Iterable[Card] | None = None,
                 dealer: int = 0):
        self.rules = Rules.resolve(rules)
        deck = parse_cards(deck) if deck is not None else list(range(40))
        if sorted(deck) != list(range(40)):
            raise ValueError(f"a deck order lists all 40 cards once (got {len(deck)})")
        if not 0 <= dealer < self.rules.players:
            raise ValueError(f"dealer must be a seat 0..{self.rules.players - 1}")
        table = deck[:self.rules.table_size]
        self._setup(dealer, [[] for _ in range(self.rules.players)], table,
                    deck[self.rules.table_size:])

    @classmethod
    def from_position(cls, hands: Sequence[str | Iterable[Card]], table: str | Iterable[Card],
                      rules: str | Rules = "scopa", deck: str | Iterable[Card] = (),
                      dealer: int = 0, turn: int | None = None) -> Game:
        """A round from explicit hands (one per seat), table and undealt deck;
        `turn` is the seat to play (default: the seat after the dealer)."""
        game = cls.__new__(cls)
        game.rules = Rules.resolve(rules)
        hands = [parse_cards(h) for h in hands]
        if len(hands) != game.rules.players:
            raise ValueError(f"give a hand for each of the {game.rules.players} seats")
        table, deck = parse_cards(table), parse_cards(deck)
        everything = [c for h in hands for c in h] + table + deck
        if len(set(everything)) != len(everything):
            dup = next(c for c in everything if everything.count(c) > 1)
            raise ValueError(f"card {card_name(dup)} is in two places")
        game._setup(dealer, hands, table, deck)
        if turn is not None:
            game.turn = turn
        return game

    def _setup(self, dealer, hands, table, deck):
        r = self.rules
        self.dealer = dealer
        self.leader = (dealer + 1) % r.players
        self.turn = self.leader
        self.hands = [sorted(h) for h in hands]
        self.table = list(table)
        self.deck = list(deck)
        self.piles = [[] for _ in range(r.n_sides)]
        self.scopas = [0] * r.n_sides
        self.last_capturer = -1
        self.captures = 0
        self.moves: list[tuple[int, int, tuple[int, ...]]] = []
        self._events: list[str] = []
        self._packed = r.pack()
        self._buffers = _Buffers()
        self._leftover = None
        self._deal_if_needed()

    def copy(self) -> Game:
        """An independent copy of the round so far (for search and what-ifs)."""
        game = Game.__new__(Game)
        game.__dict__.update(self.__dict__)
        game.hands = [list(h) for h in self.hands]
        game.table, game.deck = list(self.table), list(self.deck)
        game.piles = [list(p) for p in self.piles]
        game.scopas, game.moves, game._events = list(self.scopas), list(self.moves), list(self._events)
        return game

    # -- state ------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._leftover is not None

    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to play, canonical order."""
        if self.done:
            return []
        return _moves(mask_of(self.hands[self.turn]), mask_of(self.table), self._packed,
                      self._buffers)

    def _deal_if_needed(self):
        if any(self.hands) or not self.deck:
            return
        n, h = self.rules.players, self.rules.hand_size
        if not self.rules.refill and self.moves:
            return
        deal, self.deck = self.deck[:n * h], self.deck[n * h:]
        for i, c in enumerate(deal):
            self.hands[(self.leader + i) % n].append(c)
        self.hands = [sorted(hand) for hand in self.hands]
        self.turn = self.leader
        self._events.append("deal: " + " | ".join(
            f"seat {s}: {names(self.hands[s])}" for s in range(n)) + f" | table: {names(self.table)}")

    def _is_last_play(self) -> bool:
        return not self.deck and sum(len(h) for h in self.hands) == 1

    # -- moves ------------------------------------------------------------
    def play(self, card: Card, captured: str | Iterable[Card] | None = None) -> Move:
        """Play `card` taking `captured` (omit it when the card has one legal
        move); raises ValueError for an illegal move, listing the legal ones."""
        if self.done:
            raise ValueError("the round is over")
        c = parse_card(card)
        options = [m for m in self.legal_moves() if m[0] == c]
        if not options:
            raise ValueError(f"seat {self.turn} cannot play {card_name(c)}: "
                             f"hand is {names(self.hands[self.turn])}")
        if captured is None:
            if len(options) > 1:
                raise ValueError(f"{card_name(c)} can take {self._choices(options)}: say which")
            move = options[0]
        else:
            take = tuple(sorted(parse_cards(captured)))
            move = (c, take)
            if move not in options:
                raise ValueError(f"{card_name(c)} cannot take {names(take) or 'nothing'}: "
                                 f"it can take {self._choices(options)}")
        self._apply(*move)
        return move

    @staticmethod
    def _choices(options) -> str:
        return " or ".join(names(t) if t else "nothing (trail)" for _, t in options)

    def _apply(self, c: int, take: tuple[int, ...]):
        seat, side = self.turn, self.rules.teams[self.turn]
        last = self._is_last_play()
        self.hands[seat].remove(c)
        self.moves.append((seat, c, take))
        if take:
            scopa = bool(kernels.moves.clears_for_scopa(
                np.uint64(mask_of(self.table)), np.uint64(mask_of(take)), c, last, self._packed))
            self.table = [t for t in self.table if t not in take]
            self.piles[side] += [c, *take]
            self.last_capturer = seat
            self.captures += 1
            self.scopas[side] += scopa
            text = f"seat {seat} plays {card_name(c)} takes {names(take)}" + (" SCOPA" if scopa else "")
        else:
            self.table.append(c)
            text = f"seat {seat} plays {card_name(c)} trails"
        self._events.append(f"{text:<40} table: {names(self.table) or '(empty)'}")
        self.turn = (seat + 1) % self.rules.players
        if not any(self.hands) and not self.deck:
            self._finish()
        else:
            self._deal_if_needed()

    def _finish(self):
        self._leftover = len(self.table)
        if self.last_capturer >= 0 and self.table:
            self._events.append(f"seat {self.last_capturer} takes the last cards: {names(self.table)}")
            self.piles[self.rules.teams[self.last_capturer]] += self.table
            self.table = []

    # -- results ----------------------------------------------------------
    def result(self) -> dict:
        """The round's record: the simulator's columns, for a finished round."""
        if not self.done:
            raise ValueError("the round is not over")
        r = self.rules
        piles = np.zeros(L.MAX_PLAYERS, np.uint64)
        scopas = np.zeros(L.MAX_PLAYERS, np.int64)
        for t in range(r.n_sides):
            piles[t] = mask_of(self.piles[t])
            scopas[t] = self.scopas[t]
        out = np.zeros((r.n_sides, L.N_SIDE), np.int16)
        kernels.score_round(piles, scopas, self._packed, r.primiera_table(), out)
        row = {"dealer": self.dealer, "last_capturer": self.last_capturer,
               "leftover": self._leftover, "captures": self.captures}
        for t in range(r.n_sides):
            for name in side_fields(r):
                row[f"{name}_{t}"] = int(out[t, L.SIDE_FIELDS.index(name)])
        return row

    def suggest(self, strategy: str = "pimc", seed: int = 0) -> Move:
        """The move `strategy` (e.g. "pimc:samples=100", "endgame") would play
        for the seat to move, seeing only what that seat sees."""
        from .strategies import parse_strategy
        if self.done:
            raise ValueError("the round is over")
        s = parse_strategy(strategy)
        pos, deck = self.kernel_position()
        b = self._buffers
        n = kernels.legal_moves(pos[P.HAND + self.turn], pos[P.TABLE], self._packed,
                                b.cards, b.takes, b.work)
        kernels.rng.stream(np.uint64(seed), 0, b.rng)
        i = kernels.strategies.choose(s.spec.id, s.vector(), self.turn, pos, deck, self._packed,
                                      self.rules.primiera_table(), n, b.cards, b.takes, b.rng,
                                      b.work, b.search)
        return int(b.cards[i]), tuple(cards_of(int(b.takes[i])))

    def kernel_position(self) -> tuple[np.ndarray, np.ndarray]:
        """The round as the kernel's position array and deck order (the undealt
        cards last, in dealing order)."""
        pos = np.zeros(P.POS_SIZE, np.uint64)
        for seat, hand in enumerate(self.hands):
            pos[P.HAND + seat] = mask_of(hand)
        for side, pile in enumerate(self.piles):
            pos[P.PILE + side] = mask_of(pile)
            pos[P.SCOPAS + side] = self.scopas[side]
        pos[P.TABLE] = mask_of(self.table)
        pos[P.LAST] = self.last_capturer + 1
        pos[P.TURN] = self.turn
        pos[P.PLAYS] = len(self.moves)
        pos[P.TOTAL] = len(self.moves) + sum(map(len, self.hands)) + len(self.deck)
        pos[P.DECK] = L.N_CARDS - len(self.deck)
        pos[P.CAPTURES] = self.captures
        pos[P.DEALER] = self.dealer
        rest = [c for c in range(L.N_CARDS) if c not in set(self.deck)]
        return pos, np.array(rest + self.deck, np.int64)

    def log(self) -> str:
        """The round so far as readable text, a line per deal and move."""
        lines = [f"dealer: seat {self.dealer}", *self._events]
        if self.done:
            res = self.result()
            for t in range(self.rules.n_sides):
                lines.append(f"side {t}: " + ", ".join(
                    f"{f} {res[f'{f}_{t}']}" for f in ("cards", "coins", "settebello", "primiera",
                                                       "scopas", "points")))
        return "\n".join(lines)
