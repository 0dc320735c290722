"""A slow, obviously-correct Scopa engine, written straight from docs/ENGINE.md
and, for the variant options, docs/VARIANTS.md.

This is the yardstick the compiled kernel is compared against, card for card.
It shares no code with ``kernels/`` or ``scopa_sim`` (it reads the names of the
variant flags from the rule table, data, not code): cards are plain ints,
hands, tables and piles are plain lists, captures come from
``itertools.combinations``. Clarity over speed; nothing here is a bitmask
except the one place ENGINE.md defines an order by one (the capture-mask sort
key).

Cards (ENGINE.md "Cards and sets")::

    card = suit * 10 + rank - 1        suit 0 coins (d), 1 cups (h),
                                            2 swords (s), 3 clubs (c)
    rank 1..10 (A=1, J=8, Q=9, K=10)    settebello = 6 (7d)
"""

from __future__ import annotations

import dataclasses
import itertools

from scopa_sim.kernels.rule_table import RULES

# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

N_CARDS = 40
SETTEBELLO = 6  # 7 of coins
SUIT_LETTERS = "dhsc"
RANK_LETTERS = {1: "A", 8: "J", 9: "Q", 10: "K"}

# Primiera value by rank 1..10 (ENGINE.md "End of round").
PRIMIERA_BY_RANK = {1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10}


def rank(card: int) -> int:
    """Rank 1..10 of a card."""
    return card % 10 + 1


def suit(card: int) -> int:
    """Suit 0..3 of a card (0 = coins)."""
    return card // 10


def is_coin(card: int) -> bool:
    return suit(card) == 0


def primiera_value(card: int) -> int:
    return PRIMIERA_BY_RANK[rank(card)]


def card_of(text: str) -> int:
    """Parse the printed form used in the tests: ``7d``, ``As``, ``Kc``, ``10s``."""
    text = text.strip().lower()
    rank_text, suit_letter = text[:-1], text[-1]
    ranks = {"a": 1, "j": 8, "q": 9, "k": 10}
    r = ranks[rank_text] if rank_text in ranks else int(rank_text)
    if not 1 <= r <= 10:
        raise ValueError(f"bad rank in {text!r}")
    return SUIT_LETTERS.index(suit_letter) * 10 + r - 1


def name(card: int) -> str:
    """Printed form: ``A 2 .. 7 J Q K`` + suit letter."""
    r = rank(card)
    return RANK_LETTERS.get(r, str(r)) + SUIT_LETTERS[suit(card)]


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RefRules:
    """The rule numbers the engine is general in (ENGINE.md "Rules")."""

    players: int = 2
    teams: tuple = (0, 1)
    n_sides: int = 2
    hand_size: int = 3
    table_size: int = 4
    refill: bool = True
    ranks: int = 10  # ranks in play, A up to this one: the others are set aside, dealt to no one
    target: int = 11
    # The variant options of docs/VARIANTS.md; all off is plain ENGINE.md.
    scopa_on_last_play: bool = False
    fewest_cards: bool = False
    ace_takes_all: bool = False
    primiera_forfeit: bool = False
    re_bello: bool = False
    napola: bool = False
    primiera_scale: tuple = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)  # ranks A, 2, .., K

    def __post_init__(self):
        teams = tuple(int(t) for t in self.teams)
        object.__setattr__(self, "teams", teams)
        object.__setattr__(self, "primiera_scale", tuple(int(v) for v in self.primiera_scale))
        if len(self.primiera_scale) != 10:
            raise ValueError("primiera_scale gives one value per rank A..K")
        if len(teams) != self.players:
            raise ValueError("teams must give one side per seat")
        if sorted(set(teams)) != list(range(self.n_sides)):
            raise ValueError("sides must be numbered 0..n_sides-1")
        # ENGINE.md deals whole rounds of hand_size * players cards and ends
        # the round when "every hand is empty and the deck is exhausted"; it
        # says nothing of a short last deal or of cards never dealt, so the
        # reference accepts only rules where every card is dealt in whole deals.
        per_deal = self.hand_size * self.players
        rest = 4 * self.ranks - self.table_size
        if per_deal < 1 or rest < per_deal or rest % per_deal or (not self.refill and rest != per_deal):
            raise NotImplementedError("the reference needs the cards in play to go out in "
                                      "whole deals")


