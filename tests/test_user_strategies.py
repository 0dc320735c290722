"""User strategies (issue 11): the contract, both speeds, every place a
strategy name works, clear failures, and the one registry's dispatch."""
import json
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import scopa_sim
from scopa_sim import kernels
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.moves
import scopa_sim.kernels.net
import scopa_sim.kernels.observe
import scopa_sim.kernels.position
import scopa_sim.kernels.rng
import scopa_sim.kernels.round
import scopa_sim.kernels.spimc
from scopa_sim.kernels import registry, layout as L
from scopa_sim.engine.seats import Seats, StrategyError
from scopa_sim.engine.strategies import parse_strategy

EXAMPLES = "docs/examples"
JIT = f"{EXAMPLES}/greedy_jit.py:greedy"
PY = f"{EXAMPLES}/greedy_py.py:greedy"


def run(strategies, rules="scopa", **kw):
    kw.setdefault("rounds", 300)
    return scopa_sim.simulate(strategies=strategies, rules=rules, seed=11, **kw)


# -- the same bytes as built-in greedy ------------------------------------------
@pytest.mark.parametrize("rules", ["scopa", "scopone-scientifico", "scopa+ace_takes_all"])
@pytest.mark.parametrize("mine", [JIT, PY])
def test_a_user_greedy_plays_exactly_as_builtin_greedy(mine, rules):
    rules = scopa_sim.Rules.resolve(rules) if "+" not in rules else scopa_sim.Rules(
        name="scopa+ace_takes_all", ace_takes_all=True)
    other = "counter" if rules.n_sides == 2 else "heuristic"
    assert run((mine, other), rules).equals(run(("greedy", other), rules))
    assert run((other, mine), rules, rounds=None, games=5).equals(
        run((other, "greedy"), rules, rounds=None, games=5))


def test_a_function_passed_in_python_plays_too():
    jitted, python = parse_strategy(JIT).spec.function, parse_strategy(PY).spec.function
    assert run((jitted, "counter")).equals(run(("greedy", "counter")))
    assert run(("counter", python)).equals(run(("counter", "greedy")))


def test_same_seed_same_bytes_for_any_worker_count():
    a = scopa_sim.simulate(rounds=600, strategies=(JIT, "random"), seed=5, batch_size=100)
    b = scopa_sim.simulate(rounds=600, strategies=(JIT, "random"), seed=5, batch_size=100,
                           workers=2)
    assert a.equals(b)


def test_a_user_rollout_plays_in_pimc():
    a = run(("pimc:samples=3,rollout=" + JIT, "counter"), rounds=20)
    b = run(("pimc:samples=3,rollout=greedy", "counter"), rounds=20)
    assert a.equals(b)          # greedy's re-implementation as the rollout: the same play


def test_declared_parameters_are_set_like_builtin_ones():
    s = parse_strategy(JIT + ":scopa=3000,coin=50")
    assert dict(s.values)["scopa"] == 3000 and str(s) == JIT + ":coin=50,scopa=3000"
    assert run((JIT + ":scopa=3000,coin=50", "counter")).equals(
        run(("greedy:scopa=3000,coin=50", "counter")))
    assert run((PY + ":primiera=40", "counter")).equals(run(("greedy:primiera=40", "counter")))
    with pytest.raises(ValueError, match="has no parameter 'risk'"):
        parse_strategy(JIT + ":risk=2")


# -- the observation --------------------------------------------------------
def _observed(seat, pos, rules, rng):
    obs = np.zeros(kernels.observe.O_SIZE, np.int64)
    kernels.observe.observe(seat, pos, rules, np.arange(L.MAX_PLAYERS, dtype=np.int64), rng, obs)
    return obs


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), plays=st.integers(0, 35),
       preset=st.sampled_from(["scopa", "scopa-3", "scopone-scientifico", "scopa-6"]))
