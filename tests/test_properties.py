"""Invariants of every round, over seeds, strategy mixes and rule sets.

Checked on ``scopa_sim.simulate`` rows and on ``scopa_sim.trace_round``,
which replays the kernel's moves through the checked Python ``Round`` (and
raises on an illegal move).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scopa_sim

RULES = {
    "scopa": lambda: "scopa",
    "3p": lambda: scopa_sim.Rules(players=3, teams=(0, 1, 2), hand_size=3, table_size=4),
    "4p-teams": lambda: scopa_sim.Rules(players=4, teams=(0, 1, 0, 1), hand_size=3, table_size=4),
    "4p-10cards": lambda: scopa_sim.Rules(players=4, teams=(0, 1, 0, 1), hand_size=10, table_size=0, refill=False),
    "6p-teams": lambda: scopa_sim.Rules(players=6, teams=(0, 1, 2, 0, 1, 2), hand_size=3, table_size=4),
}
# Every preset, and the variant options (docs/VARIANTS.md) on every preset.
VARIANTS = [
    *scopa_sim.PRESETS,
    "scopa+fewest_cards+ace_takes_all+scopa_on_last_play+primiera_forfeit+re_bello+napola",
    "scopa-3+target=8+ace_takes_all+napola",
    "scopa-4+target=15+fewest_cards+primiera_forfeit",
    "scopa-4-nine+scopa_on_last_play+re_bello",
    "scopone-scientifico+fewest_cards+ace_takes_all+napola",
    "scopa-6+scopa_on_last_play+primiera_forfeit+re_bello",
    "scopa+primiera_scale=1,1,1,1,1,1,1,1,1,1000",
]
RULES.update({name: (lambda name=name: name) for name in VARIANTS})
SETTINGS = settings(max_examples=40, deadline=None)
# Every registered strategy; the search strategies with small budgets, so
# that a round takes milliseconds.
SMALL = {"samples": 2, "iterations": 8, "max_cards": 4}
STRATEGIES = [
    ":".join([name, ",".join(f"{k}={SMALL[k]}" for k in spec.params if k in SMALL)]).rstrip(":")
    for name, spec in scopa_sim.STRATEGIES.items()
]

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def resolve(rules_id):
    rules = RULES[rules_id]()
    obj = scopa_sim.Rules.preset(rules) if isinstance(rules, str) else rules
    return rules, obj


@st.composite
def setups(draw):
    """(rules, Rules object, strategies per seat)."""
    rules, obj = resolve(draw(st.sampled_from(sorted(RULES))))
    strategies = tuple(draw(st.sampled_from(STRATEGIES)) for _ in range(obj.players))
    return rules, obj, strategies


PARTS = ["pt_cards", "pt_coins", "pt_settebello", "pt_primiera", "scopas"]


def strictly_ahead(values, t):
    return all(values[t] > v for u, v in enumerate(values) if u != t)


def check_round(row, obj):
    """The invariants of one round's record (a dict of ints)."""
    sides = range(obj.n_sides)
    cards = [row[f"cards_{t}"] for t in sides]
    coins = [row[f"coins_{t}"] for t in sides]
    prim = [row[f"primiera_{t}"] for t in sides]
    sette = [row[f"settebello_{t}"] for t in sides]
    nobody = row["last_capturer"] == -1
    # all 40 cards accounted for; cards stay on the table only if nobody captured
    assert sum(cards) + (row["leftover"] if nobody else 0) == 40
    assert 0 <= row["leftover"] <= 40
    if nobody:
        assert row["captures"] == 0 and sum(cards) == 0 and sum(sette) == 0
    else:
        assert 0 <= row["last_capturer"] < obj.players
        assert row["captures"] >= 1
        assert sum(coins) == 10
        assert sum(sette) == 1  # exactly one side has the settebello
    scale = obj.primiera_scale
    parts = PARTS + ["pt_re_bello"] * obj.re_bello + ["pt_napola"] * obj.napola
    for t in sides:
        assert 0 <= coins[t] <= cards[t]
        assert sette[t] in (0, 1)
        assert row[f"pt_settebello_{t}"] == sette[t]
        assert row[f"pt_cards_{t}"] == int(strictly_ahead(cards, t))
        assert row[f"pt_coins_{t}"] == int(strictly_ahead(coins, t))
        assert row[f"pt_primiera_{t}"] == int(strictly_ahead(prim, t))
        assert 0 <= prim[t] <= 4 * max(scale)
        if obj.primiera_forfeit:  # all four suits or nothing
            assert prim[t] == 0 or prim[t] >= 4 * min(scale)
        assert 0 <= row[f"scopas_{t}"] <= row["captures"]
        assert row[f"points_{t}"] == sum(row[f"{p}_{t}"] for p in parts)
        assert (f"pt_re_bello_{t}" in row) == obj.re_bello and (f"pt_napola_{t}" in row) == obj.napola
        if obj.napola:
            assert row[f"pt_napola_{t}"] in (0, 3, 4, 5, 6, 7, 8, 9, 10)
            assert row[f"pt_napola_{t}"] <= row[f"coins_{t}"]
    assert sum(row[f"scopas_{t}"] for t in sides) <= row["captures"]
    if obj.re_bello:  # the king of coins is in one pile, if anyone captured
        assert sum(row[f"pt_re_bello_{t}"] for t in sides) == (0 if nobody else 1)
    if obj.napola:  # the ace of coins is in at most one pile
        assert sum(row[f"pt_napola_{t}"] > 0 for t in sides) <= 1