# The variant flags (docs/VARIANTS.md), copied by name from scopa_sim.Rules: their
# list from the rule table (data); what each does is written here, from the docs.
VARIANT_FLAGS = tuple(r.name for r in RULES if r.kind == "variant" and r.type == "bool")


def from_rules(obj) -> RefRules:
    """Copy the rule numbers and options out of a ``scopa_sim.Rules`` (or any look-alike).

    A string or None means the default two-player "scopa".
    """
    if obj is None or (isinstance(obj, str) and obj == "scopa"):
        return RefRules()
    if isinstance(obj, RefRules):
        return obj
    players = int(obj.players)
    teams = getattr(obj, "teams", None)
    teams = tuple(range(players)) if teams is None else tuple(int(t) for t in teams)
    n_sides = getattr(obj, "n_sides", None)
    n_sides = len(set(teams)) if n_sides is None else int(n_sides)
    flags = {flag: bool(getattr(obj, flag, False)) for flag in VARIANT_FLAGS}
    scale = getattr(obj, "primiera_scale", None)
    if scale is not None:
        flags["primiera_scale"] = tuple(int(v) for v in scale)
    return RefRules(
        players=players,
        teams=teams,
        n_sides=n_sides,
        hand_size=int(obj.hand_size),
        table_size=int(obj.table_size),
        refill=bool(obj.refill),
        ranks=int(getattr(obj, "ranks", 10)),
        target=int(obj.target),
        **flags,
    )


# ---------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------


def capture_mask(cards) -> int:
    """The unsigned integer ENGINE.md orders captures by: sum of 1 << card."""
    return sum(1 << c for c in cards)


def captures(table: list[int], card: int, rules: RefRules = RefRules()) -> list[tuple[int, ...]]:
    """Every legal capture of ``card`` on ``table``, canonical order.

    1. If the table holds cards of the same rank, each one alone is a capture
       and nothing else is (single-card priority).
    2. Asso piglia tutto (``rules.ace_takes_all``): otherwise an ace takes the
       whole table, if there is one, and that is its only capture.
    3. Otherwise every subset of two or more table cards whose ranks sum to the
       card's rank is a capture; with ``rules.fewest_cards`` only those of
       them with the fewest cards.
    Each capture is an ascending tuple; the list is sorted by capture mask.
    """
    r = rank(card)
    table = sorted(table)
    singles = [(t,) for t in table if rank(t) == r]
    if singles:
        return sorted(singles, key=capture_mask)
    if rules.ace_takes_all and r == 1:
        return [tuple(table)] if table else []
    # Every card of a sum of >= 2 cards is at least 1 below the total, so only
    # smaller ranks can take part, and at most r of them (each is >= 1).  This
    # only skips subsets that could never sum to r.
    smaller = [t for t in table if rank(t) < r]
    found = []
    for size in range(2, min(len(smaller), r) + 1):
        for combo in itertools.combinations(smaller, size):
            if sum(rank(c) for c in combo) == r:
                found.append(combo)
    if rules.fewest_cards and found:
        fewest = min(len(combo) for combo in found)
        found = [combo for combo in found if len(combo) == fewest]
    return sorted(found, key=capture_mask)


def is_scopa(table, captured, card, is_last_play: bool, rules: RefRules = RefRules()) -> bool:
    """Whether playing ``card`` to take ``captured`` from ``table`` scores a scopa.

    The capture must leave the table empty; not on the round's last play
    unless ``rules.scopa_on_last_play``; and an ace's asso-piglia-tutto sweep
    (an ace taking a table that held no ace) never is one.
    """
    if not captured or len(captured) != len(table):
        return False
    if is_last_play and not rules.scopa_on_last_play:
        return False
    ace_sweep = rules.ace_takes_all and rank(card) == 1 and all(rank(t) != 1 for t in table)
    return not ace_sweep


