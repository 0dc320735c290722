"""The checked, step-by-step face of the engine: legal moves of a position,
and a `Round` round that can be dealt, stepped, replayed and printed.

The moves and scores come from the same kernels as the simulator; this module
adds the checks and the bookkeeping a person needs.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from . import kernels, schema
from .checks import MAX_SEED, SEED_SPAN, whole
from .cards import Card, card_name, cards_of, mask_of, names, parse_card, parse_cards
from .kernels import layout as L, position as P
from .rules import Rules

Move = tuple[int, tuple[int, ...]]
OUT = L.MAX_PLAYERS - 1     # the pile slot of cards out of the round (no side's)


class _Buffers:
    """Scratch arrays for kernel calls from Python (one set per call site)."""

    def __init__(self):
        (self.rng, self.deck, self.pos, self.work, self.cards, self.takes,
         self.log, self.out, self.info, self.search, self.users) = kernels.scratch()


def _disjoint(hand: Sequence[int], table: Sequence[int]) -> None:
    both = set(hand) & set(table)
    if both:
        raise ValueError(f"card {card_name(min(both))} is both in the hand and on the table")


def _seat(what: str, value, players: int) -> int:
    """A seat number 0..players-1: an int, not a bool."""
    return whole(value, what, 0, players - 1, f"a seat 0..{players - 1}")


def _seed(seed) -> np.uint64:
    return np.uint64(whole(seed, "seed", 0, MAX_SEED, SEED_SPAN))


def _hands(hands, players: int) -> list[list[int]]:
    """One hand per seat, each parsed."""
    if isinstance(hands, str) or not isinstance(hands, Iterable):
        raise ValueError(f"hands is a list of one hand per seat, e.g. ['7d 2c', 'Kc 3d'], "
                         f"not {hands!r}")
    hands = [parse_cards(h) for h in hands]
    if len(hands) != players:
        raise ValueError(f"give a hand for each of the {players} seats (got {len(hands)})")
    return hands


def _check_position(rules: Rules, hands: list[list[int]], table: list[int],
                    deck: list[int], dealer: int) -> int:
    """Check that hands, table and undealt deck (distinct cards) are a position
    these rules can reach; return the seat to play.

    Every card in none of them was played before (it is out of the round).
    Each deal gives `hand_size` cards to every seat and play goes round from
    the leader, so going round from the leader the hand sizes never fall and
    rise by at most one: the seats that have played this deal come first.
    """
    n, h, t = rules.players, rules.hand_size, rules.table_size
    leader = (dealer + 1) % n
    sizes = [len(hands[(leader + i) % n]) for i in range(n)]
    in_hands, undealt = sum(sizes), len(deck)
    if max(sizes) > h:
        raise ValueError(f"a hand holds {max(sizes)} cards: these rules deal {h}")
    if any(a > b for a, b in zip(sizes, sizes[1:])) or sizes[-1] - sizes[0] > 1:
        raise ValueError(f"hand sizes {', '.join(map(str, sizes))} going round from the leader "
                         f"(seat {leader}) do not fit the turn order: a seat that has played this "
                         f"deal holds one card fewer than the seats still to play")
    if rules.refill and undealt % (n * h):
        raise ValueError(f"the deck holds {undealt} cards: with new deals of {h} to {n} players "
                         f"it holds a multiple of {n * h}")
    if not rules.refill and undealt and (in_hands or undealt != n * h):
        raise ValueError(f"the deck holds {undealt} cards: without new deals it holds the "
                         f"{n * h} cards of the one deal until they are dealt, then none")
    if not in_hands and not undealt:
        raise ValueError("no card is left to play: the round is over")
    played = L.N_CARDS - t - undealt - in_hands
    if played < 0:
        raise ValueError(f"hands and deck hold {in_hands + undealt} cards: a round deals "
                         f"{L.N_CARDS - t} after the {t} to the table")
    if played == 0 and len(table) != t:
        raise ValueError(f"before the first play the table holds the {t} cards dealt to it, "
                         f"not {len(table)}")
    return (leader + sizes.index(max(sizes))) % n


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
    if hand >> L.N_CARDS or table >> L.N_CARDS or hand & table:
        raise ValueError("the hand and the table must be distinct cards 0..39")
    n = kernels.legal_moves(np.uint64(hand), np.uint64(table), packed, b.cards, b.takes, b.work)
    return [(int(c), tuple(cards_of(int(m)))) for c, m in zip(b.cards[:n], b.takes[:n])]


class Round:
    """One round, played move by move with every move checked.

    Deal it from a deck order (`Round(deck=..., dealer=...)`, the kernel's deal:
    table first, then a card at a time from the leader) or set a position
    (`Round.from_position(hands=..., table=..., deck=...)`). `play` checks
    each move; `log()` prints the round.
    """

    def __init__(self, rules: str | Rules = "scopa", deck: str | Iterable[Card] | None = None,
                 dealer: int = 0):
        self.rules = Rules.resolve(rules)
        deck = parse_cards(deck) if deck is not None else list(range(40))
        if sorted(deck) != list(range(40)):
            raise ValueError(f"a deck order lists all 40 cards once (got {len(deck)})")
        dealer = _seat("dealer", dealer, self.rules.players)
        self.deck_order = list(deck)           # the round as dealt (None from a position)
        table = deck[:self.rules.table_size]
        self._setup(dealer, [[] for _ in range(self.rules.players)], table,
                    deck[self.rules.table_size:])

    @classmethod
    def from_position(cls, hands: Sequence[str | Iterable[Card]], table: str | Iterable[Card],
                      rules: str | Rules = "scopa", deck: str | Iterable[Card] = (),
                      dealer: int = 0, turn: int | None = None) -> Round:
        """A round from explicit hands (one per seat), table and undealt deck
        (in dealing order), checked to be reachable under the rules.

        Cards in none of them are out of the round: played and captured
        before, in no side's pile (they score for nobody; nobody has captured
        yet as far as this round knows). The hand sizes fix the seat to play
        (see `_check_position`); `turn`, if given, must be that seat.
        """
        game = cls.__new__(cls)
        game.rules = r = Rules.resolve(rules)
        game.deck_order = None
        hands = _hands(hands, r.players)
        table, deck = parse_cards(table), parse_cards(deck)
        everything = [c for h in hands for c in h] + table + deck
        if len(set(everything)) != len(everything):
            dup = next(c for c in everything if everything.count(c) > 1)
            raise ValueError(f"card {card_name(dup)} is in two places")
        dealer = _seat("dealer", dealer, r.players)
        seat = _check_position(r, hands, table, deck, dealer)
        if turn is not None and _seat("turn", turn, r.players) != seat:
            raise ValueError(f"turn must be seat {seat}, the first seat from the leader "
                             f"holding the most cards, not {turn}")
        game._setup(dealer, hands, table, deck)
        game.turn = seat
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

    def copy(self) -> Round:
        """An independent copy of the round so far (for search and what-ifs)."""
        game = Round.__new__(Round)
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
        kernels.score_round(piles, scopas, self._packed, out)
        row = {"dealer": self.dealer, "last_capturer": self.last_capturer,
               "leftover": self._leftover, "captures": self.captures}
        for t in range(r.n_sides):
            for name in schema.side_fields(r):
                row[f"{name}_{t}"] = int(out[t, L.SIDE_FIELDS.index(name)])
        return row

    def suggest(self, strategy: str = "pimc", seed: int = 0) -> Move:
        """The move `strategy` (e.g. "pimc:samples=100", "endgame") would play
        for the seat to move, seeing only what that seat sees."""
        from .strategies import parse_strategy
        s, seed = parse_strategy(strategy), _seed(seed)
        if self.done:
            raise ValueError("the round is over")
        pos, deck = self.kernel_position()
        _check_kernel_position(self.rules, pos, deck)
        b = self._buffers
        n = kernels.legal_moves(pos[P.HAND + self.turn], pos[P.TABLE], self._packed,
                                b.cards, b.takes, b.work)
        kernels.rng.stream(seed, 0, b.rng)
        i = kernels.batch.call(kernels.strategies.choose, s.spec.id, s.vector(), self.turn, pos,
                               deck, self._packed, n, b.cards, b.takes, b.rng, b.work, b.search,
                               b.users)
        if not 0 <= i < n:
            raise RuntimeError(f"strategy {s} chose move {i} of {n}")
        return int(b.cards[i]), tuple(cards_of(int(b.takes[i])))

    def kernel_position(self) -> tuple[np.ndarray, np.ndarray]:
        """The round as the kernel's position array and deck order (the undealt
        cards last, in dealing order). Cards out of the round (see
        `from_position`) go to the pile of no side, the last slot, so that the
        strategies count them as seen; with six sides there is no such slot
        and they count as unseen."""
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
        if self.rules.n_sides < L.MAX_PLAYERS:
            pos[P.PILE + OUT] = L.ALL_CARDS & ~np.uint64(mask_of(
                [*self.table, *self.deck, *(c for h in self.hands for c in h),
                 *(c for p in self.piles for c in p)]))
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


def _scores(scores, rules: Rules) -> list[int]:
    """Starting scores: one whole number per side, none at the target yet."""
    if scores is None:
        return [0] * rules.n_sides
    scores = list(scores)
    if len(scores) != rules.n_sides or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s < rules.target
            for s in scores):
        raise ValueError(f"scores are {rules.n_sides} whole numbers 0..{rules.target - 1} "
                         f"(one per side, below the target), not {scores!r}")
    return [int(s) for s in scores]


class Game:
    """A game: rounds until a side reaches the target with the top score its
    own (`Rules.game_over`; a tie at the top plays on), the deal passing
    each round. Every round is a checked `Round` (`game.round`); `play`,
    `legal_moves` and `suggest` act on it. The decks come from `decks` (one
    deck order per round: a recorded game, replayed) or are shuffled from
    `seed`. A game may start from a score (`scores`, one per side, below
    the target), as from the middle of a match.
    """

    def __init__(self, rules: str | Rules = "scopa", first_dealer: int = 0,
                 decks: Iterable[str | Iterable[Card]] | None = None, seed: int | None = None,
                 scores: Sequence[int] | None = None):
        import random
        self.rules = Rules.resolve(rules)
        dealer = _seat("first_dealer", first_dealer, self.rules.players)
        self._decks = iter(decks) if decks is not None else None
        self._random = random.Random(None if seed is None else int(_seed(seed)))
        self.scores = _scores(scores, self.rules)
        self._start = tuple(self.scores)
        self.rounds: list[Round] = []
        self._deal(dealer)

    def _deal(self, dealer: int) -> None:
        if self._decks is None:
            deck = list(range(40))
            self._random.shuffle(deck)
        else:
            deck = next(self._decks, None)
            if deck is None:
                raise ValueError(f"the game needs a deck for round {len(self.rounds)}: "
                                 f"only {len(self.rounds)} were given")
        self.rounds.append(Round(self.rules, deck=deck, dealer=dealer))

    @property
    def round(self) -> Round:
        """The round being played (or the last one, once the game is over)."""
        return self.rounds[-1]

    @property
    def done(self) -> bool:
        return self.round.done and self.rules.game_over(self.scores)

    @property
    def winner(self) -> int | None:
        """The side that won, once the game is over."""
        return self.scores.index(max(self.scores)) if self.done else None

    def legal_moves(self) -> list[Move]:
        return [] if self.done else self.round.legal_moves()

    def play(self, card: Card, captured: str | Iterable[Card] | None = None) -> Move:
        """Play a move in the current round (checked as `Round.play`); at the
        end of a round, its points are added and the next round is dealt."""
        if self.done:
            raise ValueError("the game is over")
        move = self.round.play(card, captured)
        if self.round.done:
            result = self.round.result()
            for t in range(self.rules.n_sides):
                self.scores[t] += result[f"points_{t}"]
            if not self.done:
                self._deal((self.round.dealer + 1) % self.rules.players)
        return move

    def suggest(self, strategy: str = "pimc", seed: int = 0) -> Move:
        return self.round.suggest(strategy, seed)

    def log(self) -> str:
        """Every round's log, with the scores after it."""
        lines, scores = [], list(self._start)
        for k, r in enumerate(self.rounds):
            lines += [f"round {k}", r.log()]
            if r.done:
                res = r.result()
                scores = [s + res[f"points_{t}"] for t, s in enumerate(scores)]
                lines.append("score: " + " - ".join(map(str, scores)))
        if self.done:
            lines.append(f"side {self.winner} wins the game")
        return "\n".join(lines)


