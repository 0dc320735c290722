"""The searches with the net (issue 45 step 1): `rollout=net` for pimc, ismcts
and spimc, and rollouts cut after `depth` plays and valued by the net
(`leaf=net`): the notation, legal and reproducible play, the same deals as
without when nothing is cut, and the leaf's value (kernels/search.py
`rollout`, kernels/net.py `position_value`) against the net's reference."""
import random

import numpy as np
import pandas as pd
import pytest

import scopa_sim
import scopa_sim.kernels.moves
from scopa_sim import Round, Rules, parse_strategy
from scopa_sim.engine import nets
from scopa_sim.engine.rules import kernel_rules
from scopa_sim.kernels import net as N, registry
from scopa_sim.kernels.layout import MAX_MOVES
from scopa_sim.kernels.moves import W_SIZE
from scopa_sim.kernels.position import HAND, TABLE, TURN
from scopa_sim.study.selfplay import generate

import net_reference as R

# cheap settings, every new piece running: a net rollout, a cut rollout, both
NETTED = ["spimc:samples=6,rollout=net", "spimc:samples=6,leaf=net,depth=3",
          "pimc:samples=3,rollout=net", "pimc:samples=3,rollout=net,leaf=net,depth=2",
          "ismcts:iterations=40,rollout=net", "ismcts:iterations=40,leaf=net,depth=1",
          "netsearch:samples=6,rollout=net,leaf=net"]


@pytest.mark.parametrize("name", ["pimc", "ismcts", "spimc", "netsearch"])
def test_the_net_parameters_parse_and_read_back(name):
    s = parse_strategy(f"{name}:rollout=net,leaf=net,depth=5")
    assert str(s) == f"{name}:rollout=net,leaf=net,depth=5"
    assert str(parse_strategy(str(s))) == str(s)
    row = s.vector({nets.shipped(): 0})
    assert row[registry.P_ROLLOUT] == registry.ID.net
    assert row[registry.P_LEAF] == registry.LEAF_NET and row[registry.P_DEPTH] == 5
    assert s.nets() == [nets.shipped()]


def test_a_search_holds_a_network_only_where_it_plays_one():
    """`weights` of pimc, ismcts and spimc is read only where the rollout or
    the leaf is net: elsewhere no network is loaded into the run (nor its
    sha256 recorded); netsearch prunes with its own always."""
    for name in ("pimc", "ismcts", "spimc"):
        assert parse_strategy(name).nets() == []
        assert parse_strategy(f"{name}:depth=7").nets() == []
        assert parse_strategy(f"{name}:leaf=net").nets() == [nets.shipped()]
        assert parse_strategy(f"{name}:rollout=net").nets() == [nets.shipped()]
    assert parse_strategy("netsearch").nets() == [nets.shipped()]


def test_the_weights_of_a_net_rollout_are_the_searchs_own(tmp_path):
    """Two networks in one run: the rollout's row holds its search's index."""
    path = tmp_path / "other.npz"
    nets.save(path, nets.shipped().arrays, {"preset": "scopa"})      # a copy: another file
    (other,) = parse_strategy(f"net:weights={path}").nets()
    s = parse_strategy(f"spimc:rollout=net,weights={path}")
    assert s.nets() == [other]
    assert s.vector({nets.shipped(): 0, other: 1})[registry.P_SEARCH_WEIGHTS] == 1


@pytest.mark.parametrize("text, problem", [
    ("spimc:leaf=net,depth=0", "depth of spimc must be 1..40, a whole number, not 0"),
    ("pimc:depth=0", "depth of pimc must be 1..40"),
    ("ismcts:depth=41", "depth of ismcts must be 1..40"),
    ("spimc:depth=2.5", "depth of spimc must be 1..40, a whole number"),
    ("spimc:leaf=counter", "leaf of spimc is end or net, not 'counter'"),
    ("pimc:leaf=", "leaf of pimc is end or net"),
    ("endgame:fallback=net", "fallback of endgame names a fast strategy"),
    ("pimc:rollout=spimc", "rollout of pimc names a fast strategy .*, net or a jitted"),
])
def test_bad_net_parameters_are_one_line(text, problem):
    with pytest.raises(ValueError, match=problem) as e:
        parse_strategy(text)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("preset", ["scopa", "scopa-3"])
def test_searches_with_the_net_play_only_legal_moves(preset):
    """Rounds in the kernel (an index outside the legal moves stops the run
    with an error), cards conserved, and one replayed through the checked Round."""
    rules = Rules.resolve(preset)
    for strategy in NETTED:
        strategies = [strategy if s % 2 == 0 else "counter" for s in range(rules.players)]
        df = scopa_sim.simulate(rounds=6, strategies=strategies, rules=preset, seed=12)
        assert len(df) == 6
        cards = sum(df[f"cards_{t}"] for t in range(rules.n_sides))
        assert ((cards == 40) | ((df["last_capturer"] == -1) & (cards + df["leftover"] == 40))).all()
        assert scopa_sim.trace_round(12, 1, strategies=strategies, rules=preset).done


