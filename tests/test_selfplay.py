"""Self-play samples (`kernels.selfplay`, `scopa_sim.study.selfplay.generate`)
against a slow reference that plays the rounds with the checked `Round` API.

The reference deals round u of run `seed` as a run does (`deals.deck`, dealer
u % players) and plays it move by move. At every decision of two moves or
more where a card is hidden from the mover (`hidden_from_mover`) it writes
one sample per legal move, in the
order `Round.legal_moves()` lists them: the decision id (u << 6 | plays),
the afterstate by `net_reference.afterstate` (written from the description,
not from the kernel), and the target: the mover's side's round points minus
the best other side's, after a copy of the round plays that move and then is
played out to its end move by move, every seat by the rollout strategy.

Who chooses a move (`Chooser`): `suggesting(s)` asks `Round.suggest` (a fresh
stream per call: only right for strategies that draw no random number, as
`endgame` in two-player scopa); `deciding(s)` calls the kernels' strategy
dispatch (`strategies.decide`, which `Round.suggest` calls too) with the
random stream the kernel's self-play would be on: the round's decide stream
for the round's own moves, stream (key, 0) for a rollout, key drawn from the
decide stream once per world. The reference draws from the streams in the
order the module docstring of kernels/selfplay.py describes (targets first,
then the explore draw, then the lineup's choice; a strategy is asked even
with one legal move). Random numbers are inputs here, not what is checked.
"""
from typing import Callable, NamedTuple

import numpy as np
import pytest

from scopa_sim import Round, Rules, kernels as K
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.batch
import scopa_sim.kernels.moves
import scopa_sim.kernels.rng
import scopa_sim.kernels.search
import scopa_sim.kernels.strategies
from scopa_sim.engine.cards import mask_of
from scopa_sim.engine.deals import deck as dealt_deck
from scopa_sim.engine.rules import kernel_rules
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.kernels import net as N
from scopa_sim.kernels.layout import MAX_MOVES
from scopa_sim.kernels.moves import W_SIZE
from scopa_sim.kernels.position import HAND, POS_SIZE, TABLE
from scopa_sim.study.selfplay import generate

import net_reference as R

pytestmark = pytest.mark.slow     # compiling self-play's kernels is minutes of a cold suite

SCOPA = Rules.resolve("scopa")
SEED = 5
UNITS = range(3)                           # the rounds of the slow reference
INFER = 0.5                                # generate's default `infer`

# a chooser: (round, random state uint64[1]) -> index into round.legal_moves()
Chooser = Callable[[Round, np.ndarray], int]


class Sample(NamedTuple):
    """One reference sample: where it was made, and what it holds."""
    unit: int
    play: int                              # plays made in the round before the decision
    seat: int
    moves: int                             # legal moves of the decision
    move: tuple                            # the Move this sample plays
    decision: int
    after: dict                            # net_reference.afterstate
    target: float


# -- choosers -----------------------------------------------------------------
def suggesting(strategy: str, seed: int = 0) -> Chooser:
    """The move `Round.suggest(strategy, seed)` gives; the random state is
    not used (nor advanced)."""
    def choose(rnd, rng):
        return rnd.legal_moves().index(rnd.suggest(strategy, seed=seed))
    return choose


def deciding(rules: Rules, strategy: str) -> Chooser:
    """The move the kernels' strategy dispatch (`strategies.decide`, as
    `Round.suggest` calls it) gives from random state `rng`, which it
    advances as the kernel's play-out would."""
    s = parse_strategy(strategy)
    sid, params, vector = s.spec.id, s.vector(), kernel_rules(rules)
    scratch = K.batch.scratch()

    def choose(rnd, rng):
        pos, deck = rnd.kernel_position()
        seat = rnd.turn
        n = K.moves.legal_moves(pos[HAND + seat], pos[TABLE], vector, scratch.cards, scratch.takes,
                          scratch.work)
        assert n == len(rnd.legal_moves())
        scratch.rng[0] = rng[0]
        i = K.batch.call(K.strategies.decide, sid, params, seat, n,
                         scratch.board(pos, deck), scratch.kit(vector))
        rng[0] = scratch.rng[0]
        assert 0 <= i < n
        return int(i)
    return choose


# -- the reference --------------------------------------------------------------
def margin(rnd: Round, side: int) -> int:
    """The finished round's points of `side` minus the best other side's."""
    res = rnd.result()
    points = [res[f"points_{t}"] for t in range(rnd.rules.n_sides)]
    return points[side] - max(p for t, p in enumerate(points) if t != side)


