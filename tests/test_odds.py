"""Odds from a score: the Markov table against games played out from the
same scores (by the checked Python `Game`, random moves, which is what the
`random` strategy plays), within their intervals."""
from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

import scopa_sim
from scopa_sim.study.odds import odds
from scopa_sim.stats import wilson
from scopa_sim.cli import main


@pytest.fixture(scope="module")
def table():
    return odds(("random", "random"), seed=1, rounds=100_000, bootstrap=50)


def play_out(score, games: int, seed: int) -> int:
    """Side 0's wins in `games` games from `score`, random moves, the first
    round dealt by each seat in turn (as the odds average over the dealer)."""
    pick, wins = random.Random(seed), 0
    for g in range(games):
        game = scopa_sim.Game(first_dealer=g % 2, seed=seed * 10_000 + g, scores=score)
        while not game.done:
            game.play(*pick.choice(game.legal_moves()))
        wins += game.winner == 0
    return wins


@pytest.mark.parametrize("score", [(9, 5), (5, 9), (10, 10)])
def test_the_markov_odds_agree_with_games_played_from_the_score(table, score):
    p = table["table"][score[0]][score[1]]
    assert table["low"][score[0]][score[1]] <= p <= table["high"][score[0]][score[1]]
    r = wilson(play_out(score, 300, sum(score)), 300)
    # both are estimates: they must overlap, the Markov one within the games' 95% interval
    # widened by its own bootstrap halfwidth (a 300-game interval is about +-0.055)
    margin = (table["high"][score[0]][score[1]] - table["low"][score[0]][score[1]]) / 2
    assert r.low - margin <= p <= r.high + margin, (score, p, r)


def test_odds_are_symmetric_and_monotone(table):
    t = table["table"]
    assert t[10][0] > t[5][0] > t[0][0] > t[0][5] > t[0][10]
    assert t[3][3] == pytest.approx(0.5, abs=0.05)        # random vs random: an even game


@pytest.mark.parametrize("args, needle", [(["--score", "11-3"], "not below the target"),
                                          (["--score", "7:9"], "MINE-THEIRS"),
                                          (["--score", "7-9", "--rules", "scopa-3"], "two sides"),
                                          (["--dealer", "5"], "seat")])
def test_odds_bad_input_is_one_line(args, needle):
    result = CliRunner().invoke(main, ["odds", "--rounds", "2000", *args])
    assert result.exit_code == 2 and needle in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_odds_command_prints_the_score_and_the_table(tmp_path):
    result = CliRunner().invoke(main, ["odds", "--score", "7-9", "--strategies", "greedy,random",
                                       "--rounds", "20000", "--bootstrap", "20", "--seed", "3",
                                       "--out", str(tmp_path / "odds.png"), "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert "7-9" in result.stdout and (tmp_path / "odds.png").stat().st_size > 1000


def reference_win_table(dist, target: int):
    """The chain solved one cell at a time, from the top down (the obvious
    way, too slow for large targets): what `markov.win_tables` does a total
    at a time."""
    import numpy as np
    from scopa_sim.analysis.markov import _cycle_solve, tied_chances
    seats, na, nb = dist.shape
    nxt = (np.arange(seats) + 1) % seats
    v = np.zeros((target + na, target + nb, seats))
    for i in range(target + na):
        for j in range(target + nb):
            if max(i, j) >= target:
                v[i, j] = 1.0 if i > j else tied_chances(dist) if i == j else 0.0
    for i in range(target - 1, -1, -1):
        for j in range(target - 1, -1, -1):
            rhs = np.einsum("dab,abd->d", dist, v[i:i + na, j:j + nb, :][:, :, nxt])
            v[i, j] = _cycle_solve(rhs, dist[:, 0, 0])
    return v[:target, :target]


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_the_chain_solved_a_total_at_a_time_equals_the_cell_by_cell_one(seats):
    import numpy as np
    from scopa_sim.analysis.markov import win_table, win_tables
    rng = np.random.default_rng(seats)
    dists = rng.random((3, seats, 4, 6)) * (rng.random((3, seats, 4, 6)) < 0.6)
    dists[:, :, 0, 0] += 0.2                                 # a (0, 0) round keeps the score
    dists /= dists.sum((2, 3), keepdims=True)
    for target in (1, 2, 3, 7, 12):
        together = win_tables(dists, target)
        for r, dist in enumerate(dists):
            want = reference_win_table(dist, target)
            assert np.allclose(together[r], want, rtol=0, atol=1e-12)
            assert np.allclose(win_table(dist, target), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("args, needles", [
    (("--rule", "target=302"), ["up to 301", "302"]),
    (("--rule", "target=1000"), ["up to 301", "1000"]),
    (("--rule", "target=301", "--bootstrap", 1000), ["--bootstrap 1,000", "at most 275"]),
])
def test_odds_beyond_its_ceiling_is_one_line_at_once(args, needles):
    import time
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["odds", *map(str, args)])
    assert time.perf_counter() - start < 5                  # before any simulation
    assert result.exit_code == 2 and result.stdout == ""
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith(("error: odds", "error: --bootstrap"))
    assert all(n in line for n in needles), line


def test_odds_out_says_where_it_wrote(tmp_path):
    """Issue 28: report and plot say where they wrote, odds --out did not."""
    out = tmp_path / "odds.png"
    result = CliRunner().invoke(main, ["odds", "--strategies", "random,random", "--rounds", "2000",
                                       "--bootstrap", "5", "--seed", "1", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"wrote {out}" in result.stderr and out.stat().st_size > 1000


def _odds_data(score=None) -> dict:
    """An odds result as `odds` returns it (a made-up table: no simulation)."""
    n = 11
    t = [[0.5 + (i - j) / 25 for j in range(n)] for i in range(n)]
    data = {"rules": "scopa", "target": n, "strategies": ["a", "b"], "seed": 1, "rounds": 1000,
            "dealer": None, "bootstrap": 5, "table": t,
            "low": [[v - 0.01 for v in row] for row in t],
            "high": [[v + 0.01 for v in row] for row in t]}
    if score:
        data.update(score=list(score), win=t[score[0]][score[1]], win_low=0.4, win_high=0.5)
    return data


def test_the_odds_chart_frames_the_asked_score_and_fills_the_canvas():
    """Issue 28: the heat map did not mark the score asked about, and its square
    cells left the left third of the canvas empty."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from scopa_sim.analysis import charts
    fig = charts.odds(_odds_data(score=(7, 9)))
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        frames = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert [(f.get_x(), f.get_y(), f.get_width(), f.get_height()) for f in frames] == \
            [(9 - 0.5, 7 - 0.5, 1, 1)]                   # column: theirs, row: mine
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert len(legend) == 1 and legend[0].startswith("from 7-9: ")
        assert ax.get_position().width > 0.7            # was 0.49: a square in an 8 x 5 canvas
        low, high = ax.get_xlim()
        assert [x for x in ax.get_xticks() if low <= x <= high] == list(range(11))
    finally:
        plt.close(fig)
    fig = charts.odds(_odds_data())                     # no score asked: nothing framed
    try:
        assert not fig.axes[0].patches and fig.axes[0].get_legend() is None
    finally:
        plt.close(fig)