def test_searches_with_the_net_are_deterministic_for_a_seed():
    for strategy in NETTED:
        a = scopa_sim.simulate(rounds=4, strategies=(strategy, "counter"), seed=4)
        b = scopa_sim.simulate(rounds=4, strategies=(strategy, "counter"), seed=4, workers=2,
                               batch_size=1)
        pd.testing.assert_frame_equal(a, b)
    game = _decisions(1, 8, 12)[0]
    for strategy in NETTED:
        assert len({game.suggest(strategy, seed=9) for _ in range(3)}) == 1


def _decisions(seed, count, plays, moves=None):
    """Positions `plays` plays into rounds of counter against greedy, with two
    or more legal moves (exactly `moves` where given)."""
    out = []
    for index in range(40):
        traced = scopa_sim.trace_round(seed=seed, index=index, strategies=("greedy", "counter"))
        game = Round(deck=list(traced.deck_order), dealer=traced.dealer)
        for _, card, take in traced.moves[:plays]:
            game.play(card, take)
        n = len(game.legal_moves())
        if n > 1 and (moves is None or n == moves):
            out.append(game)
        if len(out) == count:
            break
    return out


def test_a_cut_past_the_end_of_the_round_changes_nothing():
    """`leaf=net` with a depth no rollout reaches plays the same rollouts, on
    the same deals and random numbers, as rollouts to the end."""
    for game in _decisions(2, 6, 9):
        for plain in ("spimc:samples=8", "pimc:samples=4", "ismcts:iterations=60"):
            assert (game.suggest(f"{plain},leaf=net,depth=40", seed=3)
                    == game.suggest(plain, seed=3))


@pytest.mark.parametrize("preset, same", [("scopa-3", True), ("scopa", False)])
def test_with_three_sides_a_cut_waits_for_the_searchers_turn(preset, same):
    """The net values the margin of the seat to move's side over the best
    other: with two sides negated for the searcher, with three no negation
    gives it, so the cut waits for the searcher's turn. In 3-player scopa a
    cut 1 play after the root move (the third seat to move) waits one more
    play, to where depth 2 cuts: a pimc teacher's values of every move are
    the same, to the bit; with two sides they differ."""
    rules = Rules.resolve(preset)
    one, two = (generate(rules, 4, 0, 2, lineup="greedy", workers=1,
                         teacher=f"pimc:leaf=net,depth={d},samples=3") for d in (1, 2))
    assert len(one[1]) > 30
    assert np.array_equal(one[1], two[1]) == same
    np.testing.assert_array_equal(one[0], two[0])          # the same decisions either way


def test_two_moves_spimc_with_the_net_spends_what_pimc_spends():
    """As tests/test_spimc.py's: with two legal moves, spimc without the exact
    tail is pimc, deal for deal; so with the net's rollouts and leaves too."""
    games = _decisions(8, 6, 14, moves=2) + _decisions(9, 6, 6, moves=2)
    assert len(games) >= 5
    for game in games:
        for net in ("rollout=net", "leaf=net,depth=3", "rollout=net,leaf=net,depth=2"):
            assert (game.suggest(f"spimc:samples=6,tail=0,{net}", seed=5)
                    == game.suggest(f"pimc:samples=6,{net}", seed=5))


def test_a_leaf_is_the_nets_value_of_the_position_not_the_rollouts(tmp_path):
    """A network that values every position the same: every cut rollout is
    worth the same, so pimc cut after one play is indifferent and plays the
    first move, wherever rollouts to the end disagree."""
    flat = [np.zeros_like(a) for a in nets.shipped().arrays]
    flat[5] = np.array([2.5], np.float32)
    path = tmp_path / "flat.npz"
    nets.save(path, flat, {"preset": "scopa"})
    disagree = 0
    for game in _decisions(3, 8, 5):
        first = game.legal_moves()[0]
        assert game.suggest(f"pimc:samples=4,endgame=0,leaf=net,depth=1,weights={path}",
                            seed=1) == first
        disagree += game.suggest("pimc:samples=4,endgame=0", seed=1) != first
    assert disagree >= 1


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone-scientifico"])
def test_the_value_of_a_position_is_its_best_moves_by_the_reference(preset):
    """`net.position_value`: the highest of the reference network's values of
    the afterstates of the seat to move's legal moves."""
    rules = Rules.resolve(preset)
    vector = kernel_rules(rules)
    weights = nets.shipped().arrays
    net = nets.record([nets.shipped()])
    r = random.Random(45)
    cards, takes = np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.uint64)
    work = np.zeros(W_SIZE, np.int64)
    for _ in range(12):
        deck = list(range(40))
        r.shuffle(deck)
        game = Round(rules, deck=deck, dealer=r.randrange(rules.players))
        for _ in range(r.randrange(game.total_plays - 1)):
            game.play(*r.choice(game.legal_moves()))
        pos, _ = game.kernel_position()
        seat = int(pos[TURN])
        v = N.position_value(net, np.int64(0), pos, vector, cards, takes, work)
        n = int(scopa_sim.kernels.moves.legal_moves(pos[HAND + seat], pos[TABLE], vector, cards,
                                                    takes, work))
        expected = max(R.value(weights, R.feature_vector(
            R.afterstate(pos, vector, seat, int(cards[i]), int(takes[i])))) for i in range(n))
        assert abs(v - expected) <= 1e-5 * max(1.0, abs(expected)), (v, expected)
