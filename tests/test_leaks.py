"""`scopa-sim leaks` and `study.leaks`: a strategy's decisions priced by a
judge, grouped into situations. Small runs (a few deals, few rollouts)."""
import json

import pytest
from click.testing import CliRunner

from scopa_sim.cli import main
from scopa_sim.engine.game import Round
from scopa_sim.engine.cards import Move
from scopa_sim.study.leaks import SITUATIONS, Seen, leaks


def cli(*args):
    return CliRunner().invoke(main, ["leaks", *map(str, args)], catch_exceptions=False)


def test_help_has_examples_and_every_option_says_what_it_does():
    out = cli("--help").output
    assert "Usage:" in out and "Examples:" in out
    assert all(p.help for p in main.commands["leaks"].params if p.name != "strategy")


@pytest.mark.parametrize("args, says", [
    (["nope", "--rounds", "2"], "unknown strategy 'nope'"),
    (["counter", "--against", "nope", "--rounds", "2"], "unknown strategy 'nope'"),
    (["counter", "--judge", "greedy:foo=1", "--rounds", "2"], "no parameter 'foo'"),
    (["counter", "--rounds", "0"], "--rounds"),
    (["counter", "--games", "0"], "--games"),
    (["counter", "--rounds", "2", "--games", "2"], "not both"),
    (["counter", "--rules", "scopa-3", "--rounds", "2"], "two sides"),
    (["counter", "--out", "leaks.txt", "--rounds", "2"], "--out"),
    (["counter", "--out", "", "--rounds", "2"], "--out"),
    (["counter", "--rounds", "2", "--seed", "x"], "--seed"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, monkeypatch, args,
                                                         says):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(["leaks", *args, "--quiet"])
    assert e.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_python_judge_is_refused(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("def first(obs, moves):\n    return 0\n")
    with pytest.raises(ValueError, match="judge plays rollouts in the kernel"):
        leaks("counter", judge=f"{f}:first", rounds=1, seed=1)


def test_an_out_file_that_exists_is_refused(capsys, tmp_path):
    out = tmp_path / "leaks.png"
    out.write_text("mine")
    with pytest.raises(SystemExit) as e:
        main(["leaks", "counter", "--rounds", "2", "--out", str(out)])
    assert e.value.code == 2 and "already exists" in capsys.readouterr().err
    assert out.read_text() == "mine"


def test_json_has_the_keys_and_the_same_seed_gives_the_same_output():
    r = cli("greedy", "--rounds", 6, "--seed", 3, "--rollouts", 8, "--format", "json",
            "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert {"situations", "total", "compare"} <= set(data)
    for s in data["situations"]:
        assert isinstance(s["situation"], str) and isinstance(s["examples"], list)
        for k in ("per_round", "differs", "cost", "cost_low", "cost_high"):
            assert isinstance(s[k], (int, float))
        assert set(s["parts"]) == {"scopas", "cards", "coins", "settebello", "primiera"}
    assert {"cost", "cost_low", "cost_high"} <= set(data["total"])
    assert {"margin", "low", "high"} <= set(data["compare"])
    costs = [s["cost"] for s in data["situations"]]
    assert costs == sorted(costs, reverse=True)
    again = cli("greedy", "--rounds", 6, "--seed", 3, "--rollouts", 8, "--format", "json",
                "--quiet", "--workers", 2)
    assert again.output == r.output


def test_same_seed_same_result_for_any_worker_count():
    a = leaks("counter", rounds=25, seed=4, rollouts=8, workers=1)
    b = leaks("counter", rounds=25, seed=4, rollouts=8, workers=2)
    assert a == b


@pytest.mark.parametrize("strategy", ["greedy", "counter"])
def test_true_deal_costs_add_up_to_the_margin_difference(strategy):
    """The performance difference lemma: with the opponent as judge (net draws
    no random number), each round's costs on the real deal sum to the judge's
    margin in STRATEGY's seat minus STRATEGY's margin, exactly; and over both
    seatings of a deal the judge's margins cancel, so the total is compare's
    margin turned round."""
    r = leaks(strategy, rounds=8, seed=11, true_deal=True)
    assert r["true_deal"] == {"deals": 16, "max_gap": 0.0}
    assert r["total"]["cost"] == pytest.approx(-r["compare"]["margin"], abs=1e-12)


def test_true_deal_identity_with_a_judge_that_draws_random_numbers():
    """random as opponent and judge: its numbers are keyed by the position."""
    r = leaks("greedy", against="random", rounds=4, seed=2, true_deal=True)
    assert r["true_deal"]["max_gap"] == 0.0


def test_net_judged_by_itself_costs_nothing():
    r = leaks("net", rounds=5, seed=1)
    assert r["rollouts"] == 0
    assert r["total"]["differs"] == 0 and r["total"]["cost"] == 0.0
    assert all(s["cost"] == 0 and s["differs"] == 0 and s["examples"] == []
               for s in r["situations"])


def test_counter_against_net_finds_a_cost_and_examples_that_advise_takes():
    r = leaks("counter", rounds=10, seed=1, rollouts=8)
    top = r["situations"][0]
    assert top["cost"] > 0 and top["examples"]
    assert all(e.startswith("scopa-sim advise --hand ") for e in top["examples"])
    assert r["total"]["per_round"] > 10            # a round is 18 decisions a side
    assert abs(sum(top["parts"].values()) - top["cost"]) < 1e-9
    # the first example, as the advise command line reads it
    args = top["examples"][0].split("  # ")[0]
    import shlex
    out = CliRunner().invoke(main, [*shlex.split(args)[1:], "--rollouts", "20", "--seed", "1",
                                    "--format", "json", "--strategy", "greedy"])
    assert out.exit_code == 0, out.output


def test_games_play_whole_games():
    r = leaks("greedy", against="counter", games=1, seed=3, rollouts=8)
    assert r["unit"] == "games" and r["rounds"] >= 4
    t = leaks("counter", games=2, seed=3, true_deal=True)
    assert t["true_deal"]["max_gap"] == 0.0
    assert t["margin"] == pytest.approx(t["compare"]["margin"])    # compare's games, played again


def test_a_chart_and_a_page_are_written(tmp_path):
    for name in ("leaks.png", "leaks.html"):
        r = cli("greedy", "--rounds", 3, "--seed", 1, "--rollouts", 8, "--quiet",
                "--out", tmp_path / name)
        assert r.exit_code == 0, r.output
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "leaks.png").read_bytes()[:4] == b"\x89PNG"
    assert "leaks of greedy" in (tmp_path / "leaks.html").read_text()


def _seen(hand, table, mine, judge, unseen="", last=False):
    """A decision of seat 0 (hand) on this table; moves as ("card", "captured")."""
    from scopa_sim.engine.cards import parse_card, parse_cards
    m = lambda cs: sum(1 << c for c in parse_cards(cs))              # noqa: E731
    move = lambda c, t: Move(parse_card(c), tuple(sorted(parse_cards(t))))   # noqa: E731
    rnd = Round.from_position(hands=[hand, "As"], table=table, deck="", dealer=0)
    return Seen(m(hand), m(table), m(unseen), 6, 6, last, move(*mine), move(*judge),
                tuple(rnd.legal_moves()))


def test_situations_read_what_the_seat_sees():
    by = dict(SITUATIONS)
    # 5c could sweep 2h 3s; it trails Qd instead, leaving 2h 3s Qd
    d = _seen("5c Qd", "2h 3s", ("Qd", ""), ("5c", "2h 3s"))
    assert by["missed a scopa"](d) and by["trails where the judge would sweep"](d)
    assert not by["leaves 10 or less on the table"](d)
    # 7d takes 7h (priority) or nothing else: Kc has no capture; 3c 4s with 7d is not
    # legal beside 7h, so the wrong capture is of two legal ones of the same card
    d = _seen("7d Kc", "2c 5s 3h 4s", ("7d", "2c 5s"), ("7d", "3h 4s"))
    assert by["the wrong capture with the right card"](d)
    assert by["settebello at stake (hand or table)"](d)
    # trailing a 2 on a 3 leaves 5: sweepable when a 5 is unseen
    d = _seen("2c Kd", "3h", ("2c", ""), ("Kd", ""), unseen="5s")
    assert by["left the table sweepable"](d) and by["leaves 10 or less on the table"](d)
    assert by["left the table sweepable where the judge would not"](d)
    assert by["the wrong card to trail"](d)


def test_a_roller_reused_gives_what_fresh_rollouts_give():
    """engine.rollouts.Roller keeps its buffers across calls: the same ends as
    `rollouts` making them afresh each time."""
    import numpy as np
    from scopa_sim.engine.rollouts import Roller, rollouts
    from scopa_sim.engine.rules import Rules
    from scopa_sim.engine.strategies import parse_strategy
    rules = Rules.resolve("scopa")
    rnd = Round(rules, deck=list(range(40))[::-1], dealer=1)
    for strategy in ("net", "counter"):
        s = parse_strategy(strategy)
        roll = Roller(rules, s)
        for k in range(3):
            pos, deck = rnd.kernel_position()
            moves = rnd.legal_moves()
            cards = np.array([m.card for m in moves], np.int64)
            takes = np.array([sum(1 << c for c in m.captured) for m in moves], np.uint64)
            a = roll(7, 8 * k, 8, rnd.turn, pos, deck, cards, takes)
            b = rollouts(rules, s, 7, 8 * k, 8, rnd.turn, pos, deck, cards, takes)
            assert (a.scores == b.scores).all() and (a.swept == b.swept).all()
            rnd.play(*moves[0])


def test_a_plain_python_strategy_has_its_leaks_found(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("def first(obs, moves):\n    return 0\n")
    r = cli(f"{f}:first", "--rounds", 2, "--seed", 1, "--rollouts", 8, "--format", "json",
            "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["total"]["decisions"] == 2 * 2 * 18 and data["total"]["differs"] > 0
