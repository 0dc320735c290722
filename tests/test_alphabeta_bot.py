"""The outside-style benchmark opponent (benchmarks/alphabeta_bot.py): its own
move generator against the engine's, its pruned search against plain negamax
in Python, and a run of it as a user strategy."""
import random
from pathlib import Path

import pytest

import scopa_sim
from scopa_sim.engine import user
from scopa_sim.engine.cards import mask_of
from scopa_sim.engine.game import legal_moves

BOT_FILE = Path(__file__).resolve().parent.parent / "benchmarks" / "alphabeta_bot.py"


@pytest.fixture(scope="module")
def bot():
    """The module as a strategy run loads it (its Numba cache in scopa-sim's
    folder, not beside the file)."""
    return user._module_from_file(BOT_FILE, str(BOT_FILE), user.bounds_checked())[0]


def random_position(rng, hand_size, table_size):
    cards = rng.sample(range(40), hand_size + table_size)
    return cards[:hand_size], cards[hand_size:]


def bot_moves(bot, hand, table):
    """(card, captured cards) as the bot enumerates them, canonical order."""
    moves, t_mask = [], mask_of(table)
    for c in sorted(hand):
        t = bot.next_capture(bot.RANK_OF[c], t_mask, -1)
        takes = [0] if t == 0 else []
        while t:
            takes.append(t)
            t = bot.next_capture(bot.RANK_OF[c], t_mask, t)
        moves += [(c, tuple(x for x in range(40) if take >> x & 1)) for take in sorted(takes)]
    return moves


def test_the_bot_generates_the_engines_moves(bot):
    rng = random.Random(5)
    for _ in range(600):
        hand, table = random_position(rng, rng.randint(1, 3), rng.randint(0, 10))
        assert bot_moves(bot, hand, table) == legal_moves(hand, table)


def negamax(bot, me, other, next_me, next_other, table, deck_left, plies):
    """Plain negamax, every move searched: the reference for the bot's levels."""
    if not me:
        if not next_me:
            return 0.0
        me, other, next_me, next_other = next_me, next_other, [], []
        deck_left -= len(me) + len(other)
    if plies == 0:
        return 0.0
    last = deck_left == 0 and len(me) + len(other) == 1
    best = float("-inf")
    for card, taken in legal_moves(me, table):
        take = mask_of(taken)
        after = [c for c in table if c not in taken] if taken else table + [card]
        v = bot.gain(card, take, mask_of(table), last) - negamax(
            bot, other, [c for c in me if c != card], next_other, next_me, after, deck_left,
            plies - 1)
        best = max(best, v)
    return best


@pytest.mark.parametrize("plies", [1, 2, 3, 4])
def test_the_pruned_search_agrees_with_plain_negamax(bot, plies):
    rng = random.Random(plies)
    search = bot.searcher(plies)
    for _ in range(60):
        size = rng.randint(1, 3)
        cards = rng.sample(range(40), 2 * size + 6 + 6)
        me, other = cards[:size], cards[size:2 * size - rng.randint(0, 1)]
        table = cards[2 * size:2 * size + rng.randint(0, 6)]
        deck_left = rng.choice([0, 6, 18])
        next_me, next_other = (cards[-6:-3], cards[-3:]) if deck_left else ([], [])
        want = negamax(bot, me, other, next_me, next_other, table, deck_left, plies)
        got = search(*map(mask_of, (me, other, next_me, next_other, table)), deck_left,
                     -float("inf"), float("inf"))
        assert got == pytest.approx(want)


def test_the_bot_plays_whole_rounds_reproducibly():
    run = lambda workers: scopa_sim.simulate(  # noqa: E731
        rounds=40, strategies=(f"{BOT_FILE}:alphabeta", "counter"), seed=3, workers=workers,
        batch_size=10)
    one = run(1)
    assert (one["cards_0"] + one["cards_1"] == 40).all()
    assert one.equals(run(2))
