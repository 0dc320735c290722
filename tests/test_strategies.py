"""Strategies: the exact endgame against brute force, and the invariant
harness over every strategy and every rules preset."""
import numpy as np
import pandas as pd
import pytest

import scopa_sim
from scopa_sim import PRESETS, STRATEGIES, Round, parse_strategy

# cheap settings for the search strategies, so the harness stays fast
CHEAP = {"pimc": "pimc:samples=3", "ismcts": "ismcts:iterations=40"}
ALL = [CHEAP.get(name, name) for name in STRATEGIES]


def margin(result, side, n_sides):
    return result[f"points_{side}"] - max(result[f"points_{t}"] for t in range(n_sides) if t != side)


def brute_force(game: Round, side: int) -> float:
    """Exact value for `side` of a position with nothing hidden, by trying everything."""
    if game.done:
        return margin(game.result(), side, game.rules.n_sides)
    values = []
    for card, take in game.legal_moves():
        child = game.copy()
        child.play(card, take)
        values.append(brute_force(child, side))
    mine = game.rules.teams[game.turn] == side
    return max(values) if mine else min(values)


def endgame_positions(count, cards_left):
    """Positions from simulated rounds once the deck is out and `cards_left`
    cards remain in the hands."""
    out = []
    for index in range(count):
        traced = scopa_sim.trace_round(seed=99, index=index, strategies=("greedy", "random"))
        game = Round(deck=_deck_of(99, index), dealer=traced.dealer)
        for seat, card, take in traced.moves[:40 - 4 - cards_left]:
            game.play(card, take)
        out.append(game)
    return out


def _deck_of(seed, index):
    import scopa_sim.kernels.layout as layout
    from scopa_sim.engine.seats import Seats
    seats = Seats(scopa_sim.Rules(), ("random", "random"))
    scratch = seats.scratch()
    seats.play(False, seed, index, 1, np.zeros((1, 2, layout.N_SIDE), np.int16),
               np.zeros((1, layout.N_ROUND), np.int64), scratch)
    return [int(c) for c in scratch.deck]


@pytest.mark.parametrize("cards_left", [2, 4, 6])
def test_endgame_agrees_with_brute_force(cards_left):
    for game in endgame_positions(12, cards_left):
        side = game.rules.teams[game.turn]
        values = {}
        for card, take in game.legal_moves():
            child = game.copy()
            child.play(card, take)
            values[(card, take)] = brute_force(child, side)
        choice = game.suggest("endgame")
        assert values[choice] == max(values.values()), (game.log(), values, choice)
        for strategy in ("pimc", "ismcts"):         # both hand over to the solver here
            assert values[game.suggest(strategy)] == max(values.values())


@pytest.mark.parametrize("strategy", ALL)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_strategy_in_every_preset_keeps_the_invariants(strategy, preset):
    rules = PRESETS[preset]
    strategies = [strategy if s % 2 == 0 else "random" for s in range(rules.n_sides)]
    df = scopa_sim.simulate(rounds=4, strategies=strategies, rules=rules, seed=5)
    sides = range(rules.n_sides)
    cards = sum(df[f"cards_{t}"] for t in sides)
    assert ((cards == 40) | ((df["last_capturer"] == -1) & (cards + df["leftover"] == 40))).all()
    settebello = sum(df[f"settebello_{t}"] for t in sides)
    nobody_captured = df["last_capturer"] == -1            # then no pile holds it
    assert (settebello == np.where(nobody_captured, 0, 1)).all()
    for t in sides:
        parts = [c for c in df if c.startswith("pt_") and c.endswith(f"_{t}")]
        assert (df[f"points_{t}"] == df[parts].sum(axis=1) + df[f"scopas_{t}"]).all()
    again = scopa_sim.simulate(rounds=4, strategies=strategies, rules=rules, seed=5, workers=2,
                               batch_size=2)
    pd.testing.assert_frame_equal(df, again)
    game = scopa_sim.trace_round(5, 1, strategies=strategies, rules=rules)  # checks every move
    assert game.done and game.result()["points_0"] == df.loc[1, "points_0"]


def test_strategy_notation_and_errors():
    s = parse_strategy("pimc:samples=8,rollout=greedy")
    assert dict(s.values)["samples"] == 8 and str(s) == "pimc:samples=8,rollout=greedy"
    with pytest.raises(ValueError, match="names a fast strategy"):
        parse_strategy("pimc:rollout=pimc")
    with pytest.raises(ValueError, match="must be 1.."):
        parse_strategy("ismcts:iterations=0")
    assert set(STRATEGIES) == {"random", "greedy", "heuristic", "counter", "reply", "pimc",
                               "ismcts", "endgame", "spimc", "net", "netsearch"}
    assert scopa_sim.engine.strategies.split_strategies("heuristic:sweep=3,seven=2,greedy") == [
        "heuristic:sweep=3,seven=2", "greedy"]


