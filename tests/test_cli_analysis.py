"""The analysis commands: compare, tournament, report, ask, plot — help,
formats, results on small runs, one-line errors."""
import csv
import io
import json

import pytest
from click.testing import CliRunner

from scopa_sim.cli import main

COMMANDS = ("compare", "tournament", "report", "ask", "plot")


def run(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """Tiny runs made with `scopa-sim simulate`."""
    root = tmp_path_factory.mktemp("cli-analysis")
    run("simulate", "--rounds", 6000, "--strategies", "greedy,random", "--seed", 11,
        "--batch-size", 2000, "--out", root / "r", "-q", "--workers", 2)
    run("simulate", "--games", 600, "--strategies", "greedy,random", "--seed", 11,
        "--batch-size", 200, "--out", root / "g", "-q", "--workers", 2)
    return root


def error_line(capsys, *args) -> str:
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    assert e.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_help(command):
    res = run(command, "--help")
    assert "Usage:" in res.output and "Examples:" in res.output
    assert "--format" in res.output


def test_main_help_lists_the_commands():
    out = run("--help").output
    for c in COMMANDS:
        assert c in out


# ---- compare -------------------------------------------------------------------
def test_compare_table():
    out = run("compare", "greedy", "random", "--deals", 4000, "--seed", 1, "-q").output
    assert "margin per round, greedy − random" in out
    assert "same data taken as unpaired" in out and "correlation" in out
    assert "greedy wins the round" in out and "seed 1" in out


def test_compare_json_paired_narrower():
    out = run("compare", "greedy", "random", "--deals", 6000, "--seed", 1, "--format", "json",
              "-q").output
    r = json.loads(out)
    m = r["margin"]
    assert r["pairs"] == 6000 and r["rounds"] == 12000
    assert m["high"] - m["low"] < m["unpaired_high"] - m["unpaired_low"]
    assert m["low"] < m["estimate"] < m["high"]


def test_compare_csv_games_and_until():
    out = run("compare", "greedy", "random", "--games", "--deals", 200, "--seed", 2,
              "--format", "csv", "-q").output
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(out))}
    assert {"margin_paired", "margin_unpaired", "round_win", "match_win_paired",
            "match_win_wilson"} <= set(rows)
    assert 0.5 < float(rows["match_win_paired"]["estimate"]) <= 1
    out = run("compare", "greedy", "random", "--until-halfwidth", 0.1, "--batch-size", 500,
              "--seed", 3, "--format", "json", "-q").output
    r = json.loads(out)
    assert r["reached"] and r["margin"]["halfwidth"] <= 0.1 and r["pairs"] % 500 == 0


def test_compare_three_sides():
    out = run("compare", "greedy", "random", "--rules", "scopa-3", "--deals", 300, "--seed", 1,
              "-q").output
    assert "each played 3 times, greedy at each side in turn" in out
    assert "greedy − the mean of the 2 sides of random" in out and "900 plays" in out


@pytest.mark.parametrize("a", ["greedy", "docs/examples/greedy_jit.py:greedy"])
def test_compare_of_strategies_that_play_alike_says_the_margins_are_identical(a):
    """Issue 28: it said 'pairing is worth ... nan'."""
    from pathlib import Path
    a = str(Path(__file__).parents[1] / a) if a.startswith("docs") else a
    for extra in ([], ["--games"]):
        out = run("compare", a, "greedy", "--deals", 100, "--seed", 1, "-q", *extra).output
        assert "margins identical" in out and "nan" not in out and "pairing is worth" not in out
    out = run("compare", "greedy", "random", "--deals", 100, "--seed", 1, "-q").output
    assert "pairing is worth" in out and "margins identical" not in out


