"""The analysis library: statistics against known values, the match chain
against hand-computed cases, ratings, duplicate deals, `ask` against
pandas, report numbers and charts."""
import math

import numpy as np
import pandas as pd
import pytest

from scopa_sim import simulate
from scopa_sim.analysis import charts
from scopa_sim.study.matches import compare, tournament
from scopa_sim.analysis.markov import (bootstrap_match_probability, match_probability,
                                       win_probability)
from scopa_sim.analysis.query import ask, load
from scopa_sim.analysis.ratings import ELO_PER_LOGIT, bradley_terry
from scopa_sim.analysis.runstats import run_stats
from scopa_sim.stats import (Z95, PairedMoments, column_chances, column_means,
                                      mean_interval, mean_t_interval,
                                      nonnegative_mean_interval, paired_mean,
                                      rate_difference, wilson)
from scopa_sim.runs.plan import RunSpec
from scopa_sim.runs.store import Run


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """A small run of rounds (4 part files) and one of games (4 part files)."""
    from scopa_sim.runs.resume import store_batches
    root = tmp_path_factory.mktemp("analysis-runs")
    r = Run.create(root / "rounds", RunSpec.make(rounds=20_000, strategies=("greedy", "random"),
                                                 seed=7, batch_size=5_000))
    store_batches(r, 2)
    g = Run.create(root / "games", RunSpec.make(games=2_000, strategies=("greedy", "random"),
                                                seed=7, batch_size=500))
    store_batches(g, 2)
    return {"rounds": Run.open(r.root), "games": Run.open(g.root)}


# ---- binomial intervals and means -----------------------------------------------
def test_wilson_known_values():
    r = wilson(5, 10)              # centre 0.5, halfwidth z sqrt(n/4 + z^2/4) / (n + z^2)
    assert r.low == pytest.approx(0.2365931, abs=1e-6)
    assert r.high == pytest.approx(0.7634069, abs=1e-6)
    r = wilson(0, 10)              # upper end z^2 / (n + z^2)
    assert r.low == pytest.approx(0.0, abs=1e-12)
    assert r.high == pytest.approx(Z95 ** 2 / (10 + Z95 ** 2), abs=1e-9)
    assert math.isnan(wilson(0, 0).low)


def test_mean_interval():
    m = mean_interval([1, 2, 3, 4, 5])
    assert (m.mean, m.n) == (3.0, 5)
    assert m.halfwidth == pytest.approx(Z95 * math.sqrt(2.5) / math.sqrt(5))


def test_column_intervals_t_and_wilson():
    """advise's and review's intervals: Student t per column, Wilson for
    columns of 0s and 1s, one column's NaN with fewer than two values."""
    from scipy import stats as st
    x = np.array([[1.0, 0.0], [2.0, 1.0], [4.0, 1.0], [5.0, 0.0]])
    mean, low, high = column_means(x)
    half = st.t.ppf(0.975, 3) * x.std(0, ddof=1) / 2
    assert mean == pytest.approx([3.0, 0.5])
    assert low == pytest.approx(mean - half) and high == pytest.approx(mean + half)
    rate, low, high = column_chances(x[:, 1:])
    w = wilson(2, 4)
    assert (rate[0], low[0], high[0]) == pytest.approx((0.5, w.low, w.high))
    assert column_chances(x / 5)[1] == pytest.approx(column_means(x / 5)[1])
    assert mean_t_interval(x[:, 0]) == pytest.approx((3.0, 3.0 - half[0], 3.0 + half[0]))
    one = mean_t_interval(np.array([2.0]))
    assert one[0] == 2.0 and math.isnan(one[1]) and math.isnan(one[2])
    assert all(math.isnan(v) for v in mean_t_interval(np.array([])))


