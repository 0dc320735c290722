"""Verdicts and their reasons (`study/verdicts.py`): best, worse or level
from paired rollouts, sampled until decided; every difference split by what
the round's points are made of, the parts adding up to it; the largest part
in words. The records are the issue's: a trail that hands the next player a
scopa, and a settebello left on the table."""
import math

import numpy as np
import pytest
from click.testing import CliRunner

from scopa_sim import Round, review
from scopa_sim.cli import main
from scopa_sim.engine.records import parse_record
from scopa_sim.kernels import layout as L
from scopa_sim.study import verdicts
from scopa_sim.study.advise import evaluate
from scopa_sim.study.review import label

THRESHOLDS = {"inaccuracy": 0.1, "mistake": 0.3, "blunder": 0.7}

GIVES_A_SCOPA = """Rules: scopa
Seats: Ada You
First dealer: You

Round 1
Table: 2h 3c 6c As
Hand You: 3s Ks Kh
Ada: Kc takes 3c 6c As
You: 3s            # next to 2h it makes five: any five sweeps the table
...
End
"""

LEAVES_THE_SETTEBELLO = """Rules: scopa
Seats: Ada You
First dealer: Ada

Round 1
Table: 7d Jc 5s Kh
Hand You: 7h Qs Kc
You: Qs            # 7h would take the settebello; any seven takes it now
...
End
"""


def _reviewed(text: str):
    df = review(parse_record(text), seats=["You"], seed=1, rollouts=8000, workers=2)
    return df[df.verdict != ""].iloc[-1]


@pytest.mark.parametrize("text, part, words", [
    (GIVES_A_SCOPA, "scopas", "gives away a scopa"),
    (LEAVES_THE_SETTEBELLO, "settebello", "exposes the settebello"),
])
def test_the_largest_part_of_a_cost_is_what_the_play_gave_away(text, part, words):
    row = _reviewed(text)
    assert row.verdict == "worse" and row.cost > 0.1, row.to_dict()
    losses = {k: v[0] for k, v in row.parts.items()}
    assert min(losses, key=losses.get) == part, losses
    assert words in row.why, row.why
    assert math.isclose(sum(losses.values()), -row.cost, abs_tol=1e-9)
    assert math.isclose(row.edge, -row.cost, abs_tol=1e-9)


