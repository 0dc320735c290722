"""The checked, step-by-step face of the engine: legal moves of a position,
and a `Round` round that can be dealt, stepped, replayed and printed.

A `Round` holds the kernel's own position array and deck order and moves it
with the kernel's functions (`kernels.position`: `start_round`, `play_move`,
`finish_round`), the very code the simulator runs; this module adds the
checks, the move history and the text a person needs. Scratch arrays for
the kernels are made once per thread (`_scratch`), not per call.
"""
from __future__ import annotations

import secrets
import threading
from collections.abc import Iterable, Sequence

import numpy as np

from ..kernels import batch, layout as L, position as P, round as R
from ..kernels.moves import captures_of, legal_moves as kernel_legal_moves
from ..kernels.rng import stream
from ..kernels.scoring import score_round
from ..kernels.strategies import decide
from . import nets, schema
from .cards import (Card, Move, card_name, card_with_alias, cards_of, mask_of, names,
                    parse_card, parse_cards)
from .checks import MAX_SEED, SEED_SPAN, whole
from .deals import deck as dealt_deck
from .record_format import (COUNTED_POINTS, HEADER_KEY, KEYWORDS, RoundNotes, check_names,
                            count_keys, round_line_key)
from .positions import OUT, not_in_play, position_arrays
from .rules import Rules, kernel_rules
from .seats import Seats
from .strategies import parse_strategy

DECK_HINT = ("a deck is the 40 cards in dealing order, e.g. scopa_sim.deck_of(seed, index), "
             "round index's deck in a run with that seed")
_THREAD = threading.local()


def _scratch() -> batch.Scratch:
    """This thread's kernel scratch arrays (`kernels.batch.scratch()`, some 3 MB
    with the search strategies'), made on the thread's first kernel call
    from this module and kept for the thread's life. Every call here fills
    what it reads before returning, so one set serves all rounds of a
    thread; the kernels called from a thread run one at a time."""
    scratch = getattr(_THREAD, "scratch", None)
    if scratch is None:
        scratch = _THREAD.scratch = batch.scratch()
    return scratch


