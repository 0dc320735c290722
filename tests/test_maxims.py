"""The maxims of the rule texts as switches of one strategy
(docs/examples/maxims/base.py, scopa_sim.study.maxims): each pair plays only legal
moves, a switch changes a move only where its maxim speaks, and `measure`
returns what it documents."""
import importlib.util
import math

import pytest

import scopa_sim
from scopa_sim.engine.game import Round
from scopa_sim.study.maxims import MAXIMS, STRATEGY, measure, strategies
from scopa_sim.runs.traces import trace_round
from scopa_sim.engine.strategies import parse_strategy

spec = importlib.util.spec_from_file_location("maxims_base", STRATEGY)
base = importlib.util.module_from_spec(spec)
spec.loader.exec_module(base)                  # for its weights; its functions are not called

ALL_ON = f"{STRATEGY}:maxims"
ALL_OFF = ALL_ON + ":" + ",".join(f"{m.parameter}=0" for m in MAXIMS.values())


def rank_sum(cards):
    return sum(c % 10 + 1 for c in cards)


def makes_seven(cards):
    reach = {0}
    for c in cards:
        reach |= {r + c % 10 + 1 for r in reach}
    return 7 in reach


def term(maxim, rnd, move):
    """The maxim's term of a move in the round's position, written again in
    Python from the maxim (the strategy's weights)."""
    card, take = move
    seat, table = rnd.turn, set(rnd.table)
    gained = {card, *take} if take else set()
    left = table - set(take) if take else table | {card}
    taken = {c for pile in rnd.piles for c in pile}
    unseen = set(range(40)) - set(rnd.hands[seat]) - table - taken
    last = not rnd.deck and sum(len(h) for h in rnd.hands) == 1
    faces = not last and bool(left)                 # the next player faces `left`
    suits = lambda cards: {c // 10 for c in cards}  # noqa: E731
    mine = rnd.piles[rnd.rules.teams[seat]]
    return {
        "settebello": base.W_SETTEBELLO * (6 in gained),
        "above_ten": base.W_ABOVE_TEN * (faces and rank_sum(left) > 10),
        "single": -base.W_SINGLE * (faces and len(left) == 1),
        "primiera": (base.W_SEVEN * sum(c % 10 == 6 for c in gained)
                     + base.W_SIX * sum(c % 10 == 5 for c in gained)
                     + base.W_NEW_SUIT * len(suits(gained) - suits(mine))),
        "coins": base.W_COIN_TAKEN * sum(c < 10 for c in gained)
                 - base.W_COIN_TRAILED * (not take and card < 10),
        "cards": base.W_CARD * len(take),
        "no_seven": -base.W_SETS_SEVEN * (faces and any(c % 10 == 6 for c in unseen)
                                          and makes_seven(left)),
    }[maxim]


def test_the_table_names_each_parameter_of_the_strategy():
    declared = parse_strategy(ALL_ON).spec.params
    assert [m.parameter for m in MAXIMS.values()] == list(declared)
    assert all(v == 1.0 for v in declared.values())
    for name, m in MAXIMS.items():
        assert m.title and m.quote and m.source.startswith(("the worked-game page's", "the database summary's"))
        on, off = strategies(name)
        assert on.endswith(f":maxims:{m.parameter}=1") and off.endswith(f":maxims:{m.parameter}=0")


def test_every_switch_plays_legal_moves():
    df = scopa_sim.simulate(rounds=300, strategies=(ALL_ON, ALL_OFF), seed=3, workers=1)
    assert len(df) == 300
    for i in range(3):                          # the checked Round raises on an illegal move
        assert trace_round(3, i, (ALL_ON, ALL_OFF)).done


@pytest.mark.parametrize("maxim", list(MAXIMS))
def test_a_switch_changes_a_move_only_where_its_maxim_speaks(maxim):
    """Wherever on and off choose differently, on's move scores more on the
    maxim's own term (the rest of the value being the same for both)."""
    on, off = (parse_strategy(s) for s in strategies(maxim))
    differ = 0
    for i in range(6):
        played = trace_round(5, i, (on, off))
        rnd = Round(deck=played.deck_order, dealer=played.dealer)
        for k, (_, card, take) in enumerate(played.moves):
            a, b = rnd.suggest(on, seed=k), rnd.suggest(off, seed=k)
            if a != b:
                differ += 1
                assert term(maxim, rnd, a) > term(maxim, rnd, b) + 1e-9, (maxim, a, b)
            rnd.play(card, take)
    assert differ > 0 or maxim in ("settebello",)      # the settebello is rarely in reach


# Positions from the first play of round 304, 262 and 6 of seed 0: seat 0 to play.
POSITIONS = [
    # the 7 of coins takes the 7 of swords, or the king takes three cards
    ("settebello", "7d 7c Kc", "Qd 5s 5c", "As 5d 2c 7s", ("7d", "7s"), [("Kc", "As 2c 7s")]),
    # the queen takes 2+7 leaving 4 and 3, or 4+2+3 leaving the 7 of clubs alone
    ("single", "Ad 7s Qs", "Qd Kd 4s", "7c 2s 4h 3s", ("Qs", "2s 7c"), [("Qs", "2s 3s 4h")]),
    # nothing to take: trail the ace (no seven to make), not a two (5 + 2; either, a tie)
    ("no_seven", "2h As 2c", "Ah 7h Kh", "5s Jc Qh 4s", ("As", ""), [("2h", ""), ("2c", "")]),
]


@pytest.mark.parametrize("maxim, hand, other, table, on_move, off_moves", POSITIONS)
def test_positions_where_a_maxim_decides(maxim, hand, other, table, on_move, off_moves):
    held = set(scopa_sim.parse_cards(f"{hand} {other} {table}"))
    deck = [c for c in range(40) if c not in held]
    rnd = Round.from_position(hands=[hand, other], table=table, deck=deck, dealer=1)
    assert rnd.turn == 0
    move = lambda card, take: (scopa_sim.parse_card(card),  # noqa: E731
                               tuple(sorted(scopa_sim.parse_cards(take))))
    on, off = strategies(maxim)
    assert rnd.suggest(on) == move(*on_move)
    assert rnd.suggest(off) in [move(*m) for m in off_moves]
    for name in MAXIMS:                         # another switch changes it only if its
        changed = rnd.suggest(strategies(name)[1])      # maxim speaks for the move
        if changed != move(*on_move):
            assert term(name, rnd, move(*on_move)) > term(name, rnd, changed)


def test_measure_returns_its_keys_with_intervals_around_the_estimates():
    r = measure("cards", deals=400, seed=1, workers=1, sample=8)
    assert r["maxim"] == "cards" and r["deals"] == 400 and r["seed"] == 1
    assert r["on"].endswith("cards=1") and r["off"].endswith("cards=0")
    for key in ("margin", "round_win_difference"):
        est = r[key]["estimate"]
        assert r[key]["low"] <= est <= r[key]["high"] and math.isfinite(est)
    assert r["margin"]["n"] == 400 and r["round_win_difference"]["n"] == 800
    for key in ("round_win_on", "round_win_off", "differ", "rounds_affected"):
        assert r[key]["low"] <= r[key]["rate"] <= r[key]["high"]
    assert r["differ"]["n"] == r["choices"] <= r["decisions"] == 8 * 36
    assert r["rounds_affected"]["n"] == 8
    assert r["round_win_difference"]["estimate"] == pytest.approx(
        r["round_win_on"]["rate"] - r["round_win_off"]["rate"])
    with pytest.raises(ValueError, match="unknown maxim"):
        measure("luck", deals=10)
