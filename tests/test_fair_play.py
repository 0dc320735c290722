"""Fair play (issue 23): a strategy sees only what its seat knows. The deal
and the decisions draw from streams keyed apart by SipHash, so the random
bits an observation shows decode to nothing; every user call gets a fresh
observation and moves of exactly the legal length; a jitted strategy is
bounds checked, so an index bug is an error line, not a changed game."""
import math
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scopa_sim
from scopa_sim import kernels
from scopa_sim.kernels.layout import R_HAND_SIZE, R_PLAYERS, R_TABLE_SIZE
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.observe
import scopa_sim.kernels.rng
import scopa_sim.kernels.round
from scopa_sim.observation import DEALER, DECK_LEFT, HAND, PLAYS, RANDOM, RULES, SEAT, UNSEEN
from scopa_sim.engine.seats import StrategyError
try:
    from tests.reference import engine as ref
except ImportError:  # tests/ on sys.path instead of the repo root
    from reference import engine as ref

import spy


# -- the streams ---------------------------------------------------------------
def test_the_kernels_siphash_is_the_reference_one():
    r = random.Random(3)
    for _ in range(300):
        k0, k1, m = (r.getrandbits(64) for _ in range(3))
        assert int(kernels.rng.sip(np.uint64(k0), np.uint64(k1), np.uint64(m))) == ref.sip(k0, k1, m)


def test_a_rounds_deck_is_its_deal_streams_shuffle():
    deck, state = np.zeros(40, np.int64), np.zeros(1, np.uint64)
    for seed, unit, number in [(0, 0, 0), (7, 3, 2), (2**64 - 1, 10**9, 40)]:
        kernels.round.deal_round(np.uint64(seed), unit, number, deck, state)
        assert deck.tolist() == ref.shuffled_deck(ref.deal_stream(seed, unit, number))
        assert int(state[0]) == ref.decide_stream(seed, unit, number).state


@pytest.mark.parametrize("rules", ["scopa", "scopa-4"])
def test_the_same_seed_deals_the_same_cards_whatever_plays(rules):
    players = scopa_sim.Rules.resolve(rules).players
    for i in range(4):
        decks = {tuple(scopa_sim.trace_round(9, i, strategies=[s] * players, rules=rules)
                       .kernel_position()[1]) for s in ("random", "greedy", "counter")}
        assert len(decks) == 1


# -- decoding RANDOM gives nothing ---------------------------------------------------
def _as_array(o) -> np.ndarray:
    """The fields of an Observation that the decoder reads, as the observation array."""
    a = np.zeros(kernels.observe.O_SIZE, np.int64)
    a[SEAT], a[DEALER], a[PLAYS], a[DECK_LEFT], a[RANDOM] = (
        o.seat, o.dealer, o.plays, o.deck_left, o.random)
    a[HAND], a[UNSEEN] = sum(1 << c for c in o.hand), sum(1 << c for c in o.unseen)
    a[RULES + R_PLAYERS], a[RULES + R_HAND_SIZE], a[RULES + R_TABLE_SIZE] = (
        o.rules.players, o.rules.hand_size, o.rules.table_size)
    return a