def test_the_observation_never_holds_a_hidden_card(seed, plays, preset):
    """Every card the observation names is in the seat's hand, on the table or
    played; the hidden cards (other hands, the deck) only as counts."""
    from scopa_sim.observation import HAND, PILES, PLAYED, TABLE, UNSEEN, HAND_SIZES, Observation
    rules = scopa_sim.Rules.resolve(preset)
    r = scopa_sim.Round(rules, deck=np.random.default_rng(seed).permutation(40).tolist(),
                        dealer=seed % rules.players)
    rng = np.random.default_rng(seed + 1)
    for _ in range(min(plays, 40 - rules.table_size - 1)):
        moves = r.legal_moves()
        r.play(*moves[rng.integers(len(moves))])
    pos, deck = r.kernel_position()
    seat = r.turn
    obs = _observed(seat, pos, rules.pack(), np.array([seed], np.uint64))
    P = kernels.position
    hand, table = int(pos[P.HAND + seat]), int(pos[P.TABLE])
    played = 0
    for t in range(L.MAX_PLAYERS):
        played |= int(pos[P.PILE + t])
    visible = hand | table | played
    hidden = (2**40 - 1) & ~visible
    named = [obs[HAND], obs[TABLE], obs[PLAYED], *obs[PILES:PILES + 6]]
    assert all(int(m) & hidden == 0 for m in named)
    assert obs[HAND] == hand and obs[TABLE] == table and obs[UNSEEN] == hidden
    assert list(obs[HAND_SIZES:HAND_SIZES + rules.players]) == [len(h) for h in r.hands]
    o = Observation.from_array(obs, rules)
    assert set(o.hand) | set(o.table) | set(o.played) | set(o.unseen) == set(range(40))
    assert not set(o.unseen) & (set(o.hand) | set(o.table) | set(o.played))


def test_a_python_strategy_sees_the_game_scores():
    seen = []

    def watcher(obs, moves):
        seen.append(obs.scores)
        return 0
    scopa_sim.simulate(games=2, strategies=(watcher, "greedy"), seed=3)
    assert seen[0] == (0, 0) and max(max(s) for s in seen) > 0


# -- failures -------------------------------------------------------------------
BAD = textwrap.dedent('''
    import numba
    from scopa_sim.observation import PLAYS, RULES

    @numba.njit
    def raiser(obs, cards, takes, params):
        if obs[PLAYS] == 5:
            raise ValueError("I give up")
        return 0

    @numba.njit
    def wild(obs, cards, takes, params):
        return cards.shape[0] + 3 if obs[PLAYS] == 7 else 0

    @numba.njit
    def rulebound(obs, cards, takes, params):
        return 0 if obs[RULES] > 0 else -1         # the number of players

    @numba.njit
    def short(obs, cards):
        return 0

    @numba.njit
    def halves(obs, cards, takes, params):
        return 0.5

    @numba.njit
    def yes(obs, cards, takes, params):
        return cards.shape[0] > 1

    def pyraiser(obs, moves):
        return moves[99] if obs.plays == 3 else 0

    def pywild(obs, moves):
        return -1 if obs.plays == 4 else 0

    def pynone(obs, moves):
        return None

    def one(obs):
        return 0

    @numba.njit
    def vandal(obs, cards, takes, params):
        for i in range(cards.shape[0]):
            cards[i] = 39
            takes[i] = (1 << 40) - 1
        params[0] = 1e9
        obs[0] = -5
        return 0

    def leaver(obs, moves):
        raise SystemExit(3)

    def longwinded(obs, moves):
        raise ValueError("why " * 1250)

    broken = 3
''')


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "bad.py"
    path.write_text(BAD)
    return path


@pytest.mark.parametrize("name, error", [
    ("raiser", r"strategy .*bad.py:raiser raised ValueError: I give up at round \d+, seat 2, play 6$"),
    ("wild", r"strategy .*bad.py:wild chose move \d+ of \d+ legal moves .* at round \d+, seat 2, play 8$"),
    ("pyraiser", r"raised IndexError: list index out of range at round \d+, seat 2, play 4$"),
    ("pywild", r"chose move -1 of 1 legal moves \(0..0\) at round \d+, seat 2, play 5$"),
    ("pynone", r"chose move None of \d+ legal moves"),
    ("leaver", r"raised SystemExit: 3 at round \d+, seat 2, play 1$"),
    ("longwinded", r"raised ValueError: (why ){19}why… at round \d+, seat 2, play 1$"),
])
def test_a_failing_strategy_names_itself_and_the_position(bad, name, error):
    with pytest.raises(StrategyError, match=error):
        run(("greedy", f"{bad}:{name}"), rounds=40)