def as_int_dict(series):
    return {k: int(v) for k, v in series.items()}


@SETTINGS
@given(setup=setups(), seed=seeds, n=st.integers(min_value=1, max_value=25))
def test_simulate_rows_keep_the_invariants(setup, seed, n):
    rules, obj, strategies = setup
    df = scopa_sim.simulate(rounds=n, strategies=strategies, rules=rules, seed=seed)
    assert len(df) == n
    assert list(df["round"]) == list(range(n))
    for i in range(n):
        row = as_int_dict(df.iloc[i])
        assert row["dealer"] == i % obj.players
        check_round(row, obj)


@pytest.mark.slow                  # every preset traced through the Python loop
@SETTINGS
@given(setup=setups(), seed=seeds, index=st.integers(min_value=0, max_value=30))
def test_trace_round_replays_to_the_simulated_row(setup, seed, index):
    rules, obj, strategies = setup
    row = as_int_dict(
        scopa_sim.simulate(rounds=index + 1, strategies=strategies, rules=rules, seed=seed).iloc[index]
    )
    game = scopa_sim.trace_round(seed, index, strategies=strategies, rules=rules)  # raises on an illegal move
    result = {k: int(v) for k, v in game.result().items()}
    check_round(result, obj)
    for key, value in result.items():
        if key in row:
            assert value == row[key], f"{key}: trace_round {value}, simulate {row[key]}"
    for key in ["dealer", "last_capturer", "leftover", "captures", *[f"points_{t}" for t in range(obj.n_sides)]]:
        assert key in result

    moves = [(int(s), int(c), tuple(int(x) for x in cap)) for s, c, cap in game.moves]
    # every dealt card is played once, in turn order from the seat after the dealer
    assert len(moves) == 40 - obj.table_size
    leader = (row["dealer"] + 1) % obj.players
    assert [s for s, _, _ in moves] == [(leader + k) % obj.players for k in range(len(moves))]
    played = [c for _, c, _ in moves]
    assert len(set(played)) == len(played)
    captured = [x for _, _, cap in moves for x in cap]
    capturing = {c for _, c, cap in moves if cap}
    assert len(set(captured)) == len(captured)  # a card is captured at most once
    assert not set(captured) & capturing  # a card that captured went to a pile
    assert sum(1 for _, _, cap in moves if cap) == result["captures"]
    if result["captures"]:
        assert result["last_capturer"] == max((k, s) for k, (s, _, cap) in enumerate(moves) if cap)[1]
    # what no play put in a pile is on the table at the end
    assert 40 - len(set(captured) | capturing) == result["leftover"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("rules_id", VARIANTS)
def test_every_strategy_on_every_preset_and_option(rules_id, strategy):
    """Not sampled: each strategy against random, on each preset and option mix."""
    rules, obj = resolve(rules_id)
    strategies = tuple((strategy, "random")[s % 2] for s in range(obj.players))
    df = scopa_sim.simulate(rounds=3, strategies=strategies, rules=rules, seed=len(rules_id))
    for i in range(3):
        check_round(as_int_dict(df.iloc[i]), obj)
    game = scopa_sim.trace_round(len(rules_id), 2, strategies=strategies, rules=rules)  # raises on an illegal move
    result = {k: int(v) for k, v in game.result().items()}
    check_round(result, obj)
    assert result == {k: v for k, v in as_int_dict(df.iloc[2]).items() if k in result}