def play_on(rnd: Round, choose: Chooser, rng: np.ndarray) -> Round:
    """Play `rnd` (a copy, changed) to its end, every seat by `choose`."""
    while not rnd.done:
        rnd.play(*rnd.legal_moves()[choose(rnd, rng)])
    return rnd


def kernel_moves(rnd: Round):
    """The kernel's legal move list of the seat to play, as Moves."""
    pos, _ = rnd.kernel_position()
    cards, takes = np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.uint64)
    n = K.moves.legal_moves(pos[HAND + rnd.turn], pos[TABLE], kernel_rules(rnd.rules), cards, takes,
                      np.zeros(W_SIZE, np.int64))
    return [(int(c), tuple(R.cards_of(t))) for c, t in zip(cards[:n], takes[:n])]


def sampled_deal(pos, deck, seat: int, rng: np.ndarray, infer: float) -> tuple:
    """A deal of the cards the seat has not seen, as the searches sample them."""
    dpos, ddeck = np.zeros(POS_SIZE, np.uint64), np.zeros(40, np.int64)
    K.search.determinize_inferred(pos, deck, np.int64(seat), rng, dpos, ddeck,
                                  np.zeros(W_SIZE, np.int64), float(infer))
    return dpos, ddeck


def on_deal(rnd: Round, deal, move, roll: Chooser, rng: np.ndarray, side: int) -> int:
    """The margin of `move` played in `deal` ((pos, deck) of `rnd`; None: the
    true one), then played on by `roll` from random state `rng`."""
    child = rnd.copy()
    if deal is not None:           # the same round in the sampled deal (Round's own arrays)
        child._pos, child._deck = deal[0].copy(), deal[1].copy()
    child.play(*move)
    return margin(play_on(child, roll, rng), side)