def test_the_breakdown_is_in_advise_json_and_table():
    r = CliRunner().invoke(main, ["advise", "--hand", "7d 7h As", "--table", "2c 4h 5s Qd",
                                  "--seed", "1", "--rollouts", "2000", "--why", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "why: each move minus the best" in r.output and "settebello" in r.output
    assert "exposes the settebello" in r.output         # 7h leaves it on the table
    assert "-0.00" not in r.output


def test_a_part_near_zero_is_never_minus_zero():
    from scopa_sim.cli.advise import _part
    assert [_part(-0.001, -0.2, 0.2), _part(-0.001, -0.001, -0.001), _part(0, 0, 0)] == [
        "0.00±0.20", "0.00", "0"]


def _positions(count: int, seed: int = 3):
    """Rounds of endgame self-play stepped to a decision with two moves or more."""
    from scopa_sim import trace_round
    rng = np.random.default_rng(seed)
    found, i = [], 0
    while len(found) < count:
        played = trace_round(seed, i, ("endgame",) * 2, "scopa")
        rnd = Round(played.rules, deck=played.deck_order, dealer=played.dealer)
        for _, card, take in played.moves[:int(rng.integers(0, 36))]:
            rnd.play(card, take)
        if len(rnd.legal_moves()) > 1:
            found.append(rnd)
        i += 1
    return found


def test_parts_add_up_to_every_difference_and_sweeps_are_scopas():
    """Over rollouts and exact lines: each move's parts add up to its margin
    minus the best's (the best's: minus the next), and a sweep by the next
    player shows in the other side's scopas."""
    for rnd in _positions(12):
        pos, deck = rnd.kernel_position()
        r = evaluate(rnd.rules, pos, deck, rnd.turn, None, "random", 300, seed=2, workers=1)
        moves = r["moves"]
        for i, m in enumerate(moves):
            other = moves[1] if i == 0 else moves[0]
            diff = m["margin"] - other["margin"]
            assert math.isclose(sum(p[0] for p in m["parts"].values()), diff, abs_tol=1e-9)
            for mean, low, high in m["parts"].values():
                assert low <= mean <= high
        if len(rnd.moves) < rnd.total_plays - 2:         # the next play is no last play
            _sweeps_are_scopas(rnd)


def _sweeps_are_scopas(rnd: Round):
    """The kernel's ends of 200 random rollouts: a sweep by the next player
    is a scopa of the other side, and the sides' cards add up to 40."""
    from scopa_sim.engine.strategies import parse_strategy
    from scopa_sim.study.advise import _Job, _batch
    pos, deck = rnd.kernel_position()
    moves = rnd.legal_moves()
    cards = np.array([c for c, _ in moves], np.int64)
    takes = np.array([sum(1 << t for t in take) for _, take in moves], np.uint64)
    job = _Job(5, 200, 200, rnd.turn, pos, deck, rnd.rules, parse_strategy("random"),
               cards, takes)
    ends = _batch(job, 0)
    other = 1 - rnd.rules.teams[rnd.turn]
    assert (ends.scores[..., L.S_CARDS].sum(-1) == 40).all()
    assert (ends.scores[..., other, L.S_SCOPAS][ends.swept] >= 1).all()


def test_samples_split_the_kernels_ends_by_part():
    """`verdicts.samples` against the kernel's score rows: mine minus the
    best other side's, part by part, adds up to the margin, with three sides."""
    rng = np.random.default_rng(0)
    scores = np.zeros((50, 2, 3, L.N_SIDE), np.int16)
    for f in verdicts.PARTS.values():
        scores[..., f] = rng.integers(0, 3, scores.shape[:3])
    scores[..., L.S_POINTS] = sum(scores[..., f] for f in verdicts.PARTS.values())
    got = verdicts.samples(scores, np.zeros((50, 2), bool), side=1)
    points = scores[..., L.S_POINTS].astype(int)
    for r in range(50):
        for j in range(2):
            other = max((0, 2), key=lambda t: (points[r, j, t], -t))
            assert got.margin[r, j] == points[r, j, 1] - points[r, j, other]
            assert (got.mine[r, j] - got.theirs[r, j]).sum() == got.margin[r, j]


def test_a_verdict_is_best_worse_or_level_and_decided_only_when_separated():
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 1, (4000, 1))
    clear = np.hstack([noise + 1, noise, noise + rng.normal(0, 1, (4000, 1))])
    assert verdicts.verdict(clear, 0, 0.01)["verdict"] == "best"
    worse = verdicts.verdict(clear, 1, 0.01, THRESHOLDS.values())
    assert worse["verdict"] == "worse" and worse["versus"] == 0 and worse["decided"]
    tied = np.hstack([noise, noise + rng.normal(0, 1, (4000, 1))])
    level = verdicts.verdict(tied, 0, 0.01)
    assert level["verdict"] == "level" and not level["decided"]
    twins = np.hstack([noise, noise])
    assert verdicts.verdict(twins, 1, 0.01) == {"verdict": "best", "versus": 0, "edge": 0.0,
                                                "edge_low": 0.0, "edge_high": 0.0,
                                                "decided": True}
    near = np.hstack([noise + 0.1, noise + rng.normal(0, 0.3, (4000, 1))])
    v = verdicts.verdict(near, 1, 0.01, THRESHOLDS.values())
    assert v["verdict"] == "worse" and v["edge_low"] < -0.1 < v["edge_high"]
    assert not v["decided"]                             # 0.1 is inside its cost's interval


def test_a_verdict_is_decided_too_once_its_edge_is_known_to_the_precision():
    rng = np.random.default_rng(2)
    noise = rng.normal(0, 1, (4000, 1))
    e = rng.normal(0, 0.2, (4000, 1))
    tied = np.hstack([noise, noise + e - e.mean()])             # equal means
    for j in (0, 1):
        v = verdicts.verdict(tied, j, 0.01)
        half = (v["edge_high"] - v["edge_low"]) / 2
        assert v["verdict"] == "level" and not v["decided"]
        assert verdicts.verdict(tied, j, 0.01, precision=half)["decided"]
        assert not verdicts.verdict(tied, j, 0.01, precision=half * 0.99)["decided"]
        assert verdicts.verdict(tied, j, 0.01, precision=half) == {**v, "decided": True}
    near = np.hstack([noise + 0.1, noise + rng.normal(0, 0.3, (4000, 1))])
    v = verdicts.verdict(near, 1, 0.01, THRESHOLDS.values(), precision=0.05)
    assert v["verdict"] == "worse" and v["decided"]    # 0.1 inside, but known to +-0.05


def test_a_label_needs_the_whole_interval_above_its_threshold_unless_the_budget_ended():
    assert label(0.35, 0.31, 0.39, THRESHOLDS) == "mistake"
    assert label(0.35, 0.12, 0.58, THRESHOLDS) == "mistake"    # 0.3 inside: by the mean
    assert label(0.25, 0.12, 0.28, THRESHOLDS) == "inaccuracy"
    assert label(0.05, 0.01, 0.09, THRESHOLDS) == ""
    assert label(0.8, 0.8, 0.8, THRESHOLDS) == "blunder"       # exact