@pytest.mark.parametrize("name, error", [
    ("short", "a jitted strategy is f\\(obs, cards, takes, params\\)"),
    ("halves", r"returning an int \(int64\), not float64$"),
    ("yes", r"returning an int \(int64\), not bool$"),
    ("one", "a Python strategy is f\\(obs, moves\\)"),
    ("broken", "is not a function"),
    ("missing", "has no missing"),
])
def test_a_strategy_that_cannot_play_is_refused_before_any_play(bad, name, error):
    with pytest.raises(ValueError, match=error):
        parse_strategy(f"{bad}:{name}")


def test_a_strategy_that_writes_to_its_arguments_changes_nothing(bad):
    first = run(("greedy", lambda obs, moves: 0))
    assert run(("greedy", f"{bad}:vandal")).equals(first)


def test_only_python_files_load_and_a_file_may_not_end_the_program(tmp_path):
    (tmp_path / "quits.py").write_text("import sys\nsys.exit(4)\n")
    (tmp_path / "notes.txt").write_text("def f(obs, moves): return 0\n")
    with pytest.raises(ValueError, match="quits.py fails to load: SystemExit: 4"):
        parse_strategy(f"{tmp_path}/quits.py:f")
    with pytest.raises(ValueError, match="is not a Python file"):
        parse_strategy(f"{tmp_path}/notes.txt:f")


def test_a_rollout_fault_is_reported_as_a_rollout(bad):
    with pytest.raises(StrategyError, match=r"\(in a rollout of pimc.*\) at round"):
        run(("greedy", f"pimc:samples=2,rollout={bad}:wild"), rounds=5)
    with pytest.raises(ValueError, match="must be a jitted"):
        parse_strategy(f"pimc:rollout={bad}:pywild")


def test_a_user_rollout_sees_the_rules_on_every_path(bad):
    """In the batch kernel, in the Python round loop (a Python seat beside
    it) and in Round.suggest: the observation holds the rules."""
    rollout = f"pimc:samples=2,rollout={bad}:rulebound"
    run(("greedy", rollout), rounds=5)
    run((lambda obs, moves: 0, rollout), rounds=5)
    scopa_sim.Round(deck=list(range(40))).suggest(rollout)


def test_cli_errors_are_one_line(bad, tmp_path):
    from click.testing import CliRunner
    from scopa_sim.cli import main
    for strategies in (f"greedy,{bad}:wild", f"{tmp_path}/none.py:f,greedy", f"{bad}:one,greedy"):
        r = CliRunner().invoke(main, ["simulate", "--rounds", "50", "--strategies", strategies,
                                      "--out", str(tmp_path / "run"), "--quiet"])
        assert r.exit_code == 2, r.output
        assert r.output.count("\n") == 1 and r.output.startswith("error: strategy "), r.output


# -- runs record what played ------------------------------------------------------
def test_the_manifest_records_the_source_and_a_changed_file_is_refused(tmp_path):
    from click.testing import CliRunner
    from scopa_sim.cli import main
    mine = tmp_path / "mine.py"
    mine.write_text(open(f"{EXAMPLES}/greedy_jit.py").read())
    out = tmp_path / "run"
    args = ["simulate", "--rounds", "400", "--batch-size", "200", "--strategies",
            f"{mine}:greedy,counter", "--out", str(out), "--quiet"]
    assert CliRunner().invoke(main, args).exit_code == 0
    sources = json.loads((out / "manifest.json").read_text())["sources"]
    import hashlib
    assert sources == {f"{mine}:greedy": {"reference": f"{mine}:greedy", "sha256":
                                          hashlib.sha256(mine.read_bytes()).hexdigest()}}
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0
    mine.write_text(mine.read_text() + "\n# edited\n")
    # a run is data: reading it loads no strategy, so the edit changes nothing there;
    # resuming it would run the file, which is refused for its sha256
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0
    r = CliRunner().invoke(main, ["simulate", "--resume", str(out), "--strategy-file",
                                  f"{mine}:greedy={mine}"])
    assert r.exit_code == 2 and "not the file the run played" in r.output


