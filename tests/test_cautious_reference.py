"""The cautious fast strategies (heuristic, counter, reply) against the slow
reference of tests/reference/cautious.py: on a few hundred random reachable
positions of several rule sets the kernel's choice is the reference's best
move, and on hand-made positions both play the move worked out by hand."""
import random

import pytest

from scopa_sim import Round, Rules, parse_strategy

try:
    from tests.reference import cautious as ref
    from tests.reference.engine import card_of, from_rules
except ImportError:                     # run from inside tests/
    from reference import cautious as ref
    from reference.engine import card_of, from_rules

RULESETS = ["scopa", "scopa-4", "scopone-scientifico", "scopa+scopa_on_last_play+fewest_cards",
            "scopa-3+ace_takes_all"]
SPECS = ["heuristic", "counter", "reply", "reply:match=2,pair=0.25", "counter:sweep=500",
         "heuristic:sweep=0,seven=500,coin_exposed=80,scopa=300"]
PLAYERS = ["random", "random", "greedy", "heuristic", "reply"]   # how the sampled rounds are played
POSITIONS = 120                                                   # per rule set
NEAR_TIE = 1e-9


def params_of(spec: str) -> dict:
    """The strategy's parameters by name (defaults from kernels.registry.BUILTINS)."""
    return dict(parse_strategy(spec).values)


def view_of(game: Round) -> ref.View:
    """What the seat to move sees: its hand, the table, every card out of
    hands, table and deck (captured, or out of the round), the next seat's
    hand size, and whether this is the round's last play."""
    seat, hands, n = game.turn, game.hands, game.rules.players
    in_play = {c for h in hands for c in h} | set(game.table) | set(game.deck)
    return ref.View(seat=seat, hand=tuple(hands[seat]), table=tuple(sorted(game.table)),
                    captured=tuple(sorted(set(range(40)) - in_play)),
                    next_hand=len(hands[(seat + 1) % n]),
                    last_play=sum(map(len, hands)) + len(game.deck) == 1)


def sampled_positions(preset: str, count: int, seed: int):
    """`count` positions with two or more legal moves from rounds of `preset`
    played by a random mix of random, greedy, heuristic and reply seats
    (deterministic: from `seed`)."""
    rules = Rules.resolve(preset)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        deck = list(range(40))
        rng.shuffle(deck)
        game = Round(rules, deck=deck, dealer=rng.randrange(rules.players))
        style = [rng.choice(PLAYERS) for _ in range(rules.players)]
        while not game.done and len(out) < count:
            moves = game.legal_moves()
            # a one-card hand with a choice (the next hand may be empty, or
            # it is the last play) is rare: take all of those
            if len(moves) > 1 and (len(game.hands[game.turn]) == 1 or rng.random() < 0.3):
                out.append(game.copy())
            who = style[game.turn]
            game.play(*(rng.choice(moves) if who == "random" else game.suggest(who)))
    return out


def check(game: Round, spec: str, rules) -> str | None:
    """None if the kernel's move for `spec` is the reference's best (or within
    NEAR_TIE of it), else a description of the disagreement."""
    name, params, view = parse_strategy(spec).name, params_of(spec), view_of(game)
    moves = ref.moves_of(rules, view)
    assert moves == game.legal_moves()
    values = ref.values(name, params, rules, view)
    kernel_move = game.suggest(spec)
    k = moves.index(kernel_move)
    best = ref.choose(name, params, rules, view)
    if k == best or values[k] >= values[best] - NEAR_TIE:
        return None
    return (f"{spec}: kernel plays {kernel_move} ({values[k]:.6f}), reference "
            f"{moves[best]} ({values[best]:.6f}); {view}; rules {game.rules.name}")


@pytest.mark.parametrize("preset", RULESETS)
def test_kernel_plays_the_reference_best_move(preset):
    rules = from_rules(Rules.resolve(preset))
    bad = []
    for i, game in enumerate(sampled_positions(preset, POSITIONS, seed=RULESETS.index(preset))):
        view = view_of(game)
        unseen = {c for s, h in enumerate(game.hands) if s != game.turn for c in h} | set(game.deck)
        assert view.unseen() == unseen          # the view is what the seat sees
        for spec in SPECS:
            problem = check(game, spec, rules)
            if problem:
                bad.append(f"position {i}: {problem}")
    assert not bad, "\n".join(bad)


def _hand_made(hands, table, deck, dealer=1, rules="scopa"):
    game = Round.from_position(hands=hands, table=table, deck=deck, dealer=dealer, rules=rules)
    assert game.turn == 0
    return game


def _both(game, spec):
    """The kernel's move, checked to be the reference's choice too."""
    rules = from_rules(game.rules)
    view = view_of(game)
    moves = ref.moves_of(rules, view)
    mine = moves[ref.choose(parse_strategy(spec).name, params_of(spec), rules, view)]
    assert game.suggest(spec) == mine
    return mine


def cards(text):
    return tuple(sorted(card_of(t) for t in text.split()))