def legal_moves(hand, table, rules: RefRules = RefRules()) -> list[tuple[int, tuple[int, ...]]]:
    """``(card, captured)`` pairs in canonical order; a trail has ``()``.

    Hand cards ascending; for each card its captures in capture-mask order, or
    the single trail if it captures nothing (a card that can capture may not
    be trailed).
    """
    moves = []
    for card in sorted(hand):
        caps = captures(list(table), card, rules)
        if caps:
            moves.extend((card, cap) for cap in caps)
        else:
            moves.append((card, ()))
    return moves


# ---------------------------------------------------------------------------
# Randomness: SplitMix64 streams
# ---------------------------------------------------------------------------

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class SplitMix64:
    """One SplitMix64 stream; ``state`` is a Python int kept in 0..2**64-1."""

    def __init__(self, state: int):
        self.state = state & MASK64

    @classmethod
    def stream(cls, seed: int, index: int) -> "SplitMix64":
        """The stream of unit of work ``index`` in a run seeded ``seed``."""
        return cls(mix64((mix64(seed & MASK64) + index) & MASK64))

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """Uniform-ish integer in ``0..n-1`` from one draw (multiply-shift)."""
        return ((self.next() >> 32) * n) >> 32


def stream(seed: int, index: int) -> SplitMix64:
    return SplitMix64.stream(seed, index)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & MASK64


def siphash24(key: bytes, message: bytes) -> int:
    """SipHash-2-4 of any message under a 16-byte key, from the paper's
    description (Aumasson and Bernstein, 2012), as an int."""
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def sip_round():
        v[0] = (v[0] + v[1]) & MASK64; v[1] = _rotl(v[1], 13) ^ v[0]; v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & MASK64; v[3] = _rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & MASK64; v[3] = _rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & MASK64; v[1] = _rotl(v[1], 17) ^ v[2]; v[2] = _rotl(v[2], 32)

    tail = len(message) % 8
    last = bytes(message[len(message) - tail:]) + bytes(7 - tail) + bytes([len(message) & 255])
    blocks = [message[i:i + 8] for i in range(0, len(message) - tail, 8)] + [last]
    for block in blocks:
        m = int.from_bytes(block, "little")
        v[3] ^= m
        sip_round(); sip_round()
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        sip_round()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def sip(k0: int, k1: int, m: int) -> int:
    """SipHash-2-4 of the 8-byte word m under the key (k0, k1), as the engine keys it."""
    key = (k0 & MASK64).to_bytes(8, "little") + (k1 & MASK64).to_bytes(8, "little")
    return siphash24(key, (m & MASK64).to_bytes(8, "little"))


DEAL, DECIDE, OBSERVE = 0x6465616C, 0x64656369646521, 0x6F627365727665


def deal_stream(seed: int, unit: int, number: int) -> SplitMix64:
    """The stream that shuffles the deck of round ``number`` of unit ``unit``."""
    return SplitMix64(sip(seed, DEAL, unit * 2**20 + number))


def decide_stream(seed: int, unit: int, number: int) -> SplitMix64:
    """The stream the players of round ``number`` of unit ``unit`` draw from."""
    return SplitMix64(sip(seed, DECIDE, unit * 2**20 + number))