# -- one registry, explicit dispatch ----------------------------------------------
def test_every_builtin_id_dispatches_to_its_own_function_and_unknown_ids_to_none():
    """Over positions of real rounds, the dispatcher's choice for each id is
    its own kernel function's, and every id outside the registry chooses -1."""
    from scopa_sim.kernels import heuristics as H, search as S, strategies as K
    rules = scopa_sim.Rules()
    seats = Seats(rules, ("net", "random"))             # the shipped network in the scratch
    scratch = seats.scratch()
    rng, deck, pos, work = scratch.rng, scratch.deck, scratch.pos, scratch.work
    cards, takes = scratch.cards, scratch.takes
    board, kit = scratch.board(), scratch.kit(seats.packed)
    own = {
        registry.ID.random: lambda p, s, n: kernels.rng.below(rng, n),
        registry.ID.greedy: lambda p, s, n: 0 if n == 1 else H.greedy(p, pos, seats.packed, n, cards, takes),
        registry.ID.heuristic: lambda p, s, n: 0 if n == 1 else H.cautious(p, s, pos, seats.packed, n, cards, takes, False, False),
        registry.ID.counter: lambda p, s, n: 0 if n == 1 else H.cautious(p, s, pos, seats.packed, n, cards, takes, True, False),
        registry.ID.reply: lambda p, s, n: 0 if n == 1 else H.cautious(p, s, pos, seats.packed, n, cards, takes, True, True),
        registry.ID.pimc: lambda p, s, n: S.pimc(p, s, n, board, kit),
        registry.ID.ismcts: lambda p, s, n: S.ismcts(p, s, n, board, kit),
        registry.ID.endgame: lambda p, s, n: S.endgame(p, s, n, board, kit),
        registry.ID.spimc: lambda p, s, n: kernels.spimc.spimc(p, s, n, board, kit),
        registry.ID.net: lambda p, s, n: S.net(p, s, n, board, kit),
        registry.ID.netsearch: lambda p, s, n: kernels.spimc.spimc(p, s, n, board, kit),
    }
    assert set(own) == {b.id for b in registry.BUILTINS}
    checked = 0
    for deal in range(3):
        kernels.rng.stream(np.uint64(deal), 0, rng)
        kernels.round.new_deck(deck, rng)
        kernels.position.start_round(pos, deck, 0, seats.packed)
        for _ in range(12):
            seat = int(pos[kernels.position.TURN])
            n = kernels.moves.legal_moves(pos[kernels.position.HAND + seat],
                                          pos[kernels.position.TABLE], seats.packed, cards, takes,
                                          work)
            for b in registry.BUILTINS:
                p = registry.DEFAULTS[b.id].copy()
                if b.kind == "search" and b.id not in (registry.ID.endgame, registry.ID.net):
                    p[0] = 4                        # few samples, iterations
                kernels.rng.stream(np.uint64(deal), 7, rng)
                via_dispatch = K.choose(b.id, p, seat, n, board, kit)
                kernels.rng.stream(np.uint64(deal), 7, rng)
                assert via_dispatch == own[b.id](p, seat, n), b.name
                checked += 1
            for unknown in (len(registry.BUILTINS), registry.USER - 1, registry.USER + registry.MAX_USERS, -1):
                assert K.choose(unknown, p, seat, n, board, kit) == -1
            kernels.position.play_move(pos, deck, seats.packed, cards[0], takes[0])
    assert checked == 3 * 12 * len(registry.BUILTINS)


def test_the_help_and_the_parser_come_from_the_one_declaration():
    from scopa_sim.engine.strategies import REGISTRY
    for b in registry.BUILTINS:
        spec = REGISTRY[b.name]
        assert (spec.id, spec.description, list(spec.params)) == (
            b.id, b.help, [p.name for p in b.params])
        assert list(registry.DEFAULTS[b.id, :len(b.params)]) == [p.default for p in b.params]