def test_compare_errors(capsys):
    assert "unknown strategy" in error_line(capsys, "compare", "greedy", "nope", "--deals", 10)
    assert "exclude each other" in error_line(capsys, "compare", "greedy", "random", "--deals",
                                              10, "--until-halfwidth", 0.1)
    assert "--seed" in error_line(capsys, "compare", "greedy", "random", "--seed", "x")
    for bad in ("0", "-0", "-1", "nan", "inf"):
        assert "halfwidth to reach must be a positive number" in error_line(
            capsys, "compare", "greedy", "random", "--until-halfwidth", bad)


# ---- tournament ----------------------------------------------------------------
def test_tournament_table_and_json(tmp_path):
    out = run("tournament", "random", "greedy", "greedy:scopa=0", "--deals", 600, "--seed", 1,
              "-q").output
    assert "Bradley-Terry" in out and "Elo" in out and "row minus column" in out
    out = run("tournament", "random", "greedy", "--deals", 600, "--seed", 1, "--format", "json",
              "-q").output
    t = json.loads(out)
    assert t["strategies"] == ["random", "greedy"]
    assert t["margin"][1][0] > 1 and t["margin"][0][1] == -t["margin"][1][0]
    assert [r["rank"] for r in t["ratings"]] == [2, 1]
    out = run("tournament", "random", "greedy", "--deals", 600, "--seed", 1, "--format", "csv",
              "-q").output
    tables = {r["table"] for r in csv.DictReader(io.StringIO(out))}
    assert tables == {"margin", "rating"}


# ---- report --------------------------------------------------------------------
def test_report_terminal_and_files(runs, tmp_path):
    out = run("report", runs / "g", "-q", "--bootstrap", 20).output
    for title in ("Win rates", "Match win probability", "Points per round by category",
                  "Scopas per round", "Dealer versus leader", "Rounds per game", "throughput",
                  "what a card in the first hand is worth"):
        assert title in out
    md = tmp_path / "rep" / "report.md"
    run("report", runs / "r", "--out", md, "-q", "--bootstrap", 0)
    text = md.read_text()
    assert "![margin](report-margin.png)" in text
    assert (md.parent / "report-margin.png").exists()
    html = tmp_path / "report.html"
    run("report", runs / "g", "--out", html, "-q", "--bootstrap", 0, "--format", "json")
    assert html.read_text().count("data:image/png;base64,") == 6     # with the values chart
    assert not list(tmp_path.glob("report-*.png"))          # HTML is self-contained


def test_report_json_and_csv(runs):
    st = json.loads(run("report", runs / "g", "-q", "--bootstrap", 20, "--format",
                        "json").output)
    assert st["games"] == 600 and st["match_exact"]["simulated"]["n"] == 600
    out = run("report", runs / "r", "-q", "--bootstrap", 20, "--format", "csv").output
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {"round_win", "points", "dealer_round_win", "match_exact"} <= {r["metric"] for r in rows}
    exact = next(r for r in rows if r["metric"] == "match_exact")
    assert float(exact["low"]) <= float(exact["estimate"]) <= float(exact["high"])


def test_report_errors(runs, capsys, tmp_path):
    assert "not a scopa-sim run" in error_line(capsys, "report", tmp_path)
    assert ".md or .html" in error_line(capsys, "report", runs / "r", "--out", tmp_path / "x.txt")


# ---- ask -----------------------------------------------------------------------
def test_ask_matches_pandas(runs):
    from scopa_sim.runs.store import Run
    df = Run.open(runs / "r").read()
    out = run("ask", runs / "r", "winner == 0", "--given", "settebello_0 == 1", "--format",
              "json").output
    r = json.loads(out)
    sub = df[df.settebello_0 == 1]
    assert (r["k"], r["n"]) == (int((sub.points_0 > sub.points_1).sum()), len(sub))
    out = run("ask", runs / "g", "winner == dealer_side", "--table", "games").output
    assert "P(winner == dealer_side)" in out and "95% CI" in out
    out = run("ask", runs / "g", "rounds", "--table", "games", "--format", "csv").output
    row = next(csv.DictReader(io.StringIO(out)))
    assert row["kind"] == "mean" and int(row["n"]) == 600


