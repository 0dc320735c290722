"""The fast engine against the slow reference (tests/reference/engine.py).

Legal moves are compared on many random positions; whole runs are compared
row for row, column for column, for every strategy pair and rule set; a few
rounds are compared move for move. A failure names the smallest case found.
"""

import random

import pytest

import scopa_sim

try:
    from tests.reference import engine as ref
except ImportError:  # tests/ on sys.path instead of the repo root
    from reference import engine as ref


def norm_caps(caps):
    return [tuple(int(x) for x in cap) for cap in caps]


def norm_moves(moves):
    return [(int(card), tuple(int(x) for x in cap)) for card, cap in moves]


def show(cards):
    return "[" + " ".join(ref.name(x) for x in sorted(cards)) + "]"


# ---------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------


def test_legal_captures_match_reference_on_random_positions():
    rng = random.Random(20240601)
    failures = []
    for _ in range(20_000):
        n = rng.randint(0, 15)
        drawn = rng.sample(range(40), n + 1)
        card, table = drawn[0], drawn[1:]
        want = ref.captures(table, card)
        got = scopa_sim.legal_captures(list(table), card)
        if norm_caps(got) != want:
            failures.append((len(table), table, card, got, want))
    if failures:
        n, table, card, got, want = min(failures, key=lambda f: (f[0], f[1]))
        pytest.fail(
            f"{len(failures)} of 20000 positions differ; smallest: table={sorted(table)} {show(table)} "
            f"card={card} ({ref.name(card)}): fast={got} reference={want}"
        )


def test_legal_captures_return_tuples_and_accept_notation():
    got = scopa_sim.legal_captures(["As", "6c", "5h"], "7s")
    assert got == [(20, 35)] and isinstance(got, list) and isinstance(got[0], tuple)
    assert scopa_sim.legal_captures([20, 35, 14], 4) == [(14,)]
    assert scopa_sim.legal_captures([], 6) == []
    assert scopa_sim.legal_captures([13, 22], 26) == [(13, 22)]  # 4h + 3s = 7s
    assert scopa_sim.legal_captures(["4h", "3c", "7s"], "7h") == [(26,)]


def test_legal_moves_match_reference_on_random_hands():
    rng = random.Random(7)
    failures = []
    for _ in range(3_000):
        h = rng.randint(1, 10)
        n = rng.randint(0, 15)
        drawn = rng.sample(range(40), h + n)
        hand, table = drawn[:h], drawn[h:]
        want = ref.legal_moves(hand, table)
        got = scopa_sim.legal_moves(list(hand), list(table))
        if norm_moves(got) != want:
            failures.append((len(hand) + len(table), hand, table, got, want))
    if failures:
        _, hand, table, got, want = min(failures, key=lambda f: f[0])
        pytest.fail(
            f"{len(failures)} of 3000 positions differ; smallest: hand={sorted(hand)} {show(hand)} "
            f"table={sorted(table)} {show(table)}: fast={got} reference={want}"
        )


CAPTURE_VARIANTS = ["scopa+fewest_cards", "scopa+ace_takes_all", "scopa+fewest_cards+ace_takes_all"]


@pytest.mark.parametrize("name", CAPTURE_VARIANTS)
def test_variant_captures_and_moves_match_reference(name):
    rules = scopa_sim.Rules.preset(name)
    rrules = ref.from_rules(rules)
    rng = random.Random(name)
    failures = []
    for _ in range(2_000):
        h = rng.randint(1, 4)
        n = rng.randint(0, 12)
        drawn = rng.sample(range(40), h + n)
        hand, table = drawn[:h], drawn[h:]
        for card in hand:
            got = norm_caps(scopa_sim.legal_captures(list(table), card, rules))
            if got != ref.captures(table, card, rrules):
                failures.append((len(table), table, [card], got, ref.captures(table, card, rrules)))
        got = norm_moves(scopa_sim.legal_moves(list(hand), list(table), rules))
        if got != ref.legal_moves(hand, table, rrules):
            failures.append((len(hand) + len(table), table, hand, got, ref.legal_moves(hand, table, rrules)))
    if failures:
        _, table, hand, got, want = min(failures, key=lambda f: f[0])
        pytest.fail(f"{name}: {len(failures)} differences; smallest: hand={show(hand)} table={show(table)}: "
                    f"fast={got} reference={want}")


@pytest.mark.parametrize("name", ["scopa", "scopa+ace_takes_all", "scopa+scopa_on_last_play",
                                  "scopa+ace_takes_all+scopa_on_last_play"])
