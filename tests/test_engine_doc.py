"""docs/ENGINE.md's randomness, run as written: its Python block (SipHash-2-4,
the keys, round_key, SplitMix64, the shuffle, the random strategy) deals and
draws what the kernels deal and draw, so the page and the code cannot drift
apart. The block runs here on its own, importing nothing; the rounds are
played by the reference engine (tests/reference/engine.py) with the block's
streams and its `random_move`."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import scopa_sim
from scopa_sim.engine import deals

try:
    from tests.reference import engine as ref
except ImportError:  # tests/ on sys.path instead of the repo root
    from reference import engine as ref

PAGE = Path(__file__).resolve().parent.parent / "docs" / "ENGINE.md"
SEEDS = (0, 1, 7, 2**63 + 12345, 2**64 - 1)


def described() -> dict:
    """The names the randomness section's Python block defines."""
    section = PAGE.read_text().split("\n## Randomness", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 1, "the randomness section has one Python block"
    names: dict = {}
    exec(compile(blocks[0], f"{PAGE.name} (randomness)", "exec"), names)
    return names


DOC = described()


def test_the_described_siphash_is_siphash_2_4():
    """The reference code's test vector of an 8-byte message (key 00..0f,
    message 00..07: output bytes 62 24 93 9a 79 f5 f5 93), and the slow
    reference's SipHash of any message on the engine's words."""
    key = bytes(range(16))
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    m = int.from_bytes(bytes(range(8)), "little")
    assert DOC["sip"](k0, k1, m) == ref.siphash24(key, bytes(range(8))) == 0x93F5F5799A932462
    for k0, k1, m in ((1, DOC["DEAL"], 5 << 20 | 3), (2**64 - 1, DOC["DECIDE"], 2**64 - 1)):
        assert DOC["sip"](k0, k1, m) == ref.sip(k0, k1, m)


def test_the_described_constants_are_the_kernels():
    from scopa_sim.kernels import rng
    for name in ("GOLDEN", "DEAL", "DECIDE", "OBSERVE"):
        assert DOC[name] == int(getattr(rng, name)), name
    assert DOC["round_key"](3, 7) == int(rng.round_key(3, 7))
    assert DOC["mix64"](12345) == int(rng.mix64(np.uint64(12345)))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_described_decks_are_the_runs(seed):
    """Rounds of a run of rounds (unit i, round 0) and rounds of games
    (unit g, round r), as `deck_of` gives them."""
    for unit, number in ((0, 0), (1, 0), (3, 0), (10**13 - 1, 0), (0, 1), (5, 17), (9, 2**20 - 1)):
        want = scopa_sim.deck_of(seed=seed, index=unit, number=number).split()
        assert [scopa_sim.card_name(c) for c in DOC["deck"](seed, unit, number)] == want


def test_a_128_bit_seed_keys_the_streams_as_described():
    for seed in (2**64, 2**100 + 5, 2**128 - 1):
        for unit, number in ((0, 0), (4, 2)):
            assert DOC["deck"](seed, unit, number) == deals.deck(seed, unit, number)
    assert DOC["deck"](5, 2, 1) == DOC["deck"](5 + 0 * 2**64, 2, 1) == deals.deck(5, 2, 1)


def test_the_deal_columns_follow_the_described_deck_and_dealer():
    """Game g's round r is dealt by seat (g + r) % players: its first hands are
    the cards after the table, one at a time from the leader."""
    rules = scopa_sim.Rules.preset("scopa")
    units, numbers = np.array([0, 3, 3, 8]), np.array([0, 0, 1, 4])
    got = scopa_sim.deal_columns(rules, 11, units, numbers)
    for row, (g, r) in enumerate(zip(units, numbers)):
        order = DOC["deck"](11, int(g), int(r))
        leader = (g + r + 1) % 2
        hands = {leader: order[4:10:2], 1 - leader: order[5:10:2]}
        assert int(got["table"][row]) == sum(1 << c for c in order[:4])
        for seat in (0, 1):
            assert int(got[f"hand_{seat}"][row]) == sum(1 << c for c in hands[seat])


def play_described(seed, unit, number, dealer, log):
    """The round, random against random, with the described streams."""
    return ref.play_round(DOC["deck"](seed, unit, number), dealer,
                          [lambda moves, table, last, stream: DOC["random_move"](stream, moves)] * 2,
                          ref.RefRules(), DOC["decide_stream"](seed, unit, number), log)


def moves_of(rnd) -> list:
    return [(seat, card, tuple(sorted(take))) for seat, card, take in rnd.moves]


@pytest.mark.parametrize("seed", (1, 2**64 - 1))
def test_random_plays_the_described_draws_in_a_run_of_rounds(seed):
    run = scopa_sim.simulate(rounds=6, strategies=("random", "random"), seed=seed)
    for i in range(6):
        log = []
        record = play_described(seed, i, 0, i % 2, log)
        assert moves_of(scopa_sim.trace_round(seed, i, ("random", "random"))) == \
            [(s, c, tuple(sorted(t))) for s, c, t in log]
        assert [run[f"points_{t}"][i] for t in (0, 1)] == [record[f"points_{t}"] for t in (0, 1)]


def test_random_plays_the_described_draws_in_a_run_of_games():
    seed = 2026
    run = scopa_sim.simulate(games=3, strategies=("random", "random"), seed=seed)
    for g in range(3):
        game = scopa_sim.trace_game(seed, g, ("random", "random"))
        rows = run[run["game"] == g]
        assert len(game.rounds) == len(rows)
        for r, rnd in enumerate(game.rounds):
            log = []
            record = play_described(seed, g, r, (g + r) % 2, log)
            assert moves_of(rnd) == [(s, c, tuple(sorted(t))) for s, c, t in log]
            assert rows["points_0"].iloc[r] == record["points_0"]


def test_observed_bits_are_the_described_ones():
    from scopa_sim.kernels import rng
    state = DOC["decide_stream"](3, 1, 0)
    state.next()
    kernel_state = np.array([state.state], np.uint64)
    assert DOC["observed_bits"](state, 5) == int(rng.observed_bits(kernel_state, 5))
    assert DOC["plain_stream"](9, 4).next() == int(_plain_next(9, 4))


def _plain_next(seed, index):
    from scopa_sim.kernels import rng
    state = np.zeros(1, np.uint64)
    rng.stream(np.uint64(seed), np.uint64(index), state)
    return rng.next_u64(state)
