"""Scopa in OpenSpiel (`scopa_sim.envs.openspiel`, docs/ENVS.md): the game
registered with pyspiel, its tensors, OpenSpiel's MCTS bot and a uniform
random bot playing rounds against scopa-sim strategies."""
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import scopa_sim  # noqa: E402
import scopa_sim.envs.openspiel  # noqa: E402,F401  (registers python_scopa)
from scopa_sim.envs.openspiel import StrategyPolicy  # noqa: E402
from scopa_sim.engine.deals import deck as deck_of  # noqa: E402
from scopa_sim.kernels.position import HAND, TABLE  # noqa: E402
from open_spiel.python import policy as policy_lib  # noqa: E402


def _play(game, bots, deal):
    """A round of `game` dealt as round `deal`: bots[seat] is an OpenSpiel
    bot or a scopa-sim strategy's name."""
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 1000
    state.apply_action(deal)
    while not state.is_terminal():
        bot = bots[state.current_player()]
        action = state.strategy_action(bot) if isinstance(bot, str) else bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    return state


def test_mcts_and_random_bots_play_rounds_against_scopa_sim_strategies():
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot
    game = pyspiel.load_game("python_scopa", {"preset": "scopa"})
    assert game.num_players() == 2 and game.num_distinct_actions() == 80
    rng = np.random.RandomState(0)
    mcts_bot = mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    end = _play(game, [mcts_bot, "greedy"], 3)
    assert end.is_terminal() and sum(end.returns()) == 0
    end = _play(game, ["counter", UniformRandomBot(1, rng)], 4)
    assert sum(end.returns()) == 0


def test_the_game_deals_the_simulators_rounds_and_scores_as_simulate():
    game = pyspiel.load_game("python_scopa", {"seed": 5})
    df = scopa_sim.simulate(rounds=20, strategies=("greedy", "greedy"), seed=5)
    for k in range(20):
        end = _play(game, ["greedy", "greedy"], k)
        assert end._rounds.state.deck[0].tolist() == deck_of(5, k)
        assert end.returns()[0] == df["points_0"][k] - df["points_1"][k]


def test_tensors_and_strings():
    game = pyspiel.load_game("python_scopa", {"preset": "scopa-4"})
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(state.legal_actions()[0])
    obs = np.array(state.observation_tensor(1))
    info = np.array(state.information_state_tensor(1))
    assert obs.shape == (game.observation_tensor_size(),) and obs.any()
    assert info.shape == (game.information_state_tensor_size(),)
    assert (info[:obs.size] == obs).all() and info[obs.size:].any()     # the play made
    assert state.information_state_string(0) != state.information_state_string(1)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(clone) != str(state)


def test_a_bad_preset_is_refused():
    with pytest.raises(Exception, match="unknown rules preset"):
        pyspiel.load_game("python_scopa", {"preset": "scopaa"})


def test_exploitability_of_greedy_and_random_in_the_last_six_plays():
    """`start=30`: each deal's first 30 plays made by greedy, then the last
    six (nothing hidden: the deck is out) small enough for OpenSpiel's exact
    NashConv (docs/ENVS.md)."""
    from open_spiel.python.algorithms import exploitability
    game = pyspiel.load_game("python_scopa", {"start": 30, "deals": 4, "seed": 1})
    state = game.new_initial_state()
    state.apply_action(0)
    assert len(state._rounds.plays(0)) == 30

    greedy = exploitability.nash_conv(game, StrategyPolicy(game))
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    assert greedy >= 0 and uniform > 0
    state = game.new_initial_state()
    state.apply_action(0)
    for name in ("greedy", "counter"):
        (action, p), = StrategyPolicy(game, name).action_probabilities(state).items()
        assert p == 1.0 and action == state.strategy_action(name) in state.legal_actions()


def test_redeal_hides_the_cards_no_seat_sees():
    """`redeal`: after the `start` plays a second chance node deals the
    hands and the deck anew (every arrangement once, equally likely): the
    public position stays, the seat to play sees only its own hand, so its
    information states merge arrangements; the exact tools run on it."""
    from open_spiel.python.algorithms import exploitability
    game = pyspiel.load_game("python_scopa", {"start": 29, "deals": 1, "seed": 2,
                                              "redeal": True})
    state = game.new_initial_state()
    state.apply_action(0)
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == game.arrangements == 140          # 7 cards: 1 to play, then 3 and 3
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    table = int(state.state.pos[0, TABLE])
    seen, hands = set(), set()
    for k, _ in outcomes:
        child = state.child(k)
        assert not child.is_chance_node() and int(child.state.pos[0, TABLE]) == table
        seat = child.current_player()
        hands.add(int(child.state.pos[0, HAND + seat]))
        seen.add(child.information_state_string(seat))
        assert set(child.legal_actions()) <= set(range(80))
    assert len(seen) == len(hands) < len(outcomes)     # an information state per own hand
    assert 0 <= exploitability.nash_conv(game, StrategyPolicy(game))
    with pytest.raises(ValueError, match="chance outcome 140 is not one of 0..139"):
        state.apply_action(140)
    with pytest.raises(ValueError, match="chance outcome 1 is not one of 0..0"):
        game.new_initial_state().apply_action(1)


def test_exact_tools_run_over_whole_rounds_of_a_small_deck():
    """`ranks=2`: eight cards, 2 to the table and 3 each; redealt from the
    start, each deal's hands in their 20 arrangements: the whole round with
    its hidden cards, small enough for the exact NashConv; the cards set
    aside are never an action."""
    from open_spiel.python.algorithms import exploitability
    game = pyspiel.load_game("python_scopa", {"preset": "scopa+ranks=2+table_size=2+refill=false",
                                              "deals": 3, "seed": 1, "redeal": True})
    assert game.arrangements == 20
    greedy = exploitability.nash_conv(game, StrategyPolicy(game))
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    assert 0 < greedy < uniform
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(7)
    while not state.is_terminal():
        assert all(a % 40 % 10 < 2 for a in state.legal_actions())
        state.apply_action(state.legal_actions()[0])


def test_redeal_refuses_an_early_start():
    with pytest.raises(Exception, match="start later"):
        pyspiel.load_game("python_scopa", {"start": 10, "redeal": True})