def test_the_intervals_are_statsmodels_to_the_bit():
    """Wilson and Student t written out (statsmodels takes a second to
    import) give statsmodels' numbers, every bit: the same printed results."""
    from statsmodels.stats.proportion import proportion_confint
    from statsmodels.stats.weightstats import DescrStatsW
    rng = np.random.default_rng(7)
    ns = [1, 2, 3, 10, 999, 1000, 12_345, 10**6, 3 * 10**9 - 1]
    for n in ns + [int(v) for v in rng.integers(1, 10**8, 40)]:
        for k in {0, 1, n // 3, n // 2, n - 1, n, int(rng.integers(0, n + 1))}:
            w = wilson(k, n)
            assert (w.low, w.high) == proportion_confint(k, n, method="wilson"), (k, n)
    for rows, cols in ((2, 3), (7, 1), (40, 5), (2000, 4)):
        x = rng.normal(size=(rows, cols)) * 10.0 ** rng.integers(-3, 4)
        chances = rng.integers(0, 2, size=(rows, cols)).astype(np.float64)
        for alpha in (0.05, 0.05 / 7):
            d = DescrStatsW(x)
            np.testing.assert_array_equal(column_means(x, alpha),
                                          (d.mean, *d.tconfint_mean(alpha=alpha)))
        np.testing.assert_array_equal(column_chances(chances)[1:], proportion_confint(
            chances.sum(0), rows, method="wilson"))


def test_a_mean_of_costs_has_an_interval_that_stays_at_or_above_0():
    """The review's mean cost: a few zeros and one big cost, whose t interval
    reaches below 0; the bootstrap's stays in the costs' range, the same for
    the same costs, and covers the mean."""
    costs = np.array([0.0, 0.0, 0.72, 0.09])
    assert mean_t_interval(costs)[1] < 0
    mean, low, high = nonnegative_mean_interval(costs)
    assert mean == pytest.approx(0.2025) and 0 <= low < mean < high <= 0.72
    assert nonnegative_mean_interval(list(costs)) == (mean, low, high)
    assert nonnegative_mean_interval([0.0] * 5) == (0.0, 0.0, 0.0)
    rng = np.random.default_rng(1)
    big = rng.exponential(0.1, 400)
    _, t_low, t_high = mean_t_interval(big)
    assert nonnegative_mean_interval(big)[1:] == pytest.approx((t_low, t_high), abs=0.005)
    one = nonnegative_mean_interval([0.3])
    assert one[0] == 0.3 and math.isnan(one[1]) and math.isnan(one[2])
    assert all(math.isnan(v) for v in nonnegative_mean_interval([]))


def test_rate_difference():
    d = rate_difference(30, 10, 100)               # multinomial: var (p1 + p2 - d^2) / n
    half = Z95 * math.sqrt((0.3 + 0.1 - 0.04) / 100)
    assert d == pytest.approx({"estimate": 0.2, "n": 100, "low": 0.2 - half, "high": 0.2 + half})
    assert d["n"] == 100 and math.isnan(rate_difference(0, 0, 0)["estimate"])


# ---- paired differences ------------------------------------------------------------
def test_paired_mean_hand_case():
    # the two plays always add up to 2: a paired mean of 1 with no spread at all,
    # while unpaired the same data have var 2 in each play
    p = paired_mean([2, 0, 2, 0], [0, 2, 0, 2])
    assert p.estimate == 1.0 and p.n == 4
    assert p.halfwidth == pytest.approx(0.0, abs=1e-12)
    assert p.correlation == pytest.approx(-1.0)
    var = np.var([2, 0, 2, 0], ddof=1)
    assert p.unpaired_halfwidth == pytest.approx(Z95 * math.sqrt(2 * var / (4 * 4)))


def test_paired_mean_matches_direct_formulas():
    rng = np.random.default_rng(1)
    x1 = rng.integers(-5, 8, 500)
    x2 = -0.5 * x1 + rng.integers(-3, 4, 500)
    p = paired_mean(x1, x2)
    d = (x1 + x2) / 2
    assert p.estimate == pytest.approx(d.mean())
    assert p.halfwidth == pytest.approx(Z95 * d.std(ddof=1) / math.sqrt(len(d)))
    assert p.unpaired_halfwidth == pytest.approx(
        Z95 * math.sqrt((x1.var(ddof=1) + x2.var(ddof=1)) / (4 * len(d))))
    assert p.correlation == pytest.approx(np.corrcoef(x1, x2)[0, 1])
    assert p.halfwidth < p.unpaired_halfwidth            # negative correlation helps


def test_paired_moments_of_three_plays_match_direct_formulas():
    rng = np.random.default_rng(3)
    y = rng.normal(0, 1, (3, 400))
    y[1] -= 0.6 * y[0]                              # correlated plays
    p = PairedMoments(3).add(y).result()
    assert p.estimate == pytest.approx(y.mean())
    assert p.halfwidth == pytest.approx(Z95 * y.mean(0).std(ddof=1) / math.sqrt(400))
    assert p.unpaired_halfwidth == pytest.approx(
        Z95 * math.sqrt(y.var(1, ddof=1).sum() / (9 * 400)))
    cov, sd = np.cov(y), y.std(1, ddof=1)
    off = ~np.eye(3, dtype=bool)
    assert p.correlation == pytest.approx(cov[off].sum() / np.outer(sd, sd)[off].sum())


def test_plays_that_always_cancel_have_a_paired_halfwidth_of_exactly_zero():
    """A strategy against itself on three sides: each deck's three margins
    add up to 0, so the paired interval is 0 (not rounding's -1e-9)."""
    rng = np.random.default_rng(4)
    points = rng.integers(0, 8, (3, 3, 300)).astype(float)        # play, side, deck
    y = np.array([points[s, s] - (points[s].sum(0) - points[s, s]) / 2 for s in range(3)])
    y[2] = -y[0] - y[1]
    p = PairedMoments(3).add(y).result()
    assert p.estimate == 0 and p.halfwidth == 0 and p.unpaired_halfwidth > 0


def test_paired_ratio_and_batches():
    rng = np.random.default_rng(2)
    w1, w2 = rng.integers(2, 8, 300), rng.integers(2, 8, 300)
    y1, y2 = rng.normal(1.5 * w1, 3), rng.normal(1.5 * w2, 3)
    whole = PairedMoments().add([y1, y2], [w1, w2]).result()
    parts = PairedMoments()
    for s in np.array_split(np.arange(300), 7)[::-1]:           # any order, any cut
        parts.merge(PairedMoments().add([y1[s], y2[s]], [w1[s], w2[s]]))
    assert parts.result().estimate == pytest.approx(whole.estimate)
    assert parts.result().halfwidth == pytest.approx(whole.halfwidth)
    # the delta method for a ratio, written out
    r = (y1 + y2).sum() / (w1 + w2).sum()
    e = y1 + y2 - r * (w1 + w2)
    assert whole.estimate == pytest.approx(r)
    assert whole.halfwidth == pytest.approx(
        Z95 * math.sqrt(len(e) * e.var(ddof=1)) / (w1 + w2).sum())


# ---- the match chain -----------------------------------------------------------------
def _dist(seats):
    """P[dealer, a, b] from {(a, b): p} per dealer seat."""
    size = 1 + max(max(max(k) for k in d) for d in seats)
    out = np.zeros((len(seats), size, size))
    for s, d in enumerate(seats):
        for (a, b), p in d.items():
            out[s, a, b] = p
    return out


def test_match_chain_first_to_two_alternating_deal():
    a, b = 0.6, 0.3         # side 0 wins a round dealt by seat 0 w.p. a, by seat 1 w.p. b
    d = _dist([{(1, 0): a, (0, 1): 1 - a}, {(1, 0): b, (0, 1): 1 - b}])
    # seat 0 deals rounds 1 and 3: win 2-0, or 2-1 after losing one of the first two
    by_hand = a * b + a * (1 - b) * a + (1 - a) * b * a
    assert win_probability(d, 2)[0] == pytest.approx(by_hand)
    by_hand_1 = b * a + b * (1 - a) * b + (1 - b) * a * b
    assert win_probability(d, 2)[1] == pytest.approx(by_hand_1)
    assert match_probability(d, 2) == pytest.approx((by_hand + by_hand_1) / 2)


def test_match_chain_tie_at_the_top_and_empty_rounds():
    # target 1: a round of (1, 1) ties at the top and plays on; (0, 0) changes nothing
    p0, q0, t0, u0 = 0.5, 0.2, 0.2, 0.1
    p1, q1, t1, u1 = 0.3, 0.4, 0.1, 0.2
    d = _dist([{(1, 0): p0, (0, 1): q0, (1, 1): t0, (0, 0): u0},
               {(1, 0): p1, (0, 1): q1, (1, 1): t1, (0, 0): u1}])
    # tied at the top, dealer d: T_d = p_d + (t_d + u_d) T_{d+1}
    s0, s1 = t0 + u0, t1 + u1
    tied0 = (p0 + s0 * p1) / (1 - s0 * s1)
    tied1 = (p1 + s1 * p0) / (1 - s0 * s1)
    # at 0-0, dealer d: V_d = p_d + t_d T_{d+1} + u_d V_{d+1}
    a0, a1 = p0 + t0 * tied1, p1 + t1 * tied0
    v0 = (a0 + u0 * a1) / (1 - u0 * u1)
    v1 = (a1 + u1 * a0) / (1 - u0 * u1)
    assert win_probability(d, 1) == pytest.approx([v0, v1])


def test_match_chain_symmetry_and_checks():
    d = _dist([{(1, 0): 0.3, (0, 1): 0.3, (2, 1): 0.2, (1, 2): 0.2}])
    assert match_probability(d, 11) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        match_probability(d * 2, 11)
    counts = np.round(d * 1000).astype(int)
    p, low, high = bootstrap_match_probability(counts, 5, replicates=50)
    assert low <= p <= high and p == pytest.approx(0.5)


def test_exact_match_probability_agrees_with_simulated_games(runs):
    st = run_stats(runs["games"], bootstrap=50)
    ex = st["match_exact"]
    sim = ex["simulated"]
    se = math.hypot((sim["high"] - sim["low"]) / (2 * Z95), (ex["high"] - ex["low"]) / (2 * Z95))
    assert abs(ex["side0_win"] - sim["rate"]) < 4 * se


# ---- ratings --------------------------------------------------------------------------
def test_bradley_terry_two_items_known_values():
    r = bradley_terry(np.array([[0, 30], [10, 0]]))
    assert r.theta[0] - r.theta[1] == pytest.approx(math.log(3), abs=1e-3)
    se_diff = math.sqrt(1 / (40 * 0.75 * 0.25))
    assert r.se[0] == pytest.approx(se_diff / 2, rel=1e-3)
    assert r.elo[0] - r.elo[1] == pytest.approx(ELO_PER_LOGIT * math.log(3), abs=0.5)
    assert r.win_probability(0, 1) == pytest.approx(0.75, abs=1e-3)


def test_bradley_terry_recovers_strengths():
    theta = np.array([0.8, 0.0, -0.8])
    n = 20_000
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            if i != j:
                wins[i, j] = n / (1 + math.exp(theta[j] - theta[i]))
    r = bradley_terry(wins)
    assert r.theta == pytest.approx(theta, abs=1e-3)
    assert (r.low < theta).all() and (theta < r.high).all()


# ---- duplicate deals --------------------------------------------------------------------
def test_duplicate_pairs_the_same_decks():
    # the same deterministic strategy on both sides: each deck's two plays are
    # mirror images, so the paired margin is exactly 0 with no spread
    r = compare("greedy", "greedy", seed=3, deals=2_000, batch_size=500, workers=2)
    m = r["margin"]
    assert m["estimate"] == 0 and m["halfwidth"] == 0
    assert m["correlation"] == pytest.approx(-1.0)
    assert r["round_win"]["k"] == r["round_loss"]["k"]


def test_paired_interval_narrower_than_unpaired():
    r = compare("greedy", "random", seed=1, deals=20_000, workers=2)
    m = r["margin"]
    assert m["estimate"] > 1
    assert m["halfwidth"] < m["unpaired_halfwidth"]
    assert m["correlation"] < 0
    assert r["round_win"]["n"] == 40_000


def test_until_halfwidth_stops_at_the_same_batch_for_any_workers():
    kw = dict(seed=5, until_halfwidth=0.05, batch_size=1_000)
    one = compare("greedy", "random", workers=1, **kw)
    two = compare("greedy", "random", workers=2, **kw)
    assert one == two
    assert one["reached"] and one["margin"]["halfwidth"] <= 0.05
    # a pair's mean margin has sd about 1.7 (README: +-0.0105 paired over 100,000
    # deals), so +-0.05 needs about (1.96 * 1.7 / 0.05)^2 = 4,400 pairs: far below 20,000
    assert one["pairs"] % 1_000 == 0 and one["pairs"] < 20_000
    with pytest.raises(ValueError):
        compare("greedy", "random", deals=10, until_halfwidth=0.1)


def test_compare_three_sides_rotates_a_through_every_side():
    kw = dict(rules="scopa-3", seed=4, deals=400, batch_size=150)
    r = compare("greedy", "random", workers=1, **kw)
    assert r == compare("greedy", "random", workers=2, **kw)
    assert r["plays"] == 3 and r["pairs"] == 400 and r["rounds"] == 1200
    # the same rounds by simulate, greedy at side s in play s: A's points minus the others' mean
    margins, wins = [], 0
    for s in range(3):
        df = simulate(rounds=400, strategies=["greedy" if t == s else "random" for t in range(3)],
                      rules="scopa-3", seed=4, workers=1)
        others = df[[f"points_{t}" for t in range(3) if t != s]]
        margins.append(df[f"points_{s}"] - others.mean(axis=1))
        wins += int((df[f"points_{s}"] > others.max(axis=1)).sum())
    assert r["margin"]["estimate"] == pytest.approx(np.mean(margins))
    assert r["margin"]["halfwidth"] == pytest.approx(
        Z95 * np.std(np.mean(margins, axis=0), ddof=1) / math.sqrt(400))
    assert r["round_win"]["k"] == wins and r["margin"]["estimate"] > 0.5
    same = compare("greedy", "greedy", **kw)["margin"]      # the plays of a deal cancel exactly
    assert same["estimate"] == 0 and same["halfwidth"] == pytest.approx(0, abs=1e-12)


def test_tournament_with_three_sides():
    t = tournament(["random", "greedy", "heuristic"], rules="scopa-3", seed=1, deals=300,
                   workers=2)
    m = np.array(t["margin"])
    assert np.allclose(m, -m.T, equal_nan=True) and m[1, 0] > 0.5
    assert {r["strategy"]: r["rank"] for r in t["ratings"]}["random"] == 3


def test_compare_games_match_win_rate():
    r = compare("greedy", "random", seed=2, deals=300, games=True, workers=2)
    assert r["unit"] == "games" and r["match_win_wilson"]["n"] == 600
    assert 0.8 < r["match_win"]["estimate"] < 1
    assert r["rounds_per_game"] > 2


def test_tournament_matrix_and_ratings():
    t = tournament(["random", "greedy", "greedy:scopa=0"], seed=1, deals=1_000, workers=2)
    m = np.array(t["margin"])
    assert np.allclose(m, -m.T, equal_nan=True)
    assert m[1, 0] > 1
    ranks = {r["strategy"]: r["rank"] for r in t["ratings"]}
    assert ranks["random"] == 3
    assert np.mean([r["elo"] for r in t["ratings"]]) == pytest.approx(1500)


def test_tournament_of_games_rates_games_won():
    t = tournament(["random", "greedy"], seed=1, deals=150, games=True, workers=2)
    assert t["rating_basis"] == "games"
    wins = np.array(t["wins"])
    assert wins.sum() == 300 and wins[1, 0] > wins[0, 1]
    assert t["matches"][0]["match_win"]["n"] == 150


# ---- ask ------------------------------------------------------------------------------
def test_ask_equals_pandas(runs):
    run = runs["rounds"]
    df = run.read()
    r = ask(run, "winner == 0", "settebello_0 == 1")
    sub = df[df.settebello_0 == 1]
    k = int((sub.points_0 > sub.points_1).sum())
    assert (r["k"], r["n"]) == (k, len(sub))
    assert (r["low"], r["high"]) == (wilson(k, len(sub)).low, wilson(k, len(sub)).high)
    r = ask(run, "margin", "dealer == 1")
    sub = df[df.dealer == 1]
    assert r["estimate"] == pytest.approx((sub.points_0.astype(int) - sub.points_1).mean())
    r = ask(run, "scopas_0 + scopas_1 >= 2 and winner == dealer_side")
    win = np.where(df.points_0 > df.points_1, 0, np.where(df.points_1 > df.points_0, 1, -1))
    want = ((df.scopas_0 + df.scopas_1 >= 2) & (win == df.dealer)).sum()
    assert r["k"] == want and r["n"] == len(df)


def test_ask_games_table(runs):
    run = runs["games"]
    g = run.read("games")
    r = ask(run, "winner == dealer_side", table="games")
    assert (r["k"], r["n"]) == (int((g.winner == g.first_dealer).sum()), len(g))
    r = ask(run, "rounds", table="games")
    assert r["kind"] == "mean" and r["estimate"] == pytest.approx(g.rounds.mean())
    rounds = run.read()
    r = ask(run, "game_winner == 0", "round == 0 and settebello_0 == 1")
    first = rounds[(rounds["round"] == 0) & (rounds.settebello_0 == 1)]
    want = first.game.map(g.set_index("game").winner)
    assert (r["k"], r["n"]) == (int((want == 0).sum()), len(first))


def test_ask_reads_only_the_columns_it_needs(runs):
    df = load(runs["rounds"], ["winner == 0", "settebello_1 == 1"])
    assert set(df.columns) == {"points_0", "points_1", "settebello_1", "winner"}


@pytest.mark.parametrize("event, given, message", [
    ("nonsense == 1", None, "unknown column nonsense; the rounds columns are"),
    ("winner == (", None, "bad expression"),
    ("winner == 0", "points_0", "not true or false"),
    ("winner == 0", "points_0 > 100", "no row"),
])
def test_ask_errors(runs, event, given, message):
    with pytest.raises(ValueError, match=message):
        ask(runs["rounds"], event, given)


def test_ask_games_table_needs_a_games_run(runs):
    with pytest.raises(ValueError, match="no games table"):
        ask(runs["rounds"], "winner == 0", table="games")


# ---- report numbers and charts -------------------------------------------------------
def test_run_stats_numbers(runs):
    run = runs["rounds"]
    df = run.read()
    st = run_stats(run, bootstrap=20)
    assert st["rounds"] == len(df) == 20_000
    k = int((df.points_0 > df.points_1).sum())
    assert st["sides"][0]["round_win"]["k"] == k
    margin = (df.points_0.astype(int) - df.points_1).value_counts()
    assert {int(a): b for a, b in st["margin_counts"].items()} == margin.to_dict()
    dealer_pts = np.where(df.dealer == 0, df.points_0, df.points_1)
    leader_pts = np.where(df.dealer == 0, df.points_1, df.points_0)
    assert st["dealer"]["dealer_win"]["k"] == int((dealer_pts > leader_pts).sum())
    assert st["dealer"]["margin"]["mean"] == pytest.approx((dealer_pts - leader_pts).mean())
    assert st["convergence"][-1]["rounds"] == 20_000
    assert st["convergence"][-1]["rate"] == pytest.approx(k / 20_000)
    sc = (df.scopas_0 + df.scopas_1).value_counts()
    assert {int(a): b for a, b in st["scopas_per_round"].items() if b} == sc.to_dict()
    assert st["throughput"]["finished"] and st["throughput"]["rounds_per_second"] > 0
    assert "simulated" not in st["match_exact"]


@pytest.mark.parametrize("kind", ["winrates", "categories", "margin", "convergence", "rounds"])
def test_charts_are_images_of_the_expected_size(runs, tmp_path, kind):
    import matplotlib.image as mpimg
    st = run_stats(runs["games"], bootstrap=0)
    path = charts.draw(kind, st, tmp_path / f"{kind}.png")
    img = mpimg.imread(path)
    assert img.shape[:2] == (int(charts.SIZE[1] * charts.DPI), int(charts.SIZE[0] * charts.DPI))
    assert img[..., :3].std() > 0.05                         # not blank


def test_the_log_axis_is_labelled_in_plain_numbers(runs):
    """No mathtext (10^k needs math fonts a shared font cache may lack: a
    findfont warning per glyph)."""
    fig = charts.convergence(run_stats(runs["rounds"], bootstrap=0))
    fig.canvas.draw()
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert "1,000" in labels and not any("$" in t for t in labels)


def test_chart_svg_and_bad_extension(runs, tmp_path):
    st = run_stats(runs["rounds"], bootstrap=0)
    path = charts.draw("margin", st, tmp_path / "m.svg")
    assert path.read_text().lstrip().startswith("<?xml") and "<svg" in path.read_text()
    with pytest.raises(ValueError, match="must end in"):
        charts.draw("margin", st, tmp_path / "m.gif")
    with pytest.raises(ValueError, match="run of games"):
        charts.draw("rounds", st, tmp_path / "r.png")


def test_report_files(runs, tmp_path):
    from scopa_sim.analysis.output import md_text
    from scopa_sim.analysis.report import write_report
    st = run_stats(runs["games"], bootstrap=20)
    files = write_report(st, tmp_path / "rep.md")
    text = files[0].read_text()
    assert "Match win probability" in text and "Rounds per game" in text
    for f in files[1:]:
        assert f.exists() and f"]({f.name})" in text
    assert f"Run <code>{md_text(st['run'])}</code>:" in text     # any path: escaped, not in ticks
    html = write_report(st, tmp_path / "rep.html")[0].read_text()
    assert html.count("data:image/png;base64,") == len(files) - 1
    assert "<p>Run <code>" in html and "`" not in html          # code, not Markdown's ticks
    assert pd.notna(st["match_exact"]["side0_win"])


def test_moments_merged_batch_by_batch_equal_the_two_pass_mean():
    from scopa_sim.stats import Moments
    rng = np.random.default_rng(1)
    values = rng.integers(-5, 30, 10_001).astype(np.float64)
    m = Moments()
    for chunk in np.array_split(values, 7):
        m.add(chunk)
    direct = mean_interval(values)
    assert m.n == direct.n
    assert m.result().mean == pytest.approx(direct.mean, rel=1e-12)
    assert m.result().sd == pytest.approx(direct.sd, rel=1e-12)


def test_ask_streams_batch_by_batch_and_agrees_with_one_frame(runs):
    run = runs["games"]
    streamed = ask(run, "game_winner == 0", "round == 0 and settebello_0 == 1")
    df = load(run, ["game_winner", "round", "settebello_0"])
    rows = df[(df["round"] == 0) & (df["settebello_0"] == 1)]
    assert (streamed["k"], streamed["n"]) == (int((rows["game_winner"] == 0).sum()), len(rows))
    games = run.read("games")
    winner = dict(zip(games["game"], games["winner"]))
    assert (df["game_winner"] == df["game"].map(winner)).all()