def _check_kernel_position(rules: Rules, pos: np.ndarray, deck: np.ndarray) -> None:
    """Refuse a kernel position a strategy cannot safely search from. An
    internal check (a ValueError here is a bug in `Round`): a bad position
    must never reach the kernels, which trust their inputs."""
    def bad(why):
        raise ValueError(f"internal: bad kernel position: {why}")

    if pos.dtype != np.uint64 or pos.shape != (P.POS_SIZE,):
        bad("not a uint64 position array")
    if deck.dtype != np.int64 or sorted(deck.tolist()) != list(range(L.N_CARDS)):
        bad("the deck order is not the 40 cards")
    n, at, turn, dealer = (rules.players, int(pos[P.DECK]), int(pos[P.TURN]),
                           int(pos[P.DEALER]))
    if not (rules.table_size <= at <= L.N_CARDS and turn < n and dealer < n
            and int(pos[P.LAST]) <= n):
        bad("deck index or seat out of range")
    hands = [int(pos[P.HAND + s]) for s in range(L.MAX_PLAYERS)]
    piles = [int(pos[P.PILE + t]) for t in range(L.MAX_PLAYERS)]
    table, undealt = int(pos[P.TABLE]), mask_of(deck[at:].tolist())
    seen = 0
    for m in [*hands, *piles, table, undealt]:
        if seen & m:
            bad("a card in two places")
        seen |= m
    if seen >> L.N_CARDS or (rules.n_sides < L.MAX_PLAYERS and seen != int(L.ALL_CARDS)):
        bad("the cards do not add up to the 40")
    if any(hands[n:]) or any(piles[rules.n_sides:OUT]):
        bad("cards held by a seat or side the rules do not have")
    in_hands = sum(bin(m).count("1") for m in hands)
    if int(pos[P.TOTAL]) != int(pos[P.PLAYS]) + in_hands + L.N_CARDS - at:
        bad("the plays do not add up")
    if _check_position(rules, [cards_of(m) for m in hands[:n]], cards_of(table),
                       deck[at:].tolist(), dealer) != turn:
        bad(f"seat {turn} is not the seat to play")