def _next_hand(a, deck) -> int:
    """The next seat's hidden cards in the true deck (the decoder's target)."""
    players, hand_size, table_size = (a[RULES + R_PLAYERS], a[RULES + R_HAND_SIZE],
                                      a[RULES + R_TABLE_SIZE])
    offset = (a[SEAT] + 1 - (a[DEALER] + 1) % players) % players
    held = 0
    for d in range((40 - a[DECK_LEFT] - table_size) // (players * hand_size)):
        for i in range(hand_size):
            held |= 1 << int(deck[table_size + d * players * hand_size + i * players + offset])
    return held & int(a[UNSEEN])


def _spy_against_chance(observed):
    """Hits of the spy's belief about the next hand, and what chance would
    give: each believed card is in that hand with probability its size over
    the unseen cards."""
    hits = expected = 0.0
    for a, deck in observed:
        unseen = bin(int(a[UNSEEN])).count("1")
        if unseen == 0:
            continue
        believed, truth = int(spy.believed_next_hand(a, np.zeros(40, np.int64))), _next_hand(a, deck)
        hits += bin(believed & truth).count("1")
        expected += bin(believed).count("1") * bin(truth).count("1") / unseen
    return hits, expected


@pytest.mark.parametrize("rules", ["scopa", "scopa-4"])
def test_a_strategy_decoding_random_guesses_no_better_than_chance_in_rounds(rules):
    """The decoder of tests/spy.py read 800 of 922 hidden cards right against
    the old engine (30 rounds of scopa, chance 228); now it is chance."""
    players = scopa_sim.Rules.resolve(rules).players
    observed = []
    for i in range(25):
        seen = []
        game = scopa_sim.trace_round(5, i, rules=rules, strategies=[
            lambda obs, moves: seen.append(_as_array(obs)) or 0] + ["heuristic"] * (players - 1))
        observed += [(a, game.kernel_position()[1]) for a in seen]
    hits, expected = _spy_against_chance(observed)
    assert expected > 50
    assert hits < expected + 4 * math.sqrt(expected) + 5


def test_a_strategy_decoding_random_guesses_no_better_than_chance_in_games():
    """In games each round is dealt from (seed, game, round): the decoder is
    checked against every round's true deck."""
    seen = []
    scopa_sim.simulate(games=6, seed=4, strategies=[
        lambda obs, moves: seen.append((obs.scores, _as_array(obs))) or 0, "heuristic"])
    observed, game, number, deck, last = [], -1, 0, np.zeros(40, np.int64), None
    for scores, a in seen:
        if last is None or a[PLAYS] < last[PLAYS]:              # a new round
            game, number = (game + 1, 0) if not any(scores) else (game, number + 1)
            kernels.round.deal_round(np.uint64(4), game, number, deck, np.zeros(1, np.uint64))
        observed.append((a, deck.copy()))
        last = a
    assert game == 5
    hits, expected = _spy_against_chance(observed)
    assert hits < expected + 4 * math.sqrt(expected) + 5


def test_the_spy_runs_as_a_jitted_strategy_and_wins_nothing():
    df = scopa_sim.simulate(rounds=200, seed=1, strategies=(f"{spy.__file__}:spy", "random"))
    assert len(df) == 200


# -- fresh observations, exact moves ---------------------------------------------------
STRATEGIES = textwrap.dedent('''
    import numba
    import numpy as np
    from scopa_sim.observation import RULES, SIZE

    @numba.njit
    def vandal(obs, cards, takes, params):
        """Writes over its observation and its moves."""
        for i in range(SIZE):
            obs[i] = -7
        for i in range(cards.shape[0]):
            cards[i] = 99
            takes[i] = -1
        return 0

    @numba.njit
    def inspector(obs, cards, takes, params):
        """Plays a move that does not exist if its observation was written over."""
        if obs[RULES] != 2 or obs[RULES + 2] != 3 or cards[0] == 99 or takes[0] == -1:
            return 10**6
        return 0

    @numba.njit
    def past_the_end(obs, cards, takes, params):
        """Reads one past its moves: another seat's move, if anything."""
        n = cards.shape[0]
        if cards[n] != 0 or takes[n] != 0:
            return 10**6
        return 0

    @numba.njit
    def far_away(obs, cards, takes, params):
        cards[10**9] = 1
        return 0
''')


@pytest.fixture(scope="module")
def mine(tmp_path_factory):
    path = tmp_path_factory.mktemp("fair") / "mine.py"
    path.write_text(STRATEGIES + TAMPERING)
    return path


@pytest.mark.parametrize("games", [False, True])
def test_writing_the_observation_changes_nothing_another_strategy_sees(mine, games):
    for pair in [(f"{mine}:vandal", f"{mine}:inspector"), (f"{mine}:inspector", f"{mine}:vandal")]:
        kw = {"games": 3} if games else {"rounds": 50}
        assert len(scopa_sim.simulate(seed=2, strategies=pair, **kw)) >= 3
    assert len(scopa_sim.simulate(rounds=5, seed=2, strategies=(
        f"pimc:samples=4,rollout={mine}:vandal", f"{mine}:inspector"))) == 5


def test_reading_past_the_moves_raises(mine):
    with pytest.raises(StrategyError, match=r"past_the_end raised IndexError.*round 1, seat 2, play 1"):
        scopa_sim.simulate(rounds=5, seed=2, strategies=(f"{mine}:past_the_end",) * 2)


def test_a_write_far_out_of_bounds_is_an_error_not_a_crash(mine):
    with pytest.raises(StrategyError, match=r"far_away raised IndexError.*round 1, seat 1, play 2"):
        scopa_sim.simulate(rounds=5, seed=2, strategies=(f"{mine}:far_away", "greedy"))


def test_a_jitted_function_passed_in_python_is_bounds_checked_too(mine):
    import importlib.util
    spec = importlib.util.spec_from_file_location("fair_mine", mine)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(StrategyError, match="IndexError"):
        scopa_sim.simulate(rounds=5, seed=2, strategies=(module.far_away, "greedy"))


def _cli(*args, env=None):
    import os
    return subprocess.run([sys.executable, "-m", "scopa_sim.cli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_without_bounds_checks_past_the_end_sees_no_other_seats_moves(mine):
    """SCOPA_SIM_BOUNDSCHECK=0: the read past the end is not caught, and what
    it finds is zeros, never the other seat's last moves."""
    r = _cli("compare", f"{mine}:past_the_end", f"{mine}:past_the_end", "--deals", "20",
             "--seed", "3", "--format", "json", env={"SCOPA_SIM_BOUNDSCHECK": "0"})
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("value", ["2", "yes", "off"])
def test_a_bad_boundscheck_setting_is_one_line(mine, value):
    r = _cli("simulate", "--rounds", "10", "--strategies", f"{mine}:inspector,greedy",
             "--out", str(mine.parent / f"run-{value}"), env={"SCOPA_SIM_BOUNDSCHECK": value})
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "SCOPA_SIM_BOUNDSCHECK is 1" in r.stderr


def test_an_index_bug_on_the_command_line_is_one_error_line(mine, tmp_path):
    r = _cli("simulate", "--rounds", "100", "--strategies", f"{mine}:far_away,greedy",
             "--out", str(tmp_path / "run"))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and "far_away raised IndexError" in lines[-1]


# -- the rules a Python strategy can reach are read-only, or its own ------------
TAMPERING = textwrap.dedent('''
    from scopa_sim.engine.rules import packed


    def honest(obs, moves):
        return 0


    def vector_writer(obs, moves):
        """Every seat on a side of its own, through the shared rules vector."""
        packed(obs.rules)[:] = 1
        return 0


    def rules_setter(obs, moves):
        """The target 1 and every seat on side 0, through the rules object."""
        object.__setattr__(obs.rules, "target", 1)
        object.__setattr__(obs.rules, "teams", (0, 0))
        return 0
''')


def test_writing_the_shared_rules_vector_is_refused_in_process(mine):
    with pytest.raises(StrategyError, match=r"vector_writer raised ValueError: .*read-only"):
        scopa_sim.simulate(rounds=5, seed=5, strategies=(f"{mine}:vector_writer", "greedy"))


@pytest.mark.parametrize("games", [False, True])
def test_changing_the_rules_object_a_strategy_gets_changes_nothing(mine, games):
    kw = {"games": 2} if games else {"rounds": 40}
    honest, setter = (scopa_sim.simulate(seed=5, strategies=(f"{mine}:{name}", "greedy"), **kw)
                      for name in ("honest", "rules_setter"))
    assert honest.drop(columns=["strategy_0"], errors="ignore").equals(
        setter.drop(columns=["strategy_0"], errors="ignore"))


def test_the_shared_rules_vector_is_read_only_and_the_kernels_get_copies():
    from scopa_sim.engine.rules import kernel_rules, packed
    rules = scopa_sim.Rules.resolve("scopa")
    with pytest.raises(ValueError, match="read-only"):
        packed(rules)[0] = 9
    mine = kernel_rules(rules)
    mine[:] = 0
    assert packed(rules).tolist() == rules.pack().tolist() != mine.tolist()