def test_scopa_rule_matches_reference(name):
    # Whether a capture scores a scopa: the kernel's clears_for_scopa against
    # the reference's is_scopa, on every capture of random positions.
    import numpy as np

    rules = scopa_sim.Rules.preset(name)
    rrules, packed = ref.from_rules(rules), rules.pack()
    rng = random.Random(name)
    checked = 0
    for _ in range(3_000):
        n = rng.randint(1, 5)
        drawn = rng.sample(range(40), n + 1)
        card, table = drawn[0], drawn[1:]
        for cap in ref.captures(table, card, rrules):
            for last in (False, True):
                want = ref.is_scopa(table, cap, card, last, rrules)
                got = scopa_sim.kernels.moves.clears_for_scopa(
                    np.uint64(ref.capture_mask(table)), np.uint64(ref.capture_mask(cap)), card, last, packed)
                assert bool(got) == want, f"{name}: {ref.name(card)} takes {show(cap)} from {show(table)}, last={last}"
                checked += 1
    assert checked > 500


def test_legal_moves_seed000_example():
    # hand 5d 7s 2h, table As 6c 5h: trail 2h, 7s takes As + 6c, 5d takes 5h
    got = norm_moves(scopa_sim.legal_moves(["5d", "7s", "2h"], ["As", "6c", "5h"]))
    assert got == [(4, (14,)), (11, ()), (26, (20, 35))]


# ---------------------------------------------------------------------------
# Whole runs
# ---------------------------------------------------------------------------

RULES = {
    "scopa": lambda: "scopa",
    "3p": lambda: scopa_sim.Rules(players=3, teams=(0, 1, 2), hand_size=3, table_size=4),
    "4p-teams": lambda: scopa_sim.Rules(players=4, teams=(0, 1, 0, 1), hand_size=3, table_size=4),
    "4p-10cards": lambda: scopa_sim.Rules(players=4, teams=(0, 1, 0, 1), hand_size=10, table_size=0, refill=False),
    "6p-teams": lambda: scopa_sim.Rules(players=6, teams=(0, 1, 2, 0, 1, 2), hand_size=3, table_size=4),
}
# Every preset, and every variant option (docs/VARIANTS.md) on its own and
# mixed on the other presets, by the names Rules.preset reads.
VARIANTS = [
    "scopa-3",
    "scopa-4",
    "scopa-4-nine",
    "scopone-scientifico",
    "scopa-6",
    "scopa+fewest_cards",
    "scopa+ace_takes_all",
    "scopa+scopa_on_last_play",
    "scopa+primiera_forfeit",
    "scopa+re_bello+napola",
    "scopa+primiera_scale=1,2,3,4,5,6,7,8,9,10",
    "scopa-3+target=8+fewest_cards+ace_takes_all",
    "scopa-4+scopa_on_last_play+primiera_forfeit+napola",
    "scopa-4-nine+ace_takes_all+re_bello+primiera_scale=30,2,3,4,5,6,7,8,9,40",
    "scopone-scientifico+fewest_cards+scopa_on_last_play+napola",
    "scopa-6+ace_takes_all+primiera_forfeit+re_bello",
    "scopa+ranks=3+hand_size=2",
    "scopa+ranks=2+table_size=2+refill=false",
    "scopa-4+ranks=7+ace_takes_all+re_bello",
]
RULES.update({name: (lambda name=name: name) for name in VARIANTS})
PAIRS = [("random", "random"), ("greedy", "greedy"), ("random", "greedy")]


def ref_rules(rules):
    if isinstance(rules, str):
        rules = scopa_sim.Rules.preset(rules)
    return ref.from_rules(rules)


def per_seat(pair, players):
    """Seat s plays pair[s % 2]: with two strategies, partners play alike."""
    return tuple(pair[s % 2] for s in range(players))


def compare_runs(df, want, what, deck_of=None, skip=()):
    """Row for row, column for column over the reference's columns (less ``skip``)."""
    assert len(df) == len(want), f"{what}: {len(df)} rows, reference {len(want)}"
    missing = [col for col in want[0] if col not in df.columns] if want else []
    assert not missing, f"{what}: columns missing from simulate: {missing}"
    got = df.to_dict("list")
    for i, row in enumerate(want):
        diff = {
            col: (int(got[col][i]), val) for col, val in row.items() if col not in skip and int(got[col][i]) != val
        }
        if diff:
            extra = f"; deck={deck_of(i)}" if deck_of else ""
            pytest.fail(f"{what}: row {i} differs (column: (fast, reference)): {diff}{extra}")


