"""Hostile input to the Python face. An impossible position, strategy or seed
is refused with a ValueError naming the problem; nothing a caller passes can
crash the process (the kernels trust their inputs) or hang it.

The fuzz test runs this file as a script in a subprocess (`fuzz`), so that a
segmentation fault or a hang fails the test instead of killing the session.
"""
import json
import random
import subprocess
import sys
import time

import numpy as np
import pytest

from scopa_sim import PRESETS, STRATEGIES, Round, Rules, legal_captures, legal_moves
from scopa_sim.engine.cards import names, parse_cards
from scopa_sim.engine.strategies import parse_strategy

ALL_CARDS = list(range(40))
NINE = Rules.preset("scopa-4-nine")

# (what, keyword arguments of Round.from_position, text the ValueError must name)
BAD_POSITIONS = [
    ("hands of 3 and 1", dict(hands=["7d 2c 3h", "Kc"], table="3s 4h"), "hand sizes 1, 3"),
    ("a seat has played twice", dict(hands=["7d 2c 3h", "Kc"], table="3s 4h", dealer=1),
     "hand sizes 3, 1"),
    ("a 5-card deck", dict(hands=["7d 2c 3h", "Kc Qs 2d"], table="3s 4h", deck="Ad 3d 4d 5d 6d"),
     "deck holds 5 cards"),
    ("dealer 9", dict(hands=["7d", "Kc"], table="", dealer=9), "dealer must be a seat 0..1"),
    ("dealer -1", dict(hands=["7d", "Kc"], table="", dealer=-1), "dealer must be a seat"),
    ("dealer True", dict(hands=["7d", "Kc"], table="", dealer=True), "dealer must be a seat"),
    ("dealer 1.0", dict(hands=["7d", "Kc"], table="", dealer=1.0), "dealer must be a seat"),
    ("dealer '1'", dict(hands=["7d", "Kc"], table="", dealer="1"), "dealer must be a seat"),
    ("turn 5", dict(hands=["7d", "Kc"], table="", turn=5), "turn must be a seat 0..1"),
    ("turn True", dict(hands=["7d", "Kc"], table="", turn=True), "turn must be a seat"),
    ("the wrong seat to play", dict(hands=["7d", "Kc"], table="", dealer=1, turn=1),
     "turn must be seat 0"),
    ("a card twice", dict(hands=["7d 2c", "Kc 2c"], table="3s"), "card 2c is in two places"),
    ("a card twice in a hand", dict(hands=["7d 7d", "Kc 2c"], table="3s"), "listed twice"),
    ("41 cards", dict(hands=["", ""], table="7d", deck=ALL_CARDS), "card 7d is in two places"),
    ("a hand of 4 in scopa", dict(hands=["7d 2c 3h 4h", "Kc Qs 2d 5s"], table=""),
     "holds 4 cards: these rules deal 3"),
    ("three hands for two seats", dict(hands=["7d", "Kc", "2c"], table=""),
     "hand for each of the 2 seats"),
    ("hands as one text", dict(hands="7d Kc", table=""), "one hand per seat"),
    ("no hands", dict(hands=None, table=""), "one hand per seat"),
    ("a bad card", dict(hands=["11d", "Kc"], table=""), "bad card '11d'"),
    ("card number 40", dict(hands=[[40], [1]], table=""), "card numbers run 0..39"),
    ("a table that is not cards", dict(hands=["7d", "Kc"], table=7), "cards are a text"),
    ("nothing left to play", dict(hands=["", ""], table="7d"), "no card is left to play"),
    ("more cards than a round deals", dict(hands=["Ad As", "Ac Ah"], table="",
                                           deck=[c for c in ALL_CARDS if c % 10]),
     "a round deals 36 after the 4 to the table"),
    ("a short table before the first play",
     dict(hands=["Ad Ah As", "Ac 2d 2h"], table="Kc",
          deck=[c for c in ALL_CARDS if c not in (0, 1, 10, 11, 20, 30, 39)][:30]),
     "before the first play the table holds the 4 cards"),
    ("a deck after the one deal", dict(hands=["7d", "Kc", "7h", "Kh"], table="", rules=NINE,
                                       deck="Ad 2d"),
     "without new deals"),
    ("a part deal without new deals", dict(hands=["", "", "", ""], table="7d 7h 7s 7c",
                                           rules=NINE, deck=ALL_CARDS[10:16]),
     "without new deals"),
    ("hands of 2, 3, 3, 2 in scopa-4", dict(hands=["7d 2c", "Kc Qs 2d", "7h 2h 3h", "Ks Qh"],
                                            table="", rules="scopa-4"), "hand sizes"),
    ("an unknown preset", dict(hands=["7d", "Kc"], table="", rules="briscola"),
     "unknown rules preset"),
]