# Seat 0 holds 4c Kc on a table of 4s 3h; seat 1 holds Qd Jh; six cards are
# in the deck and every other card is out of the round (seen). The moves:
#   4c takes 4s: gain 2 x (100 + 5 x 14) = 340, and leaves 3h alone (a sweep
#       for a 3);
#   Kc trails:   gain -(100 + 5 x 10) = -150, leaving 4s 3h Kc (17, no seven,
#       no coin): nothing exposed.
# heuristic charges the sweep flat, 500: 340 - 500 = -160 < -150, it trails Kc
# (greedy takes). counter: with no 3 unseen the sweep costs nothing and it
# takes (340); with one 3 among the 8 unseen cards, a 2-card hand holds it
# with chance 1 - C(7,2)/C(8,2) = 1/4, and 2000 / 4 = 500 makes it trail Kc.
NO_THREE = "Ad 2d 6s 6c 5s 5c"
ONE_THREE = "Ad 2d 6s 3c 5s 5c"


def test_heuristic_fears_a_flat_sweep():
    game = _hand_made(["4c Kc", "Qd Jh"], "4s 3h", NO_THREE)
    assert _both(game, "heuristic") == (card_of("Kc"), ())
    assert game.suggest("greedy") == (card_of("4c"), cards("4s"))
    # with no sweep cost it takes too
    assert _both(game, "heuristic:sweep=0") == (card_of("4c"), cards("4s"))


def test_counter_takes_when_no_card_can_sweep_and_trails_when_one_may():
    game = _hand_made(["4c Kc", "Qd Jh"], "4s 3h", NO_THREE)
    assert _both(game, "counter") == (card_of("4c"), cards("4s"))
    game = _hand_made(["4c Kc", "Qd Jh"], "4s 3h", ONE_THREE)
    assert _both(game, "counter") == (card_of("Kc"), ())
    # the chance is 1/4: taking is worth 340 - sweep / 4, better than -150 below sweep=1960
    assert _both(game, "counter:sweep=1950") == (card_of("4c"), cards("4s"))
    assert _both(game, "counter:sweep=1970") == (card_of("Kc"), ())


# Seat 0 holds Qs Kc on a table of 5h; the other kings are out of the round
# (seen), a queen (Qh) is in the deck. Trailing either costs the same worth
# (150) and leaves 14 or 15 on the table, no seven, no coin, no two cards
# summing to 10 or less: heuristic and counter see a tie and play the first,
# Qs. reply also charges what the next player takes by matching: the 5h is
# left either way, but a trailed Qs can be matched by the unseen Qh and a
# trailed Kc by no card at all, so reply trails Kc.
def test_reply_trails_the_card_nobody_can_match():
    game = _hand_made(["Qs Kc", "2d 6s"], "5h", "Qh Ac 2c 3s 6c 8c")
    assert _both(game, "heuristic") == (card_of("Qs"), ())
    assert _both(game, "counter") == (card_of("Qs"), ())
    assert _both(game, "reply") == (card_of("Kc"), ())
    assert _both(game, "reply:match=0") == (card_of("Qs"), ())


# Seat 0 (the dealer) plays the last card of a deal, Qc, on 7s 2h 4d 5h; the
# next seat holds nothing and a new deal of 3 each comes from the 6 cards of
# the deck, which hold two sevens and no 4 or 9 (every other card is out of
# the round). Qc takes 4d 5h (gain 3 x 100 + 100 coin + 5 x (14 + 15 + 10) =
# 595) leaving 7s 2h, or 7s 2h (300 + 5 x (21 + 12 + 10) = 515) leaving 4d 5h.
# Both leave 9 (a sweep for a 9, and no 9 is unseen). counter: leaving the 7s
# costs 1200 x P(a 3-card hand from the 6 holds a seven) = 1200 x (1 - C(4,3) /
# C(6,3)) = 960, leaving the 4d costs 240 x 0 (no 4 unseen): 595 - 960 < 515,
# it takes the seven. (Counting the empty hand as 0 cards would make every
# chance 0 and take the coin.) heuristic: 595 - 120 (seven) - 500 (sweep) <
# 515 - 30 (coin) - 500, it takes the seven too; greedy takes the coin.
def test_an_empty_next_hand_counts_as_the_next_deal():
    game = _hand_made(["Qc", ""], "7s 2h 4d 5h", "7d 7c Ac 2c 3c 6h", dealer=0)
    assert game.suggest("greedy") == (card_of("Qc"), cards("4d 5h"))
    assert _both(game, "counter") == (card_of("Qc"), cards("7s 2h"))
    assert _both(game, "heuristic") == (card_of("Qc"), cards("7s 2h"))


# The same choice on the round's last play (deck and the other hand empty):
# nothing is exposed any more, every cautious strategy takes the coin.
def test_nothing_is_exposed_on_the_last_play():
    game = _hand_made(["Qc", ""], "7s 2h 4d 5h", "", dealer=0)
    for spec in ("heuristic", "counter", "reply"):
        assert _both(game, spec) == (card_of("Qc"), cards("4d 5h"))


def test_chance_to_hold():
    assert ref.chance_to_hold(8, 1, 2) == 1 - 21 / 28
    assert ref.chance_to_hold(8, 0, 2) == 0.0
    assert ref.chance_to_hold(3, 2, 2) == 1.0        # only one other card: a hand of 2 holds one
    assert ref.chance_to_hold(30, 4, 0) == 0.0