def first_move_difference(seed, index, strategies, rules, rrules):
    """Where trace_round's moves leave the reference's, for a failure message."""
    deck = ref.shuffled_deck(ref.deal_stream(seed, index, 0))
    log = []
    ref.play_round(deck, index % rrules.players, strategies, rrules,
                   ref.decide_stream(seed, index, 0), log=log)
    try:
        game = scopa_sim.trace_round(seed, index, strategies=strategies, rules=rules)
        fast = [(int(s), int(c), tuple(int(x) for x in cap)) for s, c, cap in game.moves]
    except Exception as exc:  # noqa: BLE001 - only for the message
        return f"trace_round raised {exc!r}"
    for k, (a, b) in enumerate(zip(fast, log)):
        if a != b:
            return f"play {k}: fast {a}, reference {b}; earlier plays {log[:k]}"
    return "moves agree" if len(fast) == len(log) else f"{len(fast)} plays vs {len(log)}"


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
@pytest.mark.parametrize("rules_id", list(RULES))
def test_simulate_rounds_match_reference(rules_id, pair):
    rules = RULES[rules_id]()
    rrules = ref_rules(rules)
    strategies = per_seat(pair, rrules.players)
    seed = 1000 + 17 * list(RULES).index(rules_id) + PAIRS.index(pair)
    n = 250
    want = ref.simulate(rounds=n, strategies=strategies, rules=rrules, seed=seed)
    df = scopa_sim.simulate(rounds=n, strategies=strategies, rules=rules, seed=seed)
    assert list(df["round"]) == list(range(n))

    def deck_of(i):
        msg = first_move_difference(seed, i, strategies, rules, rrules)
        return f"{ref.shuffled_deck(ref.deal_stream(seed, i, 0))} dealer={i % rrules.players}; {msg}"

    compare_runs(df, want, f"simulate(rounds={n}, strategies={strategies}, rules={rules_id}, seed={seed})", deck_of)


@pytest.mark.parametrize("rules_id", ["4p-teams", "6p-teams"])
def test_one_strategy_per_side_is_played_by_every_seat_of_that_side(rules_id):
    rules = RULES[rules_id]()
    rrules = ref_rules(rules)
    per_side = ("random", "greedy", "random")[: rrules.n_sides]
    seats = tuple(per_side[side] for side in rrules.teams)
    want = ref.simulate(rounds=60, strategies=seats, rules=rrules, seed=8)
    df = scopa_sim.simulate(rounds=60, strategies=per_side, rules=rules, seed=8)
    compare_runs(df, want, f"simulate(rounds=60, strategies={per_side}, rules={rules_id}, seed=8)")


def test_default_preset_is_the_reference_default():
    assert ref_rules("scopa") == ref.RefRules()


def test_every_preset_and_option_is_compared():
    compared = [ref_rules(RULES[k]()) for k in RULES]
    for name in scopa_sim.PRESETS:
        assert name in RULES or name == "scopa"
    for flag in ref.VARIANT_FLAGS:
        assert any(getattr(r, flag) for r in compared), flag
    assert any(r.primiera_scale != ref.RefRules().primiera_scale for r in compared)
    assert any(r.target != 11 for r in compared)
    assert any(r.ranks != 10 for r in compared)


@pytest.mark.parametrize("seed", [0, 2**32 + 1, 2**63 - 1])
def test_simulate_seeds_use_64_bits(seed):
    want = ref.simulate(rounds=20, strategies=("random", "greedy"), seed=seed)
    df = scopa_sim.simulate(rounds=20, strategies=("random", "greedy"), rules="scopa", seed=seed)
    compare_runs(df, want, f"seed={seed}")


@pytest.mark.parametrize("rules_id", ["scopa", "4p-teams", "scopa-3+target=8+fewest_cards+ace_takes_all",
                                      "scopa-4-nine+ace_takes_all+re_bello+primiera_scale=30,2,3,4,5,6,7,8,9,40"])
def test_simulate_games_match_reference(rules_id):
    rules = RULES[rules_id]()
    rrules = ref_rules(rules)
    strategies = per_seat(("random", "greedy"), rrules.players)
    want = ref.simulate(games=30, strategies=strategies, rules=rrules, seed=77)
    df = scopa_sim.simulate(games=30, strategies=strategies, rules=rules, seed=77)
    assert "game" in df.columns and f"score_{rrules.n_sides - 1}" in df.columns
    compare_runs(df, want, f"simulate(games=30, rules={rules_id}, seed=77)")


def test_simulate_games_round_column_counts_rounds_within_each_game():
    # In games mode `round` is the round's number within its game (0, 1, ...),
    # so that a batch of games is numbered without knowing earlier batches.
    want = ref.simulate(games=10, strategies=("random", "greedy"), seed=77)
    df = scopa_sim.simulate(games=10, strategies=("random", "greedy"), rules="scopa", seed=77)
    assert list(df["round"]) == [r["round"] for r in want]
    assert (df.groupby("game")["round"].apply(lambda r: list(r) == list(range(len(r))))).all()


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
@pytest.mark.parametrize("rules_id", list(RULES))
def test_trace_round_moves_match_reference(rules_id, pair):
    rules = RULES[rules_id]()
    rrules = ref_rules(rules)
    strategies = per_seat(pair, rrules.players)
    for index in range(4):
        msg = first_move_difference(31, index, strategies, rules, rrules)
        assert msg == "moves agree", f"rules={rules_id} strategies={strategies} seed=31 round={index}: {msg}"