@pytest.mark.parametrize("what, kwargs, problem", BAD_POSITIONS, ids=[b[0] for b in BAD_POSITIONS])
def test_an_impossible_position_is_refused_naming_the_problem(what, kwargs, problem):
    with pytest.raises(ValueError, match=problem) as error:
        Round.from_position(**kwargs)
    assert "\n" not in str(error.value)


def test_reachable_positions_are_accepted_and_fix_the_seat_to_play():
    game = Round.from_position(hands=["7d 2c", "Kc Qs 2d"], table="3s 4h", dealer=1)
    assert game.turn == 1                                   # seat 0 has played this deal
    game = Round.from_position(hands=["", "", "", "Kc"], table="3s", rules="scopa-4", dealer=3)
    assert game.turn == 3                                   # the dealer plays last
    game = Round.from_position(hands=["", ""], table="3s 4h", deck=ALL_CARDS[30:36], dealer=1)
    assert [len(h) for h in game.hands] == [3, 3] and game.turn == 0     # dealt on the spot
    start = Round.from_position(hands=["", ""], table=ALL_CARDS[:4], deck=ALL_CARDS[4:])
    assert start.hands == Round(deck=ALL_CARDS).hands and start.turn == 1


@pytest.mark.parametrize("dealer", [2, -1, True, 0.0, "0", None])
def test_a_deck_order_needs_a_whole_seat_as_dealer(dealer):
    with pytest.raises(ValueError, match="dealer must be a seat 0..1"):
        Round(deck=ALL_CARDS, dealer=dealer)


@pytest.mark.parametrize("seed", [-1, 2 ** 64, 1.5, 2.0, True, "1", None])
def test_suggest_refuses_a_bad_seed(seed):
    with pytest.raises(ValueError, match="seed must be a whole number 0..2\\*\\*64-1"):
        Round(deck=ALL_CARDS).suggest("random", seed=seed)


def test_suggest_takes_any_seed_in_range():
    game = Round(deck=ALL_CARDS)
    for seed in (0, 2 ** 64 - 1, np.uint64(2 ** 63), np.int64(5)):
        assert game.suggest("pimc:samples=2", seed=seed) in game.legal_moves()
    with pytest.raises(ValueError, match="unknown strategy"):
        game.suggest("minimax")