def test_every_parameter_slot_is_its_name_in_the_strategies_that_declare_it():
    """Each `P_*` the kernels read is the slot of the parameter of that name
    (P_USE_ENDGAME: "endgame") in every strategy that declares the name; a
    name a strategy does not declare fails at import (`registry.slot`)."""
    slots = {n: getattr(registry, n) for n in dir(registry) if n.startswith("P_")}
    assert len(slots) == 29
    own = {"P_WEIGHTS": ("weights", ["net"]), "P_NET_ENDGAME": ("endgame", ["net"]),
           "P_SEARCH_WEIGHTS": ("weights", ["pimc", "ismcts", "spimc", "netsearch"]),
           "P_USE_ENDGAME": ("endgame", ["pimc", "ismcts", "spimc", "netsearch"])}
    for name, index in slots.items():
        param, readers = own.get(name, (name[2:].lower(), None))
        holders = [b for b in registry.BUILTINS if param in [p.name for p in b.params]
                   and (readers is None or b.name in readers)]
        assert holders, name
        for b in holders:
            assert b.params[index].name == param, (name, b.name)
    with pytest.raises(ValueError, match="declares no parameter"):
        registry.slot("samples", "greedy")

def test_suggest_takes_a_user_strategy_and_shows_it_the_game_scores():
    seen = []

    def first(obs, moves):
        seen.append(obs.scores)
        return 0
    game = scopa_sim.Game(seed=4, scores=[5, 7])
    rnd = game.round
    assert game.suggest(first) == rnd.legal_moves()[0] and seen[-1] == (5, 7)
    assert rnd.suggest(first) == rnd.legal_moves()[0] and seen[-1] == (0, 0)
    assert rnd.suggest(JIT) == rnd.suggest("greedy")
    assert rnd.suggest("pimc:samples=5,rollout=" + JIT, seed=3) == rnd.suggest(
        "pimc:samples=5,rollout=greedy", seed=3)
    with pytest.raises(StrategyError, match="chose move -1 of .* at this position"):
        rnd.suggest(lambda obs, moves: -1)


def test_compare_and_tournament_take_functions():
    from scopa_sim.study.matches import compare, tournament
    jitted = parse_strategy(JIT).spec.function
    r = compare(jitted, "greedy", deals=200, seed=2)
    assert r["margin"]["estimate"] == 0 and r["margin"]["low"] == 0    # the same play
    t = tournament([jitted, "random", PY], deals=100, seed=2)
    assert t["strategies"] == ["<greedy>", "random", PY]


ADVISE = dict(hand="7d 7h As", table="2c 4h 5s Qd", seed=1, rollouts=1000)


def test_advise_rolls_out_with_a_jitted_strategy_as_with_the_built_in():
    mine = scopa_sim.advise(strategy=JIT, score="5-7", **ADVISE)
    pd.testing.assert_frame_equal(mine, scopa_sim.advise(strategy="greedy", score="5-7",
                                                         **ADVISE))
    pd.testing.assert_frame_equal(mine, scopa_sim.advise(strategy=JIT, score="5-7", workers=2,
                                                         **ADVISE))
    jitted = parse_strategy(JIT).spec.function                  # a function, from Python
    pd.testing.assert_frame_equal(mine, scopa_sim.advise(strategy=jitted, score="5-7", **ADVISE))


@pytest.mark.parametrize("name, error", [
    ("raiser", r"strategy .*bad.py:raiser raised ValueError: I give up in an advise rollout$"),
    ("wild", r"strategy .*bad.py:wild chose move \d+ of \d+ legal moves \(0\.\.\d+\) at an "
             r"advise rollout \(seat \d, play 7\)$"),
])
def test_advise_names_a_user_strategy_that_fails_in_a_rollout(bad, name, error):
    with pytest.raises(ValueError, match=error):
        scopa_sim.advise(strategy=f"{bad}:{name}", **ADVISE)


def test_advise_refuses_a_python_strategy_in_its_kernel_rollouts():
    with pytest.raises(ValueError, match="in the kernel, with a built-in strategy or a jitted "
                                         "one of yours, not docs/examples/greedy_py.py:greedy"):
        scopa_sim.advise(strategy=PY, **ADVISE)