def test_ask_errors_list_the_columns(runs, capsys):
    line = error_line(capsys, "ask", runs / "r", "settebelo_0 == 1")
    assert "unknown column settebelo_0" in line and "settebello_0" in line and "winner" in line
    assert "bad expression" in error_line(capsys, "ask", runs / "r", "winner ==")
    assert "no games table" in error_line(capsys, "ask", runs / "r", "winner == 0", "--table",
                                          "games")


def test_an_event_or_condition_starting_with_minus_is_an_expression(runs, capsys):
    """Issue 28: "-(margin) > 2" was taken for an option ('No such option -('), and
    `--` before it turned the options after it into extra arguments."""
    def asked(*args):
        return json.loads(run("ask", *args, "--format", "json").output)
    plain = asked(runs / "r", "margin < -2", "--given", "dealer == 0")
    for args in [(runs / "r", "-(margin) > 2", "--given", "dealer == 0"),
                 ("--given", "dealer == 0", runs / "r", "-(margin) > 2"),
                 (runs / "r", "--given=dealer == 0", "-(margin) > 2"),
                 (runs / "r", "--", "-(margin) > 2", "--given", "dealer == 0")]:
        r = asked(*args)
        assert r["event"] == "-(margin) > 2" and (r["k"], r["n"]) == (plain["k"], plain["n"])
    r = asked(runs / "r", "-margin", "--given", "-(margin) < 3", "--table", "rounds")
    assert r["kind"] == "mean" and r["given"] == "-(margin) < 3"
    # real options are still options, and a missing value is still an error
    assert "No such option" in error_line(capsys, "ask", runs / "r", "-margin", "--bogus")
    assert "requires an argument" in error_line(capsys, "ask", runs / "r", "-margin", "--given")
    assert "Usage:" in run("ask", runs / "r", "-margin", "-h").output


# ---- plot ----------------------------------------------------------------------
def _size(path):
    from PIL import Image
    with Image.open(path) as im:
        return im.size


def test_plot_run_charts(runs, tmp_path):
    out = tmp_path / "conv.png"
    run("plot", runs / "r", "--kind", "convergence", "--out", out, "-q")
    assert _size(out) == (800, 500)
    r = json.loads(run("plot", runs / "g", "--kind", "all", "--out", tmp_path / "c" / "g.png",
                       "-q", "--format", "json").output)
    assert r["kinds"] == ["winrates", "categories", "margin", "convergence", "rounds", "values"]
    for f in r["files"][:-1]:
        assert _size(f) == (800, 500)
    assert _size(r["files"][-1]) == (800, 625)                 # the heat map over a histogram
    svg = tmp_path / "w.svg"
    run("plot", runs / "g", "--out", svg, "-q")
    assert "<svg" in svg.read_text()


def test_plot_heatmap_from_json_and_by_running(tmp_path):
    tour = tmp_path / "tour.json"
    tour.write_text(run("tournament", "random", "greedy", "--deals", 300, "--seed", 1,
                        "--format", "json", "-q").output)
    run("plot", tour, "--out", tmp_path / "heat.png")
    assert _size(tmp_path / "heat.png") == (800, 500)
    run("plot", "--kind", "heatmap", "--strategies", "random,greedy", "--deals", 300, "--seed",
        1, "--out", tmp_path / "heat2.png", "-q")
    assert _size(tmp_path / "heat2.png") == (800, 500)


def test_plot_errors(runs, capsys, tmp_path):
    assert "run of games" in error_line(capsys, "plot", runs / "r", "--kind", "rounds",
                                        "--out", tmp_path / "x.png", "-q")
    assert "must end in" in error_line(capsys, "plot", runs / "r", "--out", tmp_path / "x.gif")
    assert "give a RUN" in error_line(capsys, "plot")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert "not a tournament" in error_line(capsys, "plot", bad)