@pytest.mark.parametrize("text, problem", [
    ("pimc:samples=1.5", "samples of pimc must be 1..100000, a whole number, not 1.5"),
    ("pimc:samples=0", "samples of pimc must be 1.."),
    ("pimc:samples=1e9", "samples of pimc must be 1..100000"),
    ("pimc:samples=nan", "needs a number"),
    ("pimc:samples=inf", "needs a number"),
    ("ismcts:iterations=50.5", "iterations of ismcts must be 1..30000, a whole number"),
    ("ismcts:iterations=-3", "must be 1..30000"),
    ("endgame:max_cards=2.5", "max_cards of endgame must be 1..16, a whole number"),
    ("endgame:max_cards=17", "must be 1..16"),
    ("pimc:endgame=0.5", "endgame of pimc is 0 \\(off\\) or 1 \\(on\\)"),
    ("ismcts:endgame=2", "is 0 \\(off\\) or 1 \\(on\\)"),
    ("ismcts:exploration=-0.1", "exploration of ismcts must be 0 or more"),
    ("greedy:card=1e999", "needs a number"),
    ("endgame:fallback=pimc", "names a fast strategy"),
])
def test_strategy_parameters_that_are_unsafe_are_refused(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_strategy(text)


def test_strategy_parameters_that_are_safe_are_kept():
    assert dict(parse_strategy("pimc:samples=2").values)["samples"] == 2
    assert dict(parse_strategy("pimc:samples=2.0,endgame=0").values)["endgame"] == 0
    assert dict(parse_strategy("endgame:max_cards=16").values)["max_cards"] == 16
    for text in ("ismcts:exploration=0", "ismcts:exploration=1e300", "greedy:card=-1e308",
                 "heuristic:sweep=1e308,seven=-1e308", "counter:coin_exposed=-5"):
        parse_strategy(text)


def test_a_strategy_built_by_hand_is_checked_too():
    s = parse_strategy("pimc")
    with pytest.raises(ValueError, match="samples of pimc must be 1..100000"):
        type(s)(s.spec, (("samples", 1e9),) + s.values[1:])
    with pytest.raises(ValueError, match="takes values for samples, rollout, endgame"):
        type(s)(s.spec, s.values[:1])
    with pytest.raises(ValueError, match="unknown strategy"):
        type(s)(type(s.spec)("pimc", 99, "search", "", s.spec.declared), s.values)


def test_a_game_changed_behind_its_back_is_refused_not_played():
    game = Round(deck=ALL_CARDS)                   # seat 1 leads
    game.turn = 0
    with pytest.raises(ValueError, match="internal: bad kernel position: seat 0 is not the seat"):
        game.suggest("random")
    game = Round(deck=ALL_CARDS)
    game.hands[1].append(game.table[0])
    with pytest.raises(ValueError, match="distinct cards"):
        game.legal_moves()


def test_legal_moves_of_the_largest_position_fit_the_kernel_buffers():
    # the most legal moves of any hand and table: aces to sixes on the table
    table = [c for c in ALL_CARDS if c % 10 < 6]
    hand = [c for c in ALL_CARDS if c % 10 >= 6]
    assert len(legal_moves(hand, table)) == 13724
    assert len(legal_captures([c for c in ALL_CARDS if c % 10 < 9], "Kd")) == 1698


# ---- the exact endgame on a rebuilt position ------------------------------
def _value(game: Round, side: int) -> int:
    """Exact round margin for `side` with best play by everyone."""
    if game.done:
        res = game.result()
        return res[f"points_{side}"] - max(res[f"points_{t}"] for t in range(game.rules.n_sides)
                                           if t != side)
    values = []
    for move in game.legal_moves():
        child = game.copy()
        child.play(*move)
        values.append(_value(child, side))
    return max(values) if game.rules.teams[game.turn] == side else min(values)


def test_a_rebuilt_position_hides_the_cards_out_of_the_round_from_nobody():
    """From a position given by hands and table only, the endgame sees that
    the cards out of the round are not in the other hand, and solves exactly."""
    rng = random.Random(4)
    checked = 0
    while checked < 12:
        game = _random_game(rng, PRESETS["scopa"], plays=30 + rng.randrange(4))
        if game.done or len(game.legal_moves()) < 2:
            continue
        rebuilt = Round.from_position(hands=game.hands, table=game.table, dealer=game.dealer)
        side = rebuilt.rules.teams[rebuilt.turn]
        values = {}
        for move in rebuilt.legal_moves():
            child = rebuilt.copy()
            child.play(*move)
            values[move] = _value(child, side)
        assert values[rebuilt.suggest("endgame")] == max(values.values()), rebuilt.log()
        checked += 1


# ---- the fuzz test: every strategy on many positions, in a subprocess ----
FUZZ_RULES = [*PRESETS, "scopa+ace_takes_all+fewest_cards", "scopa-3+scopa_on_last_play+napola",
              "custom-6", "custom-5", "custom-20"]
CHEAP = {"pimc": "pimc:samples=4", "ismcts": "ismcts:iterations=50"}
ODD = ["ismcts:iterations=30,exploration=0", "ismcts:iterations=30,exploration=1e300",
       "greedy:card=1e308,coin=-1e308", "heuristic:sweep=1e308,seven=1e308",
       "counter:settebello_exposed=-1e308", "pimc:samples=2,rollout=random,endgame=0",
       "endgame:max_cards=16,fallback=greedy", "endgame:max_cards=1"]
EVERY = [CHEAP.get(name, name) for name in STRATEGIES]    # every strategy, cheaply


def _rules(name: str) -> Rules:
    custom = {"custom-6": Rules(players=6),                                  # six sides
              "custom-5": Rules(players=5, hand_size=1, table_size=5),
              "custom-20": Rules(hand_size=20, table_size=0, refill=False)}  # 20-card hands
    return custom.get(name) or Rules.preset(name)


def _random_game(rng: random.Random, rules: Rules, plays: int) -> Round:
    """A round dealt from a random deck and played `plays` random moves in."""
    deck = ALL_CARDS[:]
    rng.shuffle(deck)
    game = Round(rules, deck=deck, dealer=rng.randrange(rules.players))
    for _ in range(plays):
        if game.done:
            break
        game.play(*rng.choice(game.legal_moves()))
    return game


def _position(game: Round) -> dict:
    return dict(hands=[names(h) for h in game.hands], table=names(game.table),
                deck=names(game.deck), dealer=game.dealer, turn=game.turn)


def _mangle(rng: random.Random, position: dict, players: int) -> dict:
    """The position with one thing changed: a card moved, dropped or doubled,
    the dealer or turn changed, or everything drawn at random."""
    p = {**position, "hands": list(position["hands"])}
    places = [("hands", i) for i in range(players)] + [("table", None), ("deck", None)]

    def get(place):
        key, i = place
        return parse_cards(p[key][i] if i is not None else p[key])

    def put(place, cards):
        key, i = place
        if i is None:
            p[key] = names(cards)
        else:
            p[key][i] = names(cards)

    kind = rng.randrange(6)
    if kind < 3:                        # move (0), drop (1) or copy (2) a card
        src, dst = rng.choice(places), rng.choice(places)
        cards = get(src)
        if cards:
            c = rng.choice(cards)
            if kind != 2:
                put(src, [x for x in cards if x != c])
            if kind != 1:
                put(dst, get(dst) + [c])
    elif kind == 3:
        p[rng.choice(["dealer", "turn"])] = rng.choice([-1, 0, 1, 2, 5, 9, True, 1.0, None])
    else:                               # random hands, table, deck, dealer and turn
        cards = ALL_CARDS[:]
        rng.shuffle(cards)
        cuts = sorted(rng.randrange(41) for _ in range(players + 2))
        parts = [cards[a:b] for a, b in zip([0] + cuts, cuts)]
        p = dict(hands=[names(h) for h in parts[:players]], table=names(parts[players]),
                 deck=names(parts[players + 1]), dealer=rng.randrange(-1, players + 1),
                 turn=rng.choice([None, *range(players)]))
    return p


def _tamper(rng: random.Random, game: Round) -> Round:
    """The game with its state changed behind its back."""
    kind, seat = rng.randrange(4), rng.randrange(game.rules.players)
    if kind == 0:
        game.turn = (game.turn + 1) % game.rules.players
    elif kind == 1 and game.hands[seat]:
        game.table.append(game.hands[seat].pop())
    elif kind == 2:
        game.deck.append(rng.randrange(40))
    else:
        game.hands[seat].append(rng.randrange(40))
    return game


def fuzz(seed: int, rounds: int) -> None:
    """Run `suggest` with every strategy on consistent positions (real rounds
    stopped at random points, and the same positions rebuilt with
    from_position) and on mangled or tampered ones. A consistent position
    must get a legal move; any other a legal move or a ValueError. Prints
    each case before running it, so that a crash names the case."""
    rng = random.Random(seed)
    counts = {"answered": 0, "refused": 0}

    def ask(game, strategy, label):
        print(f"  {label}: {strategy}", flush=True)
        move = game.suggest(strategy, seed=rng.randrange(2 ** 64))
        assert move in game.legal_moves(), (label, strategy, move)
        counts["answered"] += 1

    for name in FUZZ_RULES:
        rules = _rules(name)
        total = 40 - rules.table_size
        for k in range(rounds):
            plays = rng.choice([rng.randrange(total), total - 1 - rng.randrange(min(total, 8))])
            game = _random_game(rng, rules, plays)
            print(f"{name} round {k} after {plays} plays: {json.dumps(_position(game))}",
                  flush=True)
            rebuilt = Round.from_position(rules=rules, **_position(game))
            for strategy in EVERY:
                ask(game, strategy, "played")
                ask(rebuilt, strategy, "rebuilt")
            ask(rebuilt, rng.choice(ODD), "rebuilt")
            try:
                ask(_tamper(rng, rebuilt.copy()), rng.choice(EVERY + ODD), "tampered")
            except ValueError:
                counts["refused"] += 1
            if k == 0 and name in ("scopa", "scopa-4", "scopa-4-nine"):
                for strategy in ("pimc", "ismcts"):          # the defaults, on a few
                    ask(rebuilt, strategy, "rebuilt")
            for m in range(6):
                mangled = _mangle(rng, _position(game), rules.players)
                print(f"{name} mangled {k}.{m}: {json.dumps(mangled)}", flush=True)
                try:
                    hostile = Round.from_position(rules=rules, **mangled)
                except ValueError as error:
                    assert "\n" not in str(error)
                    counts["refused"] += 1
                    continue
                for strategy in EVERY:
                    ask(hostile, strategy, "mangled")
    print("done", json.dumps(counts), flush=True)


def test_no_position_or_strategy_crashes_or_hangs_the_process():
    for strategy in EVERY:                        # compile in this process, not the child
        Round(deck=ALL_CARDS).suggest(strategy)
    start = time.monotonic()
    try:
        child = subprocess.run([sys.executable, __file__, "fuzz", "1", "8"], capture_output=True,
                               text=True, timeout=120)
    except subprocess.TimeoutExpired as hang:
        out = hang.stdout or b""
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        pytest.fail(f"hung for 120 s; last case: {out.strip().splitlines()[-1:]}")
    cases = child.stdout.strip().splitlines()
    assert child.returncode == 0, (
        f"exit code {child.returncode} (negative: killed by a signal) after "
        f"{time.monotonic() - start:.0f} s; last case: {cases[-1:]}\n{child.stderr[-3000:]}")
    counts = json.loads(cases[-1].removeprefix("done "))
    assert counts["answered"] > 1500 and counts["refused"] > 300, counts


if __name__ == "__main__" and sys.argv[1:2] == ["fuzz"]:
    fuzz(int(sys.argv[2]), int(sys.argv[3]))
