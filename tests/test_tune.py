"""`scopa-sim tune` and `study.tune`: CMA-ES over a strategy's parameters on
duplicate deals, checked on fresh ones. Small searches (a few hundred
deals, a few evaluations) of greedy, whose kernel the session has warm."""
import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from scopa_sim.analysis.output import to_json
from scopa_sim.cli import main
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.study.tune import tune

SMALL = dict(deals=200, check_deals=200, evaluations=4, seed=5)
NO_CHANGE = re.compile(r"no change beats the current weights "
                       r"\(best [+-]?\d\.\d{3} \[[+-]?\d\.\d{3}, [+-]?\d\.\d{3}\]\)")


def cli(*args):
    return CliRunner().invoke(main, ["tune", *map(str, args)], catch_exceptions=False)


def test_help_has_examples_and_every_option_says_what_it_does():
    out = cli("--help").output
    assert "Usage:" in out and "Examples:" in out
    assert all(p.help for p in main.commands["tune"].params if p.name != "strategy")


@pytest.mark.parametrize("args, says", [
    (["random"], "no parameters to tune"),
    (["nope"], "unknown strategy 'nope'"),
    (["greedy", "--params", "card,sweep"], "no parameter 'sweep'"),
    (["pimc", "--params", "samples"], "is a count, not tuned"),
    (["greedy", "--against", "greedy:foo=1"], "no parameter 'foo'"),
    (["greedy", "--against", "nope"], "unknown strategy 'nope'"),
    (["greedy", "--deals", "0"], "--deals"),
    (["greedy", "--check-deals", "-3"], "--check-deals"),
    (["greedy", "--evaluations", "0"], "--evaluations"),
    (["greedy", "--budget", "0"], "--budget"),
    (["greedy", "--budget", "-2"], "--budget"),
    (["greedy", "--params", ","], "--params"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, args, says):
    trace = tmp_path / "trace.csv"
    with pytest.raises(SystemExit) as e:
        main(["tune", *args, "--trace", str(trace)])
    assert e.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert not trace.exists() and list(tmp_path.iterdir()) == []


def test_a_trace_that_exists_is_refused_without_overwrite(capsys, tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("mine")
    with pytest.raises(SystemExit) as e:
        main(["tune", "greedy", "--trace", str(trace)])
    assert e.value.code == 2 and "--overwrite" in capsys.readouterr().err
    assert trace.read_text() == "mine"


def test_json_has_the_winner_its_fresh_margin_and_the_evaluations(tmp_path):
    res = cli("greedy", "--params", "scopa,coin", "--deals", 200, "--check-deals", 200,
              "--evaluations", 4, "--seed", 3, "--format", "json", "-q")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert {"spec", "margin", "evaluations", "improved", "interrupted"} <= set(out)
    assert {"estimate", "low", "high"} <= set(out["margin"])
    assert out["evaluations"] == 4 and out["interrupted"] is False
    assert out["spec"] == (out["best"] if out["improved"] else "greedy")
    parse_strategy(out["spec"])


def test_the_same_seed_gives_the_same_search():
    one, two = tune("greedy", **SMALL), tune("greedy", **SMALL)
    one.pop("seconds"), two.pop("seconds")
    assert to_json(one) == to_json(two)                 # NaN == NaN there
    three = tune("greedy", **{**SMALL, "seed": 6})
    assert three["best"] != one["best"]


def test_the_check_deals_a_seed_the_search_never_dealt():
    out = tune("greedy", **SMALL)
    assert len({out["seed"], out["search_seed"], out["check_seed"]}) == 3


def test_evaluations_bound_the_search_and_the_trace_has_each(tmp_path):
    trace = tmp_path / "t.csv"
    out = tune("greedy", params=["scopa", "settebello"], trace=trace, **SMALL)
    rows = list(csv.DictReader(trace.open()))
    assert out["evaluations"] == len(rows) == 4
    assert [int(r["evaluation"]) for r in rows] == [1, 2, 3, 4]
    assert set(rows[0]) == {"evaluation", "generation", "scopa", "settebello", "margin", "low",
                            "high", "spec"}
    assert rows[0]["spec"] == "greedy" and float(rows[0]["margin"]) == 0   # the start, itself
    for r in rows:                          # each spec is the strategy the row's values give
        s = parse_strategy(r["spec"])
        assert dict(s.values)["scopa"] == float(r["scopa"])
        assert float(r["low"]) <= float(r["margin"]) <= float(r["high"])


def test_a_json_lines_trace_from_the_command(tmp_path):
    trace = tmp_path / "t.jsonl"
    res = cli("greedy", "--params", "coin", "--deals", 200, "--check-deals", 200,
              "--evaluations", 3, "--seed", 1, "--trace", trace, "-q")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [x["evaluation"] for x in lines] == [1, 2, 3]
    assert set(lines[1]) == {"evaluation", "generation", "params", "margin", "low", "high",
                             "spec"} and set(lines[1]["params"]) == {"coin"}


def test_a_winner_is_a_spec_that_parses_back_to_the_strategy_that_played():
    out = tune("greedy", against="random", deals=300, check_deals=300, evaluations=4, seed=2)
    assert out["improved"] and out["spec"] == out["best"] != "greedy"
    winner = parse_strategy(out["spec"])
    assert str(winner) == out["spec"] and winner == parse_strategy(str(winner))
    for _, v in winner.values:                  # 3 significant digits
        assert float(f"{v:.3g}") == v


def test_the_winner_is_printed_ready_to_paste():
    res = cli("greedy", "--against", "random", "--deals", 300, "--check-deals", 300,
              "--evaluations", 4, "--seed", 2, "-q")
    first, second = res.stdout.splitlines()
    parse_strategy(first)
    assert first.startswith("greedy:") and second.startswith("beats random by +")


def test_nothing_beats_the_start_when_only_the_start_played():
    res = cli("greedy", "--evaluations", 1, "--deals", 100, "--check-deals", 100, "--seed", 1,
              "-q")
    assert res.stdout == "no change beats the current weights (best 0.000 [0.000, 0.000])\n"


def test_tiny_deals_cannot_show_a_change_beats_the_start():
    res = cli("greedy", "--params", "coin", "--evaluations", 3, "--deals", 20,
              "--check-deals", 20, "--seed", 4, "-q")
    assert NO_CHANGE.fullmatch(res.stdout.strip()), res.stdout
    out = json.loads(cli("greedy", "--params", "coin", "--evaluations", 3, "--deals", 20,
                         "--check-deals", 20, "--seed", 4, "-q", "--format", "json").stdout)
    assert out["improved"] is False and out["spec"] == "greedy" and out["margin"]["low"] <= 0


def test_ctrl_c_keeps_the_best_so_far_and_checks_it(tmp_path):
    def stop_after(k):
        def progress(search):
            if search.evaluations == k:
                raise KeyboardInterrupt
        return progress
    trace = tmp_path / "t.jsonl"
    out = tune("greedy", progress=stop_after(3), trace=trace,
               **{**SMALL, "evaluations": 50})
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert out["interrupted"] and out["stopped"] == "interrupted"
    assert out["evaluations"] == len(lines) == 3
    best = max(lines[1:], key=lambda x: x["margin"])
    assert out["best"] == best["spec"] and out["search_margin"]["estimate"] == best["margin"]
    assert {"estimate", "low", "high"} <= set(out["margin"])         # the check ran


def test_a_budget_stops_the_search():
    out = tune("greedy", deals=100, check_deals=100, budget=1e-9, seed=1)
    assert out["stopped"] == "budget" and out["evaluations"] == 1


def test_tune_is_a_public_name():
    import scopa_sim
    assert scopa_sim.tune is tune


def test_a_user_strategy_is_tuned_over_its_declared_params():
    """The plain-Python greedy of docs/examples (no compile; slow play, so few deals)."""
    path = Path(__file__).parents[1] / "docs" / "examples" / "greedy_py.py"
    out = tune(f"{path}:greedy", params=["scopa", "coin"], deals=50, check_deals=50,
               evaluations=3, seed=1, workers=1)
    assert out["params"] == ["scopa", "coin"] and out["evaluations"] == 3
    best = parse_strategy(out["best"])
    assert str(best) == out["best"] and best.name == f"{path}:greedy"
    assert set(k for k, v in best.values if v != best.spec.params[k]) <= {"scopa", "coin"}


def test_ctrl_c_at_the_command_line_checks_the_best_and_exits_0():
    """The program itself, SIGINT once the search has begun: the answer, exit 0."""
    import signal
    import subprocess
    import sys
    program = Path(sys.executable).parent / "scopa-sim"
    p = subprocess.Popen([str(program), "tune", "greedy", "--deals", "20000", "--check-deals",
                          "500", "--budget", "1", "--seed", "1", "--format", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while not p.stderr.readline().startswith("tune: the start, greedy"):    # a compile note
        assert p.poll() is None
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    result = json.loads(out)
    assert result["interrupted"] and result["stopped"] == "interrupted"
    assert "interrupted after" in err and "checking" in err