def _cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a bitmask, ascending, as a tuple (a move's capture)."""
    return tuple(cards_of(mask))


def _disjoint(hand: Sequence[int], table: Sequence[int]) -> None:
    both = set(hand) & set(table)
    if both:
        raise ValueError(f"card {card_with_alias(min(both))} is both in the hand and on the "
                         "table")


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
    not_in_play(rules, [*(c for hand in hands for c in hand), *table, *deck])
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
    played = rules.deck_size - t - undealt - in_hands
    if played < 0:
        raise ValueError(f"hands and deck hold {in_hands + undealt} cards: a round deals "
                         f"{rules.deck_size - t} after the {t} to the table")
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
    s = _scratch()
    n = captures_of(np.uint64(mask_of(table)), card, kernel_rules(rules), s.takes, s.work)
    return [_cards_of(m) for m in s.takes[:n].tolist()]


def legal_moves(hand: str | Iterable[Card], table: str | Iterable[Card],
                rules: str | Rules = "scopa") -> list[Move]:
    """Every legal (card, captured cards) of `hand` on `table`, canonical order;
    a trail captures ()."""
    rules = Rules.resolve(rules)
    hand, table = parse_cards(hand), parse_cards(table)
    _disjoint(hand, table)
    return _moves(np.uint64(mask_of(hand)), np.uint64(mask_of(table)), kernel_rules(rules))


def _moves(hand: np.uint64, table: np.uint64, packed: np.ndarray) -> list[Move]:
    """The legal moves of a hand on a table (disjoint card sets), by the kernel."""
    s = _scratch()
    cards, takes = s.cards, s.takes
    n = kernel_legal_moves(hand, table, packed, cards, takes, s.work)
    return [Move(c, _cards_of(t)) for c, t in zip(cards[:n].tolist(), takes[:n].tolist())]


class Round:
    """One round, played move by move with every move checked.

    Deal it from a deck order (`Round(deck=..., dealer=...)`, the kernel's deal:
    table first, then a card at a time from the leader) or set a position
    (`Round.from_position(hands=..., table=..., deck=...)`). `play` checks
    each move; `log()` prints the round.

    The round is the kernel's position array and deck order (see
    `kernel_position`), moved by the kernel's own functions; `hands`,
    `table`, `deck`, `piles`, `scopas`, `turn` and the rest are read from
    it. A round changed by hand (a card put in `hands`, `table` or `deck`,
    or `turn` set) is taken as it is, unchecked: `play` and `suggest` then
    check the whole position before a kernel sees it, and refuse one these
    rules cannot reach.
    """

    def __init__(self, rules: str | Rules = "scopa", deck: str | Iterable[Card] | None = None,
                 dealer: int = 0):
        self.rules = Rules.resolve(rules)
        try:
            deck = parse_cards(deck) if deck is not None else list(range(40))
            if sorted(deck) != list(range(40)):
                raise ValueError(f"a deck order lists all 40 cards once (got {len(deck)})")
        except ValueError as e:
            raise ValueError(f"{e}; {DECK_HINT}") from None
        dealer = _seat("dealer", dealer, self.rules.players)
        pos, order = np.zeros(P.POS_SIZE, np.uint64), np.array(deck, np.int64)
        P.start_round(pos, order, dealer, kernel_rules(self.rules))    # sets aside first
        self.deck_order = order.tolist()       # the round as dealt (None from a position)
        out = L.N_CARDS - self.rules.deck_size          # the cards set aside lead the order
        self._start(pos, order, order[out:out + self.rules.table_size].tolist(), dealt=True)

    @classmethod
    def from_position(cls, hands: Sequence[str | Iterable[Card]], table: str | Iterable[Card],
                      rules: str | Rules = "scopa", deck: str | Iterable[Card] = (),
                      dealer: int = 0, turn: int | None = None) -> Round:
        """A round from explicit hands (one per seat), table and undealt deck
        (in dealing order), checked to be reachable under the rules.

        Cards in none of them are out of the round: played and captured
        before, in no side's pile (they score for nobody; nobody has captured
        yet as far as this round knows). The hand sizes fix the seat to play
        (see `_check_position`); `turn`, if given, must be that seat. With
        all hands empty and cards in the deck, the deal happens at once.
        """
        game = cls.__new__(cls)
        game.rules = r = Rules.resolve(rules)
        game.deck_order = None
        hands = _hands(hands, r.players)
        table, deck = parse_cards(table), parse_cards(deck)
        everything = [c for h in hands for c in h] + table + deck
        if len(set(everything)) != len(everything):
            dup = next(c for c in everything if everything.count(c) > 1)
            raise ValueError(f"card {card_with_alias(dup)} is in two places")
        dealer = _seat("dealer", dealer, r.players)
        seat = _check_position(r, hands, table, deck, dealer)
        if turn is not None and _seat("turn", turn, r.players) != seat:
            raise ValueError(f"turn must be seat {seat}, the first seat from the leader "
                             f"holding the most cards, not {turn}")
        pos, order = position_arrays(r, hands, table, deck, plays=0)
        pos[P.TURN], pos[P.DEALER] = seat, dealer
        deal = bool(deck) and not any(hands)
        if deal:
            P.deal(pos, order, kernel_rules(r))
        _check_kernel_position(r, pos, order)
        game._start(pos, order, table, dealt=deal)
        return game

    def _start(self, pos: np.ndarray, deck: np.ndarray, table: list[int], dealt: bool):
        """Hold a checked position (`pos`, `deck`), just dealt or set."""
        self._pos, self._deck = pos, deck
        self._packed = kernel_rules(self.rules)
        self._table0 = list(table)             # the table's order, as dealt or given
        self.moves: list[tuple[int, int, tuple[int, ...]]] = []
        # the hands (masks) dealt at the start, then after each play (None: no deal)
        self._deals = [self._hand_masks()] if dealt else [None]
        self._scopa: list[bool] = []           # per play: whether it scored a scopa
        self._leftover = self._end_table = None   # the table at the end: its size, its cards
        self._legal = None                     # the legal moves, until the next play
        self._shown = self._seen = None        # hands, table, deck as handed out, and a copy
        self._checked = True                   # False after a change by hand

    def copy(self) -> Round:
        """An independent copy of the round so far (for search and what-ifs)."""
        self._take_changes()
        game = Round.__new__(Round)
        game.__dict__.update(self.__dict__)
        game._pos = self._pos.copy()           # the deck order is never written: shared
        game.moves, game._deals, game._scopa = list(self.moves), list(self._deals), list(self._scopa)
        game._shown = game._seen = None
        return game

    # -- state, read from the position --------------------------------------
    @property
    def done(self) -> bool:
        return self._leftover is not None

    @property
    def dealer(self) -> int:
        return int(self._pos[P.DEALER])

    @property
    def leader(self) -> int:
        return (self.dealer + 1) % self.rules.players

    @property
    def turn(self) -> int:
        """The seat to play (after the round, the seat after the last to play)."""
        return int(self._pos[P.TURN])

    @turn.setter
    def turn(self, seat: int) -> None:
        self._take_changes()
        self._pos[P.TURN] = _seat("turn", seat, self.rules.players)
        self._changed()

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's hand, ascending."""
        return self._lists()[0]

    @property
    def table(self) -> list[int]:
        """The table, in the order the cards came to it."""
        return self._lists()[1]

    @property
    def deck(self) -> list[int]:
        """The undealt cards, in dealing order."""
        return self._lists()[2]

    @property
    def piles(self) -> list[list[int]]:
        """Each side's captured cards, in the order taken (a copy)."""
        teams, piles = self.rules.teams, [[] for _ in range(self.rules.n_sides)]
        for seat, c, take in self.moves:
            if take:
                piles[teams[seat]] += [c, *take]
        if self.done and self.last_capturer >= 0:
            piles[teams[self.last_capturer]] += self._table_order(self._end_table)
        return piles

    @property
    def scopas(self) -> list[int]:
        """Each side's scopas (a copy)."""
        return self._pos[P.SCOPAS:P.SCOPAS + self.rules.n_sides].astype(np.int64).tolist()

    @property
    def last_capturer(self) -> int:
        """The seat that captured last in this round, -1 for nobody."""
        return int(self._pos[P.LAST]) - 1

    @property
    def captures(self) -> int:
        """The capturing plays of this round."""
        return int(self._pos[P.CAPTURES])

    @property
    def total_plays(self) -> int:
        """The plays of the whole round."""
        return int(self._pos[P.TOTAL])

    @property
    def dealt_table(self) -> list[int]:
        """The table as dealt (or as given to `from_position`)."""
        return list(self._table0)

    @property
    def dealt_hands(self) -> list[list[list[int]] | None]:
        """Per play (and one before the first): every seat's hand when a
        deal was made just then, else None."""
        return [None if d is None else [list(_cards_of(m)) for m in d[:self.rules.players]]
                for d in self._deals]

    @property
    def scopa_plays(self) -> list[bool]:
        """Per play: whether it scored a scopa."""
        return list(self._scopa)

    @property
    def left_on_table(self) -> list[int]:
        """The cards left on the table at the round's end (to the last capturer)."""
        return self._table_order(self._end_table) if self.done else []

    def _hand_masks(self) -> list[int]:
        return self._pos[P.HAND:P.HAND + self.rules.players].tolist()

    def _table_order(self, mask: int) -> list[int]:
        """The cards of `mask` (the table, now or at some play) in the order
        they came to the table: the table as dealt or given, then the trails;
        any other card (a change by hand) after them, ascending."""
        order = [c for c in self._table0 if mask >> c & 1]
        order += [c for _, c, take in self.moves if not take and mask >> c & 1]
        if len(order) != mask.bit_count():
            order += [c for c in _cards_of(mask) if c not in order]
        return order

    # -- changes by hand ----------------------------------------------------
    def _lists(self) -> tuple[list[list[int]], list[int], list[int]]:
        """Hands, table and deck as lists, made from the position on the first
        read after a play and kept (with a copy) until the next one, so that a
        change to them is seen (`_take_changes`)."""
        if self._shown is None:
            pos = self._pos
            self._shown = ([list(_cards_of(m)) for m in self._hand_masks()],
                           self._table_order(int(pos[P.TABLE])),
                           self._deck[int(pos[P.DECK]):].tolist())
            self._seen = ([list(h) for h in self._shown[0]], list(self._shown[1]),
                          list(self._shown[2]))
        return self._shown

    def _take_changes(self) -> None:
        """Take changes made by hand to the lists of `hands`, `table` or `deck`
        into the position, unchecked (`_changed`)."""
        if self._shown is None or self._shown == self._seen:
            return
        hands, table, deck = self._shown
        for what, cards in (("hands", [c for h in hands for c in h]), ("table", table),
                            ("deck", deck)):
            bad = [c for c in cards if not isinstance(c, (int, np.integer))
                   or isinstance(c, bool) or not 0 <= c < L.N_CARDS]
            if bad:
                raise ValueError(f"the round's {what} hold {bad[0]!r}, not a card 0..39")
        if len(hands) != self.rules.players or len(deck) > L.N_CARDS:
            raise ValueError("the round's hands or deck were changed out of shape")
        pos, order = position_arrays(self.rules, hands, table, deck, plays=len(self.moves),
                                     piles=self._pos)
        self._pos, self._deck = pos, order
        self._seen = ([list(h) for h in hands], list(table), list(deck))
        self._changed()

    def _changed(self) -> None:
        self._checked = False
        self._legal = None

    def _ready(self) -> None:
        """Take any changes by hand, and check a changed position before a
        kernel plays or searches from it."""
        self._take_changes()
        if not self._checked:
            _check_kernel_position(self.rules, self._pos, self._deck)
            self._checked = True

    # -- moves --------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to play, canonical order."""
        if self.done:
            return []
        return list(self._legal_now())

    def _legal_now(self) -> list[Move]:
        self._take_changes()
        if self._legal is None:
            pos = self._pos
            hand, table = pos[P.HAND + int(pos[P.TURN])], pos[P.TABLE]
            if not self._checked and hand & table:          # changed by hand
                raise ValueError("the hand and the table must be distinct cards 0..39")
            self._legal = _moves(hand, table, self._packed)
        return self._legal

    def play(self, card: Card, captured: str | Iterable[Card] | None = None) -> Move:
        """Play `card` taking `captured` (omit it when the card has one legal
        move); raises ValueError for an illegal move, listing the legal ones."""
        if self.done:
            raise ValueError("the round is over")
        c = parse_card(card)
        options = [m for m in self._legal_now() if m[0] == c]
        if not options:
            raise ValueError(f"seat {self.turn} cannot play {card_name(c)}: "
                             f"hand is {names(self.hands[self.turn])}")
        if captured is None:
            if len(options) > 1:
                raise ValueError(f"{card_name(c)} can take {self._choices(options)}: say which")
            move = options[0]
        else:
            take = tuple(sorted(parse_cards(captured)))
            move = Move(c, take)
            if move not in options:
                raise ValueError(f"{card_name(c)} cannot take {names(take) or 'nothing'}: "
                                 f"it can take {self._choices(options)}")
        self._apply(*move)
        return move

    @staticmethod
    def _choices(options) -> str:
        return " or ".join(names(t) if t else "nothing (trail)" for _, t in options)

    def _apply(self, c: int, take: tuple[int, ...]):
        """Play a legal move through the kernel (`position.play_move`: it deals
        when all hands are empty and the deck lasts), and end the round after
        its last play (`position.finish_round`)."""
        self._ready()
        pos = self._pos
        seat = int(pos[P.TURN])
        scopas, at = pos[P.SCOPAS + self.rules.teams[seat]], pos[P.DECK]
        P.play_move(pos, self._deck, self._packed, c, np.uint64(mask_of(take)))
        self.moves.append((seat, c, take))
        self._scopa.append(bool(pos[P.SCOPAS + self.rules.teams[seat]] != scopas))
        self._deals.append(self._hand_masks() if pos[P.DECK] != at else None)
        self._legal = self._shown = self._seen = None
        if pos[P.PLAYS] == pos[P.TOTAL]:
            self._end_table = int(pos[P.TABLE])
            self._leftover = int(P.finish_round(pos, self._packed))

    # -- results ------------------------------------------------------------
    def result(self) -> dict:
        """The round's record: the simulator's columns (`schema.ROUND`
        without the run's indexes `round`, `game`, then `schema.SIDE` per
        side), for a finished round."""
        r, out = self.rules, self._scored()
        values = {"dealer": self.dealer, "last_capturer": self.last_capturer,
                  "leftover": self._leftover, "captures": self.captures}
        row = {f.name: values[f.name] for f in schema.ROUND if f.name in values}  # no index
        for t in range(r.n_sides):
            for name in schema.side_fields(r):
                row[f"{name}_{t}"] = int(out[t, L.SIDE_FIELDS.index(name)])
        return row

    def added_to(self, scores) -> list[int]:
        """A game's `scores` (one per side) with this finished round's points
        added, by the kernel's own rule (`kernels.round.add_round`)."""
        totals = np.array(scores, np.int64)
        R.add_round(totals, self._scored(), self.rules.n_sides)
        return [int(x) for x in totals]

    def _scored(self) -> np.ndarray:
        """The finished round's side results (`out[side, S_*]`), as the kernel scores them."""
        if not self.done:
            raise ValueError("the round is not over")
        out = np.zeros((self.rules.n_sides, L.N_SIDE), np.int16)
        score_round(self._pos[P.PILE:P.PILE + L.MAX_PLAYERS],
                    self._pos[P.SCOPAS:P.SCOPAS + L.MAX_PLAYERS], self._packed, out)
        return out

    def suggest(self, strategy: str = "pimc", seed: int = 0) -> Move:
        """The move `strategy` (e.g. "pimc:samples=100", "endgame") would play
        for the seat to move, seeing only what that seat sees."""
        return self._suggest(strategy, seed)

    def _suggest(self, strategy, seed, scores=()) -> Move:
        """`suggest`, drawing from stream (seed, 0); `scores` (a game's before
        this round) are what a user strategy's observation shows. A built-in
        plays by the one call of the kernels' strategy dispatch; a user
        strategy (or a built-in with a user rollout) through the seats of a
        batch (`seats.Seats`), which say which strategy failed and where."""
        s, seed = parse_strategy(strategy), _seed(seed)
        if self.done:
            raise ValueError("the round is over")
        self._ready()
        pos, turn, scratch = self._pos, self.turn, _scratch()
        seats = Seats(self.rules, [s] * self.rules.players) if s.users() else None
        if seats:
            scratch = scratch._replace(users=seats.context())
            scratch.users.scores[:len(scores)] = scores
        weights = s.nets(self.rules)
        if weights:
            scratch = scratch._replace(net=nets.record(weights))
        cards, takes, rng = scratch.cards, scratch.takes, scratch.rng
        n = kernel_legal_moves(pos[P.HAND + turn], pos[P.TABLE], self._packed, cards, takes,
                               scratch.work)
        stream(seed, 0, rng)
        if seats:
            i = seats.decide(turn, pos, self._deck, n, scratch,
                             lambda: f"this position (seat {turn}, play {len(self.moves) + 1})")
        else:
            i = batch.call(decide, s.spec.id, s.vector(), turn, n,
                           scratch.board(pos, self._deck), scratch.kit(self._packed))
            if not 0 <= i < n:
                raise RuntimeError(f"strategy {s} chose move {i} of {n}")
        return Move(int(cards[i]), _cards_of(int(takes[i])))

    def kernel_position(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the round's kernel position array and deck order (the
        undealt cards last, in dealing order). Cards out of the round (see
        `from_position`) are in the pile of no side, the last slot, so that
        the strategies count them as seen; with six sides there is no such
        slot and they count as unseen."""
        self._take_changes()
        return self._pos.copy(), self._deck.copy()

    def log(self) -> str:
        """The round so far as readable text, a line per deal and move."""
        n = self.rules.players
        lines, table = [f"dealer: seat {self.dealer}"], list(self._table0)

        def deal(hands):
            lines.append("deal: " + " | ".join(
                f"seat {s}: {names(_cards_of(hands[s]))}" for s in range(n))
                + f" | table: {names(table)}")

        if self._deals[0] is not None:
            deal(self._deals[0])
        for (seat, c, take), scopa, hands in zip(self.moves, self._scopa, self._deals[1:]):
            if take:
                table = [t for t in table if t not in take]
                text = f"seat {seat} plays {card_name(c)} takes {names(take)}" + \
                    (" SCOPA" if scopa else "")
            else:
                table.append(c)
                text = f"seat {seat} plays {card_name(c)} trails"
            lines.append(f"{text:<40} table: {names(table) or '(empty)'}")
            if hands is not None:
                deal(hands)
        if self.done:
            if self.last_capturer >= 0 and table:
                lines.append(f"seat {self.last_capturer} takes the last cards: {names(table)}")
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
    deck order per round: a recorded game, replayed) or are dealt as game
    `index` of a run seeded `seed` deals them (`deals.deck`: so
    `Game(seed=s, index=g)` is dealt card for card as game g of a games run
    with seed s, whose first dealer is g % players), or at random. A game may
    start from a score (`scores`, one per side, below the target), as from
    the middle of a match.
    """

    def __init__(self, rules: str | Rules = "scopa", first_dealer: int | None = None,
                 decks: Iterable[str | Iterable[Card]] | None = None, seed: int | None = None,
                 scores: Sequence[int] | None = None, index: int = 0):
        self.rules = Rules.resolve(rules)
        if decks is not None and seed is not None:
            raise ValueError("give decks or a seed, not both")
        self._index = whole(index, "game index", 0, 2**62)
        self._seed = int(_seed(seed if seed is not None else secrets.randbits(63)))
        if first_dealer is None:
            first_dealer = self._index % self.rules.players if decks is None else 0
        dealer = _seat("first_dealer", first_dealer, self.rules.players)
        self._decks = iter(decks) if decks is not None else None
        self.scores = _scores(scores, self.rules)
        self.start = tuple(self.scores)          # the score the game started from
        self.rounds: list[Round] = []
        self.unplayed: dict[int, list[int]] = {}  # round -> points, of rounds not played out
        self.notes = None                        # what a record said (records.RecordNotes)
        self._deal(dealer)

    def _deal(self, dealer: int) -> None:
        if self._decks is None:
            deck = dealt_deck(self._seed, self._index, len(self.rounds))
        else:
            deck = next(self._decks, None)
            if deck is None:                 # the decks given end here: so does the game
                if not self.rounds:
                    raise ValueError("the game needs a deck for its first round")
                return
        self.rounds.append(Round(self.rules, deck=deck, dealer=dealer))

    @property
    def round(self) -> Round:
        """The round being played (or the last one, once the game is over)."""
        return self.rounds[-1]

    @property
    def done(self) -> bool:
        ended = self.round.done or len(self.rounds) - 1 in self.unplayed
        return ended and self.rules.game_over(self.scores)

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
        if self.round.done:
            raise ValueError(f"the game needs a deck for round {len(self.rounds)}: only "
                             f"{len(self.rounds)} were given")
        move = self.round.play(card, captured)
        if self.round.done:
            self._next_round(self.round.added_to(self.scores))
        return move

    def _next_round(self, scores: list[int]) -> None:
        self.scores = scores
        if not self.done:
            self._deal(int(R.next_dealer(self.round.dealer, self.rules.players)))

    def end_unplayed(self, points: Sequence[int]) -> None:
        """End the round being played without playing it out (a record that
        stops inside it), adding `points` (one per side) to the score."""
        if self.round.done or self.done:
            raise ValueError("the round is over")
        self.unplayed[len(self.rounds) - 1] = list(points)
        self._next_round([s + p for s, p in zip(self.scores, points)])

    def record(self, names: Sequence[str] | None = None, headers: dict | None = None) -> str:
        """The game as a record (`write_record`, docs/RECORDS.md):
        `names` one per seat; `headers` more 'Key: value' lines."""
        return write_record(self, names, headers)

    def suggest(self, strategy: str = "pimc", seed: int = 0) -> Move:
        """`Round.suggest` for the round being played; a user strategy's
        observation shows the game's scores."""
        return self.round._suggest(strategy, seed, self.scores)

    def log(self) -> str:
        """Every round's log, with the scores after it."""
        lines, scores = [], list(self.start)
        for k, r in enumerate(self.rounds):
            log = r.log().splitlines()
            points = self.unplayed.get(k)
            if points is not None and log[-1].startswith("deal:"):
                log.pop()                    # a deal after the last play recorded: stand-ins
            lines += [f"round {k}", *log]
            if r.done:
                res = r.result()
                points = [res[f"points_{t}"] for t in range(self.rules.n_sides)]
            elif points is not None:
                lines.append("(the rest of the round was not played here)")
            if points is not None:
                scores = [s + p for s, p in zip(scores, points)]
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
    if _check_position(rules, [_cards_of(m) for m in hands[:n]], _cards_of(table),
                       deck[at:].tolist(), dealer) != turn:
        bad(f"seat {turn} is not the seat to play")


# ---- the game as a record ----------------------------------------------------------
def write_record(game: Game, seat_names: list[str] | None = None,
                 headers: dict[str, str] | None = None) -> str:
    """The record of a `Game`, finished or not (`Game.record`): headers, then
    per round its dealer, table, each deal's hands, the plays (with the
    record's comments beside them), and at its
    end the counts, points and score. `seat_names`: one per seat (default:
    the record's own, or seat0, seat1, ...); `headers`: more 'Key: value' lines."""
    r, notes = game.rules, game.notes
    seat_names = list(seat_names or (notes.names if notes else
                                     [f"seat{s}" for s in range(r.players)]))
    check_names(seat_names, r.players)
    extra = {**(notes.headers if notes else {}), **(headers or {})}
    out = ["# scopa-sim game record (docs/RECORDS.md)", f"Rules: {r.name}",
           f"Seats: {' '.join(seat_names)}", f"First dealer: {seat_names[game.rounds[0].dealer]}",
           f"Score: {_row(game.start)}"]
    for key, value in extra.items():
        key, value = " ".join(str(key).split()), " ".join(str(value).split())
        if (not HEADER_KEY.fullmatch(key) or key.lower() in KEYWORDS
                or round_line_key(key)):
            raise ValueError(f"a header key is a word not used by the format, not {key!r}")
        if "#" in value:                   # read back, it would start a comment
            raise ValueError(f"a header value holds no '#' (it starts a comment), not {value!r}")
        out.append(f"{key}: {value}")
    scores = list(game.start)
    for k, rnd in enumerate(game.rounds):
        rn = notes.rounds[k] if notes and k < len(notes.rounds) else None
        out += ["", f"Round {k + 1}", f"Dealer: {seat_names[rnd.dealer]}",
                f"Table: {names(rnd.dealt_table) or '-'}"]
        out += _plays(rnd, rn, seat_names)
        if rnd.done:
            res = rnd.result()
            if rnd.last_capturer >= 0 and rnd.left_on_table:
                out.append(f"# {seat_names[rnd.last_capturer]} takes the last cards: "
                           f"{names(rnd.left_on_table)}")
            counts = {t: {k_: res[COUNTED_POINTS.get(k_, k_) + f"_{t}"] for k_ in count_keys(r)}
                      for t in range(r.n_sides)}
            points = [res[f"points_{t}"] for t in range(r.n_sides)]
        elif rn is not None and not rn.complete:
            out.append("...")
            counts, points = rn.counts, rn.points
        else:
            continue                                   # a round being played: written so far
        side_names = {t: seat_names[r.teams.index(t)] for t in range(r.n_sides)}
        out += [f"Counts {side_names[t]}: " + " ".join(f"{k_} {v}" for k_, v in c.items())
                for t, c in sorted(counts.items())]
        if points is not None:
            scores = [s + p for s, p in zip(scores, points)]
            out += [f"Points: {_row(points)}", f"Score: {_row(scores)}"]
    return "\n".join(out + ["", "End", ""])


def _row(numbers) -> str:
    return " ".join(map(str, numbers))


def _plays(rnd, rn: RoundNotes | None, seat_names: list[str]) -> list[str]:
    """A round's hand lines and plays: each deal's hands (as the record
    wrote them, or as dealt), then its plays."""
    r = rnd.rules
    per_deal = r.players * r.hand_size
    out = []
    for d in range(len(rnd.moves) // per_deal + 1):
        if rn is not None:
            hands = rn.written[d] if d < len(rn.written) else {}
        elif d * per_deal < len(rnd.dealt_hands) and rnd.dealt_hands[d * per_deal] is not None:
            hands = dict(enumerate(rnd.dealt_hands[d * per_deal]))
        else:
            break
        out += [f"Hand {seat_names[s]}: " + " ".join("?" if c is None else card_name(c)
                                                      for c in cards)
                for s, cards in sorted(hands.items())]
        for p in range(d * per_deal, min(len(rnd.moves), (d + 1) * per_deal)):
            seat, c, take = rnd.moves[p]
            comment = rn.comments[p] if rn is not None and p < len(rn.comments) else ""
            out.append(f"{seat_names[seat]}: {card_name(c)}" + (f" takes {names(take)}" if take
                                                                else "")
                       + (" scopa" if rnd.scopa_plays[p] else "")
                       + (f"  # {comment}" if comment else ""))
    return out


class Player:
    """One strategy deciding for any seat of any `Round` of these rules, its
    seats and kernel scratch made once (`leaks` asks it at every play). Its
    random numbers at a decision come from stream (seed, key) alone, so a
    position given the same key gets the same move however it was reached."""

    def __init__(self, rules: Rules, strategy):
        self.rules = rules
        self.strategy = parse_strategy(strategy)
        self._seats = Seats(rules, [self.strategy] * rules.players)
        self._scratch = self._seats.scratch()

    def move(self, rnd: Round, seed: int, key: int) -> Move:
        """The move the strategy plays for the seat to play in `rnd`."""
        if rnd.done:
            raise ValueError("the round is over")
        rnd._ready()
        pos, turn, s = rnd._pos, rnd.turn, self._scratch
        n = kernel_legal_moves(pos[P.HAND + turn], pos[P.TABLE], rnd._packed, s.cards,
                               s.takes, s.work)
        stream(_seed(seed), np.int64(key), s.rng)
        i = self._seats.decide(turn, pos, rnd._deck, n, s,
                               lambda: f"seat {turn}, play {len(rnd.moves) + 1}")
        return Move(int(s.cards[i]), _cards_of(int(s.takes[i])))

    def play_out(self, rnd: Round, seed: int, key) -> np.ndarray:
        """Play `rnd` (changed in place) to its end with this strategy at every
        seat, play p drawing from stream (seed, key(p)): the sides' results,
        int16[sides, N_SIDE] (the kernel's `score_round`)."""
        while not rnd.done:
            rnd._apply(*self.move(rnd, seed, key(len(rnd.moves))))
        return rnd._scored()