def test_suggest_sees_only_what_the_seat_sees():
    """Two positions alike for the seat to move (same hand, table, piles) but
    with the hidden cards dealt differently get the same advice."""
    a = Round.from_position(hands=["7d 3c 5h", "Kc Qs 2d"], table="4h 3s",
                           deck="Jd " + " ".join(f"{r}s" for r in "A2456") , dealer=1)
    b = Round.from_position(hands=["7d 3c 5h", "Jd 4s 5s"], table="4h 3s",
                           deck="Kc Qs 2d As 2s 6s", dealer=1)
    for strategy in ("counter", "pimc:samples=20", "ismcts:iterations=100"):
        assert a.suggest(strategy, seed=3) == b.suggest(strategy, seed=3)


@pytest.mark.parametrize("rules", ["scopone-scientifico", "scopa-3"])
def test_endgame_samples_deals_once_the_deck_is_out_and_plays_only_legal_moves(rules):
    """With several seats hiding the last cards, endgame's sampled exact play
    differs from its fallback, and every move it makes is legal (replayed
    through the checked Round)."""
    n = scopa_sim.Rules.resolve(rules).players
    sampled = ["endgame:deals=4"] + ["counter"] * (n - 1)
    plain = ["endgame:deals=0"] + ["counter"] * (n - 1)
    for index in range(6):
        scopa_sim.trace_round(3, index, strategies=sampled, rules=rules)
    a = scopa_sim.simulate(rounds=60, strategies=sampled, rules=rules, seed=3)
    b = scopa_sim.simulate(rounds=60, strategies=plain, rules=rules, seed=3)
    assert not a.equals(b)


# -- the registry: ids from the records, names that shadow nothing ---------------------
# Ids runs, scripts and users' notes already know: a new strategy goes at the end.
KNOWN_IDS = {"random": 0, "greedy": 1, "heuristic": 2, "counter": 3, "reply": 4, "pimc": 5,
             "ismcts": 6, "endgame": 7, "spimc": 8, "net": 9, "netsearch": 10}


def test_strategy_ids_are_dense_unique_and_stable():
    from scopa_sim.kernels import registry as R
    assert [b.id for b in R.BUILTINS] == list(range(len(R.RECORDS)))
    assert R.ID._fields == R.NAMES and tuple(R.ID) == tuple(range(len(R.NAMES)))
    assert len(set(R.NAMES)) == len(R.NAMES)
    assert {n: getattr(R.ID, n) for n in KNOWN_IDS} == KNOWN_IDS
    assert len(R.BUILTINS) <= R.USER and R.PYTHON < 0       # no user id is a built-in's
    # a "strategy" parameter's default names a strategy and becomes its id
    assert R.DEFAULTS[R.ID.pimc, R.P_ROLLOUT] == R.ID.counter
    assert R.DEFAULTS[R.ID.endgame, R.P_FALLBACK] == R.ID.reply


@pytest.mark.parametrize("names, why", [
    (("greedy", "greedy"), "strategy names taken twice: greedy"),
    (("Greedy",), "strategy name 'Greedy': lower-case"),
    (("_helper",), "strategy name '_helper': lower-case"),
    (("for",), "strategy name 'for': lower-case"),
])
def test_a_bad_strategy_name_is_refused_in_one_line(names, why):
    from scopa_sim.kernels import registry as R
    with pytest.raises(ValueError, match=why) as e:
        R.declare(tuple(R.Builtin(n, "simple", (), "") for n in names))
    assert "\n" not in str(e.value)


SHADOWS = '''
import ast, pathlib, sys
import pandas as pd
from scopa_sim.kernels import registry as R
kernels = pathlib.Path(R.__file__).parent
names = set()
for path in kernels.glob("*.py"):                # every name the kernel modules use
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name.lower())
        elif isinstance(node, ast.Name):
            names.add(node.id.lower())
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name.split(".")[0]).lower())
names = sorted(n for n in names if n.isidentifier() and n[0].isalpha() and n not in R.NAMES)
assert {"lowest", "user", "choose", "kernel", "play_out", "r_fewest_cards"} <= set(names), names
extra = tuple(R.Builtin(n, "fast", (), "named like a kernel helper") for n in names)
R.BUILTINS, R.NAMES, R.ID, R.FAST, R.DEFAULTS = R.declare(R.RECORDS + extra)
import scopa_sim
from scopa_sim.kernels import bits, heuristics, registry
assert heuristics.lowest is bits.lowest and registry.USER == 64
assert scopa_sim.STRATEGIES["lowest"].id == registry.ID.lowest >= 11
df = scopa_sim.simulate(rounds=300, strategies=("random", "greedy"), seed=5)
print(len(names), int(pd.util.hash_pandas_object(df, index=False).sum()))
'''


def test_a_strategy_named_like_any_kernel_helper_shadows_nothing(tmp_path):
    """Built-in strategies named like every name the kernel modules define
    (`lowest`, `user`, `choose`, ...), registered in a process of their own
    with a cache folder of its own: the kernels compile and play as before."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    made = subprocess.run([sys.executable, "-c", SHADOWS], env=env, capture_output=True,
                          text=True, timeout=900)
    assert made.returncode == 0, made.stderr[-3000:]
    count, digest = map(int, made.stdout.split())
    df = scopa_sim.simulate(rounds=300, strategies=("random", "greedy"), seed=5)
    assert count > 100 and digest == int(pd.util.hash_pandas_object(df, index=False).sum())