def teacher_values(rnd: Round, pos, deck, moves, rng: np.ndarray, roll: Chooser, infer: float,
                   samples: int, halving: bool) -> np.ndarray:
    """A teacher's value of each move: its mean margin over the deals it drew.
    pimc: `samples` deals, every move played on each. spimc (`halving`):
    `samples` times the moves' rollouts in ceil(log2 n) rounds, each round's
    share split evenly among the moves still in, the worse half (by total,
    then the later move) dropped after it; a move's value is its mean over
    the deals it had."""
    seat, n = rnd.turn, len(moves)
    side = rnd.rules.teams[seat]
    totals, values, spent = np.zeros(n), np.zeros(n), 0
    alive = list(range(n))
    rounds = (n - 1).bit_length() if halving else 1
    for _ in range(rounds):
        per = max(1, samples * n // (rounds * len(alive))) if halving else samples
        spent += per
        for _ in range(per):
            deal = sampled_deal(pos, deck, seat, rng, infer)
            for i in alive:
                totals[i] += on_deal(rnd, deal, moves[i], roll, rng, side)
        alive.sort(key=lambda i: (-totals[i], i))
        kept = (len(alive) + 1) // 2 if halving else 0
        for i in alive[kept:]:
            values[i] = totals[i] / spent
        alive = alive[:kept]
    for i in alive:
        values[i] = totals[i] / spent
    return values


def hidden_from_mover(rnd: Round) -> bool:
    """Whether the seat to play cannot know where every card is: the deck
    holds cards, or two other seats still hold some."""
    others = [h for s, h in enumerate(rnd.hands) if s != rnd.turn and len(h)]
    return bool(rnd.deck) or len(others) >= 2


def decision_samples(rnd: Round, unit: int, rng: np.ndarray, roll: Chooser, worlds: int,
                     infer: float, with_targets: bool, teach: int = 0,
                     halving: bool = False) -> list[Sample]:
    """The samples of the decision at `rnd` (the seat to play has 2+ moves
    and a card is hidden from it); with `teach` (a teacher's samples, its
    rollouts by `roll`, which must draw nothing), each target is the
    teacher's value of its move (`teacher_values`)."""
    rules = rnd.rules
    moves = rnd.legal_moves()
    assert [tuple(m) for m in moves] == kernel_moves(rnd)     # the kernel's canonical order
    pos, deck = rnd.kernel_position()
    seat, plays = rnd.turn, len(rnd.moves)
    side = rules.teams[seat]
    vector = kernel_rules(rules)
    targets = [np.float32(0.0)] * len(moves)
    if teach:
        targets = [np.float32(v) for v in teacher_values(rnd, pos, deck, moves, rng, roll,
                                                         infer, teach, halving)]
    for _ in range(0 if teach else max(worlds, 1)):
        deal = sampled_deal(pos, deck, seat, rng, infer) if worlds else None
        key = np.uint64(K.rng.next_u64(rng))
        if not with_targets:
            continue
        for i, move in enumerate(moves):
            stream = np.zeros(1, np.uint64)
            K.rng.stream(key, np.int64(0), stream)
            v = on_deal(rnd, deal, move, roll, stream, side)
            targets[i] = np.float32(targets[i] + v / max(worlds, 1))
    return [Sample(unit, plays, seat, len(moves), tuple(move), (unit << 6) | plays,
                   R.afterstate(pos, vector, seat, move.card, mask_of(move.captured)),
                   float(targets[i]))
            for i, move in enumerate(moves)]


def reference(rules: Rules, seed: int, units, play: Chooser, roll: Chooser,
              explore: float = 0.0, worlds: int = 0, infer: float = INFER,
              with_targets: bool = True, teach: int = 0,
              halving: bool = False) -> list[Sample]:
    """The samples of rounds `units` of run `seed` (see the module docstring);
    without `with_targets` no rollout is played (every target 0); `teach`:
    see `decision_samples`."""
    out = []
    for u in units:
        rnd = Round(rules, deck=dealt_deck(seed, u), dealer=u % rules.players)
        rng = np.zeros(1, np.uint64)
        K.rng.decide_stream(np.uint64(seed), np.int64(u), np.int64(0), rng)
        while not rnd.done:
            moves = rnd.legal_moves()
            m = len(moves)
            if m > 1 and hidden_from_mover(rnd):
                out += decision_samples(rnd, u, rng, roll, worlds, infer, with_targets, teach,
                                        halving)
            if explore > 0 and m > 1 and K.rng.below(rng, 1 << 20) < explore * (1 << 20):
                i = int(K.rng.below(rng, m))
            else:
                i = play(rnd, rng)
            rnd.play(*moves[i])
    return out


# -- comparing -------------------------------------------------------------------
def as_dict(a) -> dict:
    return {name: int(a[i]) for i, name in enumerate(N.AFTER_FIELDS)}


def assert_matches(ref: list[Sample], got, seed: int, with_targets: bool = True):
    """The kernel's samples (after, target, decision) are the reference's,
    row for row; a disagreement names its round, play, move and values."""
    after, target, decision = got
    assert len(target) == len(ref) == len(decision) == len(after), \
        f"kernel {len(target)} samples, reference {len(ref)}"
    assert after.shape[1] == N.A_SIZE
    np.testing.assert_array_equal(decision, [s.decision for s in ref])
    for row, s in enumerate(ref):
        assert as_dict(after[row]) == s.after, (f"seed {seed} round {s.unit} play {s.play} "
                                                f"move {s.move}: afterstate", row)
    if with_targets:
        wrong = [f"seed {seed} round {s.unit} play {s.play} seat {s.seat} move {s.move}: "
                 f"kernel {float(target[row])} reference {s.target}"
                 for row, s in enumerate(ref) if float(target[row]) != s.target]
        assert not wrong, f"{len(wrong)} of {len(ref)} targets differ:\n" + "\n".join(wrong[:20])


def per_decision(decision) -> tuple[np.ndarray, np.ndarray]:
    """The decision ids in the order they come (each a run of rows: checked)
    and each one's row count."""
    starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
    ids = decision[starts]
    assert len(np.unique(ids)) == len(ids), "a decision's rows are not together"
    return ids, np.diff(np.r_[starts, len(decision)])


# -- 1. the true deal, endgame everywhere: the reference by Round.suggest ---------------
def test_endgame_suggestions_do_not_depend_on_the_seed():
    """`endgame` draws no random number in two-player scopa (the fallback,
    reply, is deterministic; the sampled-deals solve needs a hidden card
    once the deck is out, which two players never have), so any seed gives
    the same suggestion: checked at every position of the reference rounds."""
    checked = 0
    for u in UNITS:
        rnd = Round(SCOPA, deck=dealt_deck(SEED, u), dealer=u % SCOPA.players)
        while not rnd.done:
            moves = {rnd.suggest("endgame", seed=s) for s in (0, 1, 2**40 + 7, 2**63 - 1)}
            assert len(moves) == 1, (u, len(rnd.moves), moves)
            checked += len(rnd.legal_moves()) > 1
            rnd.play(*moves.pop())
    assert checked > 30


def test_true_deal_endgame_samples_match_the_reference():
    got = generate(SCOPA, SEED, UNITS.start, len(UNITS), lineup="endgame", rollout="endgame",
                   explore=0.0, worlds=0, workers=1)
    ref = reference(SCOPA, SEED, UNITS, suggesting("endgame"), suggesting("endgame"))
    assert len(ref) > 50 and len({s.decision for s in ref}) > 10
    assert_matches(ref, got, SEED)
    # the reference by the kernels' dispatch on the kernel's streams agrees too
    assert reference(SCOPA, SEED, UNITS, deciding(SCOPA, "endgame"),
                     deciding(SCOPA, "endgame")) == ref


# -- 1b. strategies that draw random numbers, and explore ---------------------------
@pytest.mark.parametrize("lineup, rollout, explore", [
    ("greedy", "random", 0.0),
    ("endgame", "endgame", 1.0),
    ("random", "heuristic", 0.5),
])
def test_samples_with_random_draws_match_the_reference(lineup, rollout, explore):
    """The same with lineups that draw from the streams and with explore
    (1.0: every decision of 2+ moves a random legal one)."""
    seed = 11
    got = generate(SCOPA, seed, 0, 3, lineup=lineup, rollout=rollout, explore=explore,
                   workers=1)
    ref = reference(SCOPA, seed, range(3), deciding(SCOPA, lineup), deciding(SCOPA, rollout),
                    explore=explore)
    assert_matches(ref, got, seed)


@pytest.mark.parametrize("teacher", ["pimc:rollout=greedy,samples=3",
                                     "spimc:rollout=greedy,samples=3,tail=0"])
def test_a_teachers_targets_are_its_mean_margins_over_its_own_deals(teacher):
    """With a pimc teacher (greedy rollouts, which draw nothing) each target
    is the mean margin of its move over the teacher's 3 deals, drawn from
    the decide stream as pimc draws them; with spimc, over the deals a move
    had before sequential halving dropped it. The play goes on from the
    stream as the teacher left it."""
    got = generate(SCOPA, SEED, 0, 2, lineup="greedy", explore=0.2, workers=1, teacher=teacher)
    ref = reference(SCOPA, SEED, range(2), deciding(SCOPA, "greedy"), suggesting("greedy"),
                    explore=0.2, teach=3, halving=teacher.startswith("spimc"))
    assert len(ref) > 30
    assert_matches(ref, got, SEED)


# -- 2. workers and batches do not change the samples -----------------------------
@pytest.mark.parametrize("kw", [
    dict(lineup="endgame", rollout="endgame"),
    dict(lineup="greedy", rollout="random", explore=0.3, worlds=2),
    dict(lineup="greedy", teacher="pimc:leaf=net,depth=2,samples=2"),
])
def test_workers_and_batches_give_the_same_samples(kw):
    one = generate(SCOPA, SEED, 0, 400, workers=1, **kw)
    assert len(one[1]) > 5000
    two = generate(SCOPA, SEED, 0, 400, workers=2, **kw)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    for cut in (200, 150):                 # on generate's batch boundary, and off it
        parts = [generate(SCOPA, SEED, 0, cut, workers=2, **kw),
                 generate(SCOPA, SEED, cut, 400 - cut, workers=2, **kw)]
        for k in range(3):
            np.testing.assert_array_equal(one[k], np.concatenate([p[k] for p in parts]))
    again = generate(SCOPA, SEED, 0, 400, workers=2, **kw)
    for a, b in zip(one, again):
        np.testing.assert_array_equal(a, b)


# -- 3. sampled worlds, and explore -----------------------------------------------
def test_sampled_worlds_average_the_same_deals_for_every_move():
    """worlds=4: the play is the true deal's (endgame draws nothing in two-
    player scopa), every target a multiple of 1/4, every decision's moves
    together under one id; and each target the mean margin of its move over
    the reference's 4 deals (the kernel's own sampler, drawn from the decide
    stream as the kernel draws), every move on the same deals."""
    true = generate(SCOPA, SEED, 0, 3, worlds=0, workers=1)
    got = generate(SCOPA, SEED, 0, 3, worlds=4, workers=1)
    np.testing.assert_array_equal(got[0], true[0])
    np.testing.assert_array_equal(got[2], true[2])
    t = got[1].astype(np.float64)
    np.testing.assert_array_equal(t * 4, np.round(t * 4))
    assert np.abs(t).max() <= 25
    assert not np.array_equal(got[1], true[1])
    ids, counts = per_decision(got[2])
    assert counts.min() >= 2
    ref = reference(SCOPA, SEED, range(3), suggesting("endgame"), suggesting("endgame"),
                    worlds=4)
    assert_matches(ref, got, SEED)


def test_more_worlds_and_explore_give_valid_samples():
    for kw in (dict(worlds=4), dict(explore=1.0), dict(explore=1.0, worlds=3),
               dict(lineup="random", rollout="greedy", explore=0.5, worlds=2)):
        after, target, decision = generate(SCOPA, 3, 0, 60, workers=2, **kw)
        worlds = kw.get("worlds", 0) or 1
        t = target.astype(np.float64)
        # a mean of `worlds` whole margins: exact in float32 for 1, 2, 4 worlds; for 3, to
        # float32's rounding of each of the sum's steps
        np.testing.assert_allclose(t * worlds, np.round(t * worlds), rtol=0,
                                   atol=0 if worlds in (1, 2, 4) else 1e-5)
        assert np.abs(t).max() <= 25
        ids, counts = per_decision(decision)
        assert counts.min() >= 2
        units, plays = ids >> 6, ids & 63
        assert np.all(np.diff(ids) > 0)                    # in round and play order
        assert set(units.tolist()) <= set(range(60)) and plays.max() < 36
        for start, n in zip(np.r_[0, np.cumsum(counts)[:-1]], counts):
            rows = [as_dict(a) for a in after[start:start + n]]
            assert len({tuple(r.values()) for r in rows}) == n        # n different moves
            for field in ("theirs", "scopas_theirs", "deck_left", "hand_size", "next_hand",
                          "unseen"):                                  # the same position
                assert len({r[field] for r in rows}) == 1, field
            assert 0 < rows[0]["deck_left"] < 40


# -- 4. conservation: a decision's samples are its legal moves ----------------------
@pytest.mark.parametrize("kw", [dict(), dict(explore=0.5, lineup="greedy", rollout="random"),
                                dict(explore=1.0, worlds=2)])
def test_every_decision_has_a_sample_per_legal_move(kw):
    """Over more rounds (no rollouts in the reference: its targets are not
    compared): the decisions, their sample counts and afterstates are the
    reference's, whose count per decision is `len(Round.legal_moves())`."""
    seed, units = 21, range(12)
    lineup = kw.get("lineup", "endgame")
    explore, worlds = kw.get("explore", 0.0), kw.get("worlds", 0)
    got = generate(SCOPA, seed, 0, len(units), workers=1, **kw)
    ref = reference(SCOPA, seed, units, deciding(SCOPA, lineup), None, explore=explore,
                    worlds=worlds, with_targets=False)
    assert_matches(ref, got, seed, with_targets=False)
    ids, counts = per_decision(got[2])
    moves = {s.decision: s.moves for s in ref}
    assert counts.tolist() == [moves[d] for d in ids.tolist()]
    assert sum(counts) == len(ref)


# -- rollouts by a sampling strategy: each move from the decision's own deal --------
@pytest.mark.parametrize("preset, worlds", [("scopa-3", 0), ("scopa-4", 2),
                                            ("scopone-scientifico", 0)])
def test_endgame_rollouts_with_more_players_match_the_reference(preset, worlds):
    """With more than two seats the last hand hides cards too (two or more
    other hands hold them), and on scopone every card is dealt at once: those
    decisions are the network's, so they are sampled."""
    rules = Rules.resolve(preset)
    got = generate(rules, SEED, 0, 2, worlds=worlds, workers=1)
    ref = reference(rules, SEED, range(2), deciding(rules, "endgame"),
                    deciding(rules, "endgame"), worlds=worlds)
    assert any(as_dict(a)["deck_left"] == 0 for a in got[0])      # the last hand's decisions
    firsts = [row for row, s in enumerate(ref) if row == 0 or ref[row - 1].decision != s.decision]
    for row in firsts:                     # a decision's first move is played on from its position
        assert float(got[1][row]) == ref[row].target
    assert_matches(ref, got, SEED)

def test_rollouts_by_a_search_play_every_move_from_the_decisions_deal():
    """pimc's rollouts sample deals in the search scratch: the targets' deal is their own."""
    rules = Rules.resolve("scopa")
    after, target, decision = generate(rules, SEED, 0, 2, rollout="pimc:samples=2", workers=1)
    assert len(target) > 0 and np.isfinite(target).all()