def shuffled_deck(rng: SplitMix64) -> list[int]:
    """Fisher-Yates from the top of ``[0, 1, ..., 39]``, one draw per swap."""
    deck = list(range(N_CARDS))
    for i in range(N_CARDS - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

GREEDY_WEIGHTS = {"card": 100, "coin": 100, "settebello": 400, "primiera": 5, "scopa": 1000}


def worth(card: int, w=GREEDY_WEIGHTS) -> int:
    return (
        w["card"]
        + w["coin"] * is_coin(card)
        + w["settebello"] * (card == SETTEBELLO)
        + w["primiera"] * primiera_value(card)
    )


def greedy_score(move, table, is_last_play: bool, w=GREEDY_WEIGHTS, rules: RefRules = RefRules()) -> int:
    """Greedy's score of a move; ``worth`` uses the standard primiera values
    whatever the rules' scale, and the scopa bonus follows the rules."""
    card, captured = move
    if not captured:
        return -worth(card, w)
    score = sum(worth(c, w) for c in captured) + worth(card, w)
    if is_scopa(table, captured, card, is_last_play, rules):
        score += w["scopa"]
    return score


def choose(strategy: str, moves, table, is_last_play: bool, rng: SplitMix64, rules: RefRules = RefRules()):
    """The move a strategy plays, from the canonical list ``moves``.

    Besides the names ``random`` and ``greedy``, a callable
    ``strategy(moves, table, is_last_play, rng) -> move`` is accepted, so tests
    can script a round.
    """
    if callable(strategy):
        return strategy(moves, table, is_last_play, rng)
    if strategy == "random":
        return moves[rng.below(len(moves))]  # one draw even if len(moves) == 1
    if strategy == "greedy":
        best = moves[0]
        best_score = greedy_score(best, table, is_last_play, rules=rules)
        for move in moves[1:]:
            score = greedy_score(move, table, is_last_play, rules=rules)
            if score > best_score:  # strict: the first in canonical order wins a tie
                best, best_score = move, score
        return best
    raise ValueError(f"unknown strategy {strategy!r}")


# ---------------------------------------------------------------------------
# A round
# ---------------------------------------------------------------------------


def primiera(pile, rules: RefRules = RefRules()) -> int:
    """Sum over the four suits of the best primiera value in ``pile`` (0 for a
    missing suit); with ``rules.primiera_forfeit``, 0 if any suit is missing."""
    total = 0
    for s in range(4):
        values = [rules.primiera_scale[rank(c) - 1] for c in pile if suit(c) == s]
        if not values and rules.primiera_forfeit:
            return 0
        total += max(values) if values else 0
    return total


def coin_run(pile) -> int:
    """How many coins A, 2, 3, ... the pile holds in a row from the ace."""
    run = 0
    while run < 10 and card_of(f"{run + 1}d") in pile:
        run += 1
    return run


def strictly_ahead(counts) -> list[int]:
    """1 for the one side strictly ahead of every other side, else 0 (ties score nobody)."""
    top = max(counts)
    return [int(x == top and counts.count(top) == 1) for x in counts]


def side_columns(piles, scopas, rules: RefRules = RefRules()) -> dict:
    """The per-side counts and points of ENGINE.md "End of round", with the
    re bello and napola points (docs/VARIANTS.md) when those options are on."""
    n_sides = len(piles)
    cards = [len(p) for p in piles]
    coins = [sum(1 for c in p if is_coin(c)) for p in piles]
    sette = [int(SETTEBELLO in p) for p in piles]
    prim = [primiera(p, rules) for p in piles]
    re_bello = [int(card_of("Kd") in p) if rules.re_bello else 0 for p in piles]
    napola = [coin_run(p) if rules.napola and coin_run(p) >= 3 else 0 for p in piles]
    pt_cards, pt_coins, pt_prim = strictly_ahead(cards), strictly_ahead(coins), strictly_ahead(prim)
    out = {}
    for t in range(n_sides):
        out[f"cards_{t}"] = cards[t]
        out[f"coins_{t}"] = coins[t]
        out[f"settebello_{t}"] = sette[t]
        out[f"primiera_{t}"] = prim[t]
        out[f"scopas_{t}"] = scopas[t]
        out[f"pt_cards_{t}"] = pt_cards[t]
        out[f"pt_coins_{t}"] = pt_coins[t]
        out[f"pt_settebello_{t}"] = sette[t]
        out[f"pt_primiera_{t}"] = pt_prim[t]
        if rules.re_bello:
            out[f"pt_re_bello_{t}"] = re_bello[t]
        if rules.napola:
            out[f"pt_napola_{t}"] = napola[t]
        out[f"points_{t}"] = pt_cards[t] + pt_coins[t] + sette[t] + pt_prim[t] + re_bello[t] + napola[t] + scopas[t]
    return out


def play_round(deck, dealer, strategies, rules, rng, log=None) -> dict:
    """Play one round from the explicit deck order ``deck``.

    ``strategies`` names one strategy per seat; ``rng`` is the stream the
    players draw from (after the shuffle, when simulating). If ``log`` is a
    list, each play is appended to it as ``(seat, card, captured)``.
    Returns the round's record: dealer, last_capturer, leftover, captures and
    the per-side columns.
    """
    rules = from_rules(rules)
    players = rules.players
    if len(strategies) != players:
        raise ValueError("one strategy per seat")
    deck = list(deck)
    if sorted(deck) != list(range(N_CARDS)):
        raise ValueError("deck must be a permutation of 0..39")

    leader = (dealer + 1) % players
    deck = [c for c in deck if rank(c) <= rules.ranks]  # the cards in play, in deck order

    table = deck[: rules.table_size]
    pos = rules.table_size
    hands = [[] for _ in range(players)]

    def deal():
        nonlocal pos
        n = rules.hand_size * players
        assert len(deck) - pos >= n  # RefRules admits only whole deals
        for k in range(n):  # one card at a time, leader first, in seat order
            hands[(leader + k) % players].append(deck[pos])
            pos += 1

    def more_deals() -> bool:
        return rules.refill and pos < len(deck)

    deal()
    piles = [[] for _ in range(rules.n_sides)]
    scopas = [0] * rules.n_sides
    last_capturer = -1
    n_captures = 0
    seat = leader
    while True:
        if all(not h for h in hands):
            if more_deals():
                deal()
            else:
                break
        hand = hands[seat]
        assert hand, "deals are whole, so the seat to play always has a card"
        moves = legal_moves(hand, table, rules)
        is_last_play = (
            len(hand) == 1
            and all(not h for s, h in enumerate(hands) if s != seat)
            and not more_deals()
        )
        card, captured = choose(strategies[seat], moves, table, is_last_play, rng, rules)
        assert (card, captured) in moves
        if log is not None:
            log.append((seat, card, captured))
        hand.remove(card)
        side = rules.teams[seat]
        if captured:
            if is_scopa(table, captured, card, is_last_play, rules):
                scopas[side] += 1
            for c in captured:
                table.remove(c)
            piles[side].extend(captured)
            piles[side].append(card)
            last_capturer = seat
            n_captures += 1
        else:
            table.append(card)
        seat = (seat + 1) % players

    leftover = len(table)
    if last_capturer != -1:
        piles[rules.teams[last_capturer]].extend(table)
        table = []
    record = {
        "dealer": dealer,
        "last_capturer": last_capturer,
        "leftover": leftover,
        "captures": n_captures,
    }
    record.update(side_columns(piles, scopas, rules))
    return record


# ---------------------------------------------------------------------------
# Runs of rounds and of games
# ---------------------------------------------------------------------------


def simulate(rounds=None, games=None, strategies=("random", "greedy"), rules=None, seed=0):
    """A run of ``rounds`` independent rounds or ``games`` games: a list of records.

    Round ``r`` of unit ``u`` (a round, or a game) is shuffled from
    ``deal_stream(seed, u, r)`` and played from ``decide_stream(seed, u, r)``.
    Rounds: round ``i`` is dealt by seat ``i % players``. Games: game ``g``'s
    first round is dealt by seat ``g % players`` and the deal
    moves one seat on each round; it ends at the end of a round where the top
    total is at least the target and held by one side alone.
    """
    rules = from_rules(rules)
    strategies = tuple(strategies)
    if (rounds is None) == (games is None):
        raise ValueError("give exactly one of rounds= and games=")
    records = []
    if rounds is not None:
        for i in range(rounds):
            deck = shuffled_deck(deal_stream(seed, i, 0))
            rec = play_round(deck, i % rules.players, strategies, rules, decide_stream(seed, i, 0))
            records.append({"round": i, **rec})
        return records

    for g in range(games):
        dealer = g % rules.players
        totals = [0] * rules.n_sides
        for number in itertools.count():
            deck = shuffled_deck(deal_stream(seed, g, number))
            rec = play_round(deck, dealer, strategies, rules, decide_stream(seed, g, number))
            for t in range(rules.n_sides):
                totals[t] += rec[f"points_{t}"]
            row = {"round": number, "game": g, **rec}
            for t in range(rules.n_sides):
                row[f"score_{t}"] = totals[t]
            records.append(row)
            top = max(totals)
            if top >= rules.target and totals.count(top) == 1:
                break
            dealer = (dealer + 1) % rules.players
    return records
