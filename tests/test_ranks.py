"""The small decks of the `ranks` setting (docs/VARIANTS.md, docs/ENGINE.md
"Rules"): the cards of higher ranks are set aside before the deal, seen by
every seat and scored by none. The differential tests (test_differential.py)
hold whole runs of such rules to the reference."""
import numpy as np
import pytest

import scopa_sim
from scopa_sim.engine.cards import parse_cards
from scopa_sim.engine.envs import Rounds
from scopa_sim.kernels import layout as L, position as P

SMALL = ["scopa+ranks=2+table_size=2+refill=false", "scopa+ranks=3+hand_size=2",
         "scopa-3+ranks=6+table_size=3+hand_size=1", "scopa-4+ranks=7"]


def _mask(cards):
    return sum(1 << c for c in cards)


@pytest.mark.parametrize("preset", SMALL)
def test_cards_set_aside_are_never_dealt_or_played_and_lie_in_no_sides_pile(preset):
    """64 rounds at a time stepped by random legal actions, each finished
    round followed by a new one: the cards above `ranks` lie in pile OUT from
    the deal on and in no hand, on no table, in no pile or action; the cards
    in play are all in hands, table, piles or the deck; every round plays
    them all."""
    rules = scopa_sim.Rules.preset(preset)
    aside = _mask(rules.set_aside)
    assert bin(aside).count("1") == L.N_CARDS - rules.deck_size > 0
    n = 64
    rounds = Rounds(n, rules, threads=1)
    rounds.reset(seed=5, stride=n)
    st, finished = rounds.state, 0
    for k in range(120):
        for i in range(n):
            pos = st.pos[i]
            assert int(pos[P.PILE + P.OUT]) == aside
            held = [int(x) for x in pos[P.HAND:P.HAND + rules.players]] + [int(pos[P.TABLE])]
            held += [int(x) for x in pos[P.PILE:P.PILE + rules.n_sides]]
            assert not any(h & aside for h in held)
            undealt = _mask(st.deck[i, int(pos[P.DECK]):].tolist())
            assert sum(bin(h).count("1") for h in held) + bin(undealt).count("1") \
                == rules.deck_size
            assert not any(aside >> int(a) % 40 & 1 for a in np.flatnonzero(st.mask[i]))
        rounds.step(rounds.random_actions(1000 + k))
        finished += int(st.done.sum())
    assert finished >= n


def test_a_small_deck_plays_its_cards_in_the_shuffled_order_of_the_whole_one():
    """The cards in play deal in their order in the whole deck's shuffle (the
    same draws): round k of a small deck is the whole deck's round k with the
    higher ranks taken out."""
    whole = parse_cards(scopa_sim.deck_of(9, 4))
    small = scopa_sim.Round("scopa+ranks=3+hand_size=2", deck=whole, dealer=0)
    in_play = [c for c in whole if c % 10 < 3]
    assert sorted(small.table) == sorted(in_play[:4])
    assert sorted(c for h in small.hands for c in h) == sorted(in_play[4:8])


@pytest.mark.parametrize("name,says", [
    ("scopa+ranks=0", "ranks must be 1 to 10"),
    ("scopa+ranks=11", "ranks must be 1 to 10"),
    ("scopa+ranks=3", "do not divide the 12-card deck"),
    ("scopa+ranks=2+refill=false", "must use all 8 cards"),
    ("scopa-6+ranks=9+teams=0,1,2,3,4,5+hand_size=2+table_size=0", "fewer than 6 sides"),
])
def test_bad_rank_settings_are_refused_in_one_line(name, says):
    with pytest.raises(ValueError, match=says):
        scopa_sim.Rules.preset(name)


def test_a_card_set_aside_is_refused_in_a_position():
    with pytest.raises(ValueError, match="Kd .*is not in play: .* A up to rank 2"):
        scopa_sim.Round.from_position(["Ad Kd", "2d"], "As", "scopa+ranks=2+table_size=2+"
                                      "refill=false")
    with pytest.raises(ValueError, match="not in play"):
        scopa_sim.advise(hand="Ad 3c", table="2s", rules="scopa+ranks=2+table_size=2+"
                         "refill=false")


@pytest.mark.parametrize("preset", SMALL)
def test_a_small_decks_game_replays_through_the_checked_game_and_its_record(preset):
    """`trace_game` replays the kernel's game move by move through `Game`
    (its deck orders the kernel's, the cards set aside first), and the
    game's record reads back as the same game."""
    from scopa_sim.engine.records import parse_record
    rules = scopa_sim.Rules.preset(preset)
    game = scopa_sim.trace_game(5, 1, ("greedy", "counter", "random")[:rules.n_sides], rules=rules)
    aside = rules.set_aside
    assert all(r.deck_order[:len(aside)] == aside for r in game.rounds)
    text = game.record()
    assert parse_record(text).record() == text


def test_a_record_naming_a_card_set_aside_is_refused_at_its_line():
    """A record received from someone else: a card above the rules' ranks on
    the table, or played from a hand not written, fails at its line."""
    from scopa_sim.engine.records import parse_record
    text = scopa_sim.trace_game(5, 1, ("greedy", "counter"),
                                rules="scopa+ranks=3+hand_size=2").record()
    lines = text.splitlines()
    table = next(i for i, x in enumerate(lines) if x.startswith("Table: "))
    bad = lines[:table] + ["Table: " + " ".join(lines[table].split()[1:4] + ["7d"])] + \
        lines[table + 1:]
    with pytest.raises(ValueError, match=f"line {table + 1}: card 7d is on the table, but it "
                                         f"is set aside"):
        parse_record("\n".join(bad))
