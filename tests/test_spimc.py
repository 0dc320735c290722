"""spimc (kernels/spimc.py): legal play in every kind of preset, the obvious
sweep, the exact hand-over, and determinism for a seed."""
import pandas as pd
import pytest

import scopa_sim
from scopa_sim import Round

CHEAP = "spimc:samples=10"             # small, but every piece runs: halving, the exact tail


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone-scientifico", "scopa-6"])
def test_spimc_plays_only_legal_moves(preset):
    """A few hundred rounds in the kernel (an index outside the legal moves
    stops the run with an error) and a few replayed through the checked Round."""
    rules = scopa_sim.Rules.resolve(preset)
    strategies = [CHEAP if s % 2 == 0 else "counter" for s in range(rules.players)]
    df = scopa_sim.simulate(rounds=200, strategies=strategies, rules=preset, seed=11)
    assert len(df) == 200
    sides = range(rules.n_sides)
    cards = sum(df[f"cards_{t}"] for t in sides)
    assert ((cards == 40) | ((df["last_capturer"] == -1) & (cards + df["leftover"] == 40))).all()
    for index in range(3):
        game = scopa_sim.trace_round(11, index, strategies=strategies, rules=preset)
        assert game.done


def _sweep_position():
    # seat 0 holds 7d, Kc, 2s; the table is 3c 4h: 7d takes both, a scopa
    return Round.from_position(hands=["7d Kc 2s", "Jd 4s 5s"], table="3c 4h",
                               deck="Qs 2d As 2c 6s 6h", dealer=1)


@pytest.mark.parametrize("strategy", [CHEAP, "spimc:samples=80,tail=0", "spimc"])
def test_spimc_takes_an_open_sweep(strategy):
    game = _sweep_position()
    card, take = game.suggest(strategy, seed=1)
    sweeps = [(c, t) for c, t in game.legal_moves() if len(t) == 2]
    assert sweeps == [(card, tuple(take))]


def test_spimc_is_deterministic_for_a_seed():
    a = scopa_sim.simulate(rounds=30, strategies=(CHEAP, "heuristic"), seed=4)
    b = scopa_sim.simulate(rounds=30, strategies=(CHEAP, "heuristic"), seed=4, workers=2,
                           batch_size=7)
    pd.testing.assert_frame_equal(a, b)
    c = scopa_sim.simulate(rounds=30, strategies=(CHEAP, "heuristic"), seed=5)
    assert not a.equals(c)
    game = _sweep_position()
    game.play(*game.legal_moves()[-1])                      # not the sweep: seat 1 to play
    assert len({game.suggest(CHEAP, seed=9) for _ in range(3)}) == 1


def test_spimc_hands_over_to_the_exact_endgame_when_nothing_is_hidden():
    """The last deal of two-player scopa is open: spimc plays the solver's move."""
    # positions at the start of the last deal, through the public Round
    checked = 0
    for index in range(6):
        traced = scopa_sim.trace_round(seed=3, index=index, strategies=("greedy", "random"))
        game = Round(deck=list(traced.deck_order), dealer=traced.dealer)
        for seat, card, take in traced.moves[:30]:
            game.play(card, take)
        if len(game.legal_moves()) > 1:
            assert game.suggest("spimc:samples=3", seed=index) == game.suggest("endgame")
            checked += 1
    assert checked >= 3


def test_two_moves_spimc_spends_what_pimc_spends_on_the_same_deals():
    """`samples` means what it means for pimc: with two legal moves sequential
    halving has one round, so spimc without the exact tail is pimc (both
    roll out with counter), deal for deal."""
    compared = 0
    for index in range(12):
        traced = scopa_sim.trace_round(seed=8, index=index, strategies=("greedy", "counter"))
        game = Round(deck=list(traced.deck_order), dealer=traced.dealer)
        for seat, card, take in traced.moves[:20]:
            if len(game.legal_moves()) == 2:
                assert (game.suggest("spimc:samples=6,tail=0", seed=index)
                        == game.suggest("pimc:samples=6", seed=index))
                compared += 1
            game.play(card, take)
    assert compared >= 5
