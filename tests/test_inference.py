"""What trails tell (issue 13): the position's VOID record against a slow
rebuild from the moves, `capturers` against the reference rules, and the
deals `determinize_inferred` makes."""
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import scopa_sim
from scopa_sim import Round
from scopa_sim.kernels import position as P, rng as R, search as S
from tests.reference import engine as ref

RULES = {"scopa": ref.RefRules(), "asso": ref.RefRules(ace_takes_all=True)}


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _capturers_ref(table, rules) -> int:
    """All four cards of every rank that has a capture on `table`, by the reference."""
    ranks = set()
    for r in range(1, 11):
        off = [c for c in range(40) if ref.rank(c) == r and c not in table]
        if not off or ref.captures(table, off[0], rules):
            ranks.add(r)
    return _mask(c for c in range(40) if ref.rank(c) in ranks)


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 39), min_size=1, max_size=9), st.sampled_from(sorted(RULES)))
def test_capturers_are_the_cards_with_a_capture(table, preset):
    rules = RULES[preset]
    packed = scopa_sim.Rules.preset("scopa").with_options(ace_takes_all=preset == "asso").pack()
    assert int(P.capturers(np.uint64(_mask(table)), packed)) == _capturers_ref(sorted(table), rules)


@pytest.mark.parametrize("preset", ["scopa", "scopone-scientifico", "scopa-3"])
def test_void_is_every_capturer_a_seat_trailed_beside_this_deal(preset):
    """Random rounds through the checked Round; after each play every seat's
    VOID equals the union, over its trails since it was last dealt, of the
    cards that could have captured from the table it trailed on."""
    rules = scopa_sim.Rules.resolve(preset)
    rr = ref.RefRules()
    pick = random.Random(5)
    for r in range(30):
        deck = list(range(40))
        pick.shuffle(deck)
        game = Round(preset, deck=deck)
        void = [0] * rules.players
        while not game.done:
            seat, table = game.turn, list(game.table)
            hands_before = [len(h) for h in game.hands]
            card, take = pick.choice(game.legal_moves())
            game.play(card, take)
            if not take and table:
                void[seat] |= _capturers_ref(table, rr)
            for s, (before, now) in enumerate(zip(hands_before, map(len, game.hands))):
                if now > before - (s == seat):          # dealt a new hand
                    void[s] = 0
            assert [int(game._pos[P.VOID + s]) for s in range(rules.players)] == void, r


def _position_after_trail():
    """Seat 1 has trailed the 5c beside the 3h, so (it is believed) holds no
    3; two 3s are still unseen by seat 0, whose turn it is."""
    game = Round.from_position(hands=["7d Kc 2s", "5c Jd 4s"], table="3h",
                               deck="Qs 3d As 3c 6s 6h", dealer=0, turn=1)
    game.play("5c")
    return game


def _deal(game, trust, seed=3):
    pos = game._pos.copy()
    deck = np.array(game._deck, np.int64)
    rng = np.zeros(1, np.uint64)
    R.stream(np.uint64(seed), 0, rng)
    dpos, ddeck = np.zeros_like(pos), np.zeros_like(deck)
    work = np.zeros(64, np.int64)
    S.determinize_inferred(pos, deck, 0, rng, dpos, ddeck, work, trust)
    return dpos, ddeck, rng[0]


def test_a_trust_of_zero_deals_as_determinize_does():
    game = _position_after_trail()
    pos, deck = game._pos.copy(), np.array(game._deck, np.int64)
    rng = np.zeros(1, np.uint64)
    R.stream(np.uint64(3), 0, rng)
    dpos, ddeck = np.zeros_like(pos), np.zeros_like(deck)
    S.determinize(pos, deck, 0, rng, dpos, ddeck, np.zeros(64, np.int64))
    got = _deal(game, 0.0)
    assert (got[0] == dpos).all() and (got[1] == ddeck).all() and got[2] == rng[0]


def test_full_trust_never_deals_a_card_the_seat_trailed_beside():
    game = _position_after_trail()
    void = int(game._pos[P.VOID + 1])
    assert void == _mask(c for c in range(40) if ref.rank(c) == 3)
    held = [_deal(game, 1.0, seed)[0][P.HAND + 1] for seed in range(200)]
    assert all(int(h) & void == 0 for h in held)
    # without trust some deals do hold one of them
    assert any(int(_deal(game, 0.0, seed)[0][P.HAND + 1]) & void for seed in range(200))


def test_infer_is_a_fraction():
    with pytest.raises(ValueError, match="infer of pimc must be 0..1"):
        scopa_sim.simulate(rounds=2, strategies=("pimc:infer=1.5", "greedy"), seed=1)
    df = scopa_sim.simulate(rounds=20, strategies=("pimc:infer=1", "ismcts:infer=1,iterations=50"),
                            seed=1)
    assert len(df) == 20
