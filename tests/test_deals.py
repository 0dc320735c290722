"""Cards, not only totals (issue 24): every deck is a function of the seed,
the deal columns equal the cards the rounds were played with, `ask` takes
card-set expressions, `values` prices each card, games replay card for card."""
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import scopa_sim
from scopa_sim import kernels
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.round
from scopa_sim.engine import deals
from scopa_sim.kernels import layout as L
from scopa_sim.cli import main
from scopa_sim.engine.seats import Seats


def _played(log, players):
    """Each seat's plays, in order, from a round's play log: a seat plays
    every card it is dealt, its first hand first."""
    plays = [[] for _ in range(players)]
    for seat, card, _ in log:
        plays[int(seat)].append(int(card))
    return plays


def _check_row(cols, row, plays, rules):
    every = 0
    for s in range(rules.players):
        assert int(cols[f"dealt_{s}"][row]) == scopa_sim.engine.cards.mask_of(plays[s])
        assert int(cols[f"hand_{s}"][row]) == scopa_sim.engine.cards.mask_of(plays[s][:rules.hand_size])
        every |= int(cols[f"dealt_{s}"][row])
    assert int(cols["table"][row]) == ((1 << 40) - 1) & ~every
    assert bin(int(cols["table"][row])).count("1") == rules.table_size


@pytest.mark.parametrize("games", [False, True], ids=["rounds", "games"])
@pytest.mark.parametrize("preset", ["scopa", "scopa-4", "scopone-scientifico"])
def test_the_deal_columns_are_the_cards_the_kernel_played(preset, games):
    """10,000 rounds a case, each round's log from the batch kernel itself."""
    rules = scopa_sim.Rules.resolve(preset)
    strategies = ["random", "greedy"] * 3
    seats = Seats(rules, strategies[:rules.n_sides])
    scratch = seats.scratch()
    sides = np.zeros((400, rules.n_sides, L.N_SIDE), np.int16)
    rounds = np.zeros((400, L.N_ROUND), np.int64)
    checked, unit = 0, 0
    while checked < (2_000 if games else 10_000):
        rows = seats.play(games, 11, unit, 1, sides, rounds, scratch)
        # the scratch holds the unit's last round: check that one
        cols = deals.deal_columns(rules, 11, [unit], [rounds[rows - 1, L.Q_ROUND]] if games
                                  else None)
        _check_row(cols, 0, _played(scratch.log[:40 - rules.table_size], rules.players), rules)
        checked += rows if not games else 1
        unit += 1


@pytest.mark.parametrize("preset", [*sorted(scopa_sim.PRESETS), "scopa+ranks=3+hand_size=2",
                                    "scopa-4+ranks=7+refill=false+hand_size=6"])
def test_numpy_deals_the_kernels_cards(preset):
    """`engine.decks` (numpy, for small runs: no Numba to load) deals every
    row as the kernel does: units, rounds within games and seeds far apart."""
    rules = scopa_sim.Rules.resolve(preset)
    rng = np.random.default_rng(len(preset))
    units = np.concatenate([np.arange(500), rng.integers(0, 2**44, 500)])
    numbers = np.concatenate([np.zeros(500, np.int64), rng.integers(0, 40, 500)])
    for seed in (0, 11, 2**64 - 1, int(rng.integers(0, 2**63))):
        for of in (None, numbers):
            ours = deals.deal_columns(rules, seed, units, of, kernel=False)
            theirs = deals.deal_columns(rules, seed, units, of)
            assert ours.keys() == theirs.keys()
            for name in ours:
                np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


@pytest.mark.parametrize("preset", ["scopa", "scopa-4", "scopone-scientifico"])
def test_the_deal_columns_are_the_cards_of_trace_round_and_trace_game(preset):
    rules = scopa_sim.Rules.resolve(preset)
    strategies = ["random", "greedy"] * 3
    df = scopa_sim.simulate(rounds=40, seed=8, rules=preset, deals=True,
                            strategies=strategies[:rules.n_sides])
    for i in range(40):
        game = scopa_sim.trace_round(8, i, strategies=strategies[:rules.n_sides], rules=preset)
        _check_row(df, i, _played(game.moves, rules.players), rules)
    gdf = scopa_sim.simulate(games=5, seed=8, rules=preset, deals=True,
                             strategies=strategies[:rules.n_sides])
    for g in range(5):
        game = scopa_sim.trace_game(8, g, strategies=strategies[:rules.n_sides], rules=preset)
        rows = gdf.index[gdf["game"] == g]
        assert len(rows) == len(game.rounds)
        for row, r in zip(rows, game.rounds):
            _check_row(gdf, row, _played(r.moves, rules.players), rules)
        assert [gdf.loc[rows[-1], f"score_{t}"] for t in range(rules.n_sides)] == game.scores


@pytest.mark.parametrize("games", [False, True], ids=["rounds", "games"])
def test_two_runs_with_one_seed_and_other_strategies_deal_the_same_cards(games):
    kw = {"games": 20} if games else {"rounds": 300}
    a = scopa_sim.simulate(seed=21, strategies=("random", "random"), deals=True, **kw)
    b = scopa_sim.simulate(seed=21, strategies=("counter", "greedy"), deals=True, **kw)
    keys = ["game", "round"] if games else ["round"]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))           # the rounds both played
    assert len(both) >= (20 if games else 300)
    for c in deals.names(scopa_sim.Rules.resolve("scopa")):
        assert (both[f"{c}_a"] == both[f"{c}_b"]).all()
    for g in range(3 if games else 0):                          # and the replays agree
        x = scopa_sim.trace_game(21, g, strategies=("random", "random"))
        y = scopa_sim.trace_game(21, g, strategies=("counter", "greedy"))
        for r, s in zip(x.rounds, y.rounds):
            assert r.deck_order == s.deck_order


def test_game_with_a_seed_and_index_is_that_game_of_a_run():
    game = scopa_sim.Game(seed=5, index=7)
    assert game.round.dealer == 7 % 2
    assert game.round.deck_order == deals.deck(5, 7, 0)
    traced = scopa_sim.trace_game(5, 7, strategies=("greedy", "greedy"))
    assert traced.rounds[0].deck_order == game.round.deck_order


def test_the_game_over_rule_is_the_kernels():
    rules = scopa_sim.Rules.resolve("scopa")
    for totals in ([11, 10], [11, 11], [10, 3], [12, 11], [0, 0], [30, 29]):
        kernel = bool(kernels.round.game_over(np.array(totals, np.int64), 2, 11))
        assert rules.game_over(totals) == kernel == (max(totals) >= 11 and totals[0] != totals[1])


# -- ask, values, deals on the command line ---------------------------------------------
@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys):
    """The command line, in this process: (exit code, stdout, stderr)."""
    def call(*args) -> Ran:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as e:
            code = e.code or 0
        out, err = capsys.readouterr()
        return Ran(code, out, err)
    return call


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deals") / "run"
    main(["simulate", "--rounds", "40000", "--strategies", "heuristic,greedy", "--seed", "6",
          "--batch-size", "10000", "--out", str(folder), "--quiet"])
    return folder


def test_ask_about_a_card_equals_pandas_on_the_written_out_deal_columns(cli, run, tmp_path):
    r = cli("ask", str(run), "winner == 0", "--given", "'7d' in hand_0", "--format", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert cli("deals", str(run), "--out", str(tmp_path / "d"), "--quiet").returncode == 0
    d = pd.read_parquet(tmp_path / "d")
    rows = pd.read_parquet(run / "rounds")
    assert d["round"].tolist() == rows["round"].tolist()
    holds = ((d["hand_0"].to_numpy() >> np.uint64(6)) & np.uint64(1)).astype(bool)
    wins = (rows["points_0"] > rows["points_1"]).to_numpy()
    assert (got["k"], got["n"]) == (int(wins[holds].sum()), int(holds.sum()))


@pytest.mark.parametrize("event,given", [
    ("margin", "count(hand_0 & sevens) >= 2"),
    ("winner == dealer_side", "count(table & sevens) >= 1"),
    ("ranks(hand_1)", "'Kd Kc' in dealt_1 or settebello in table"),
    ("count(dealt_0 & coins)", "hand_0 - faces == hand_0"),
])
def test_card_set_questions_agree_with_the_dataframe(run, event, given):
    from scopa_sim.analysis import expr
    from scopa_sim.analysis.query import ask
    from scopa_sim.runs.store import Run
    got = ask(Run.open(run), event, given)
    df = scopa_sim.simulate(rounds=40000, strategies=("heuristic", "greedy"), seed=6,
                            deals=True)
    df["margin"] = df["points_0"].astype(int) - df["points_1"]
    df["winner"] = np.where(df.points_0 > df.points_1, 0, np.where(df.points_1 > df.points_0, 1, -1))
    df["dealer_side"] = df["dealer"]
    cols = {c: df[c].to_numpy() for c in df.columns}
    keep = expr.evaluate(given, cols, len(df))
    values = expr.evaluate(event, cols, len(df))[keep]
    assert got["n"] == int(keep.sum()) and got["estimate"] == pytest.approx(values.mean())


@pytest.mark.parametrize("args,says", [
    (["ask", "{run}", "'7x' in hand_0"], "bad card '7x'"),
    (["ask", "{run}", "count(hand_0 & sevenz) > 1"], "unknown column sevenz"),
    (["ask", "{run}", "hand_0 > 2"], "card sets compare only with"),
    (["ask", "{run}", "table == 3"], "compares a card set with a number"),
    (["ask", "{run}", "hand_0 + 1 > 2"], "is a card set, not a number"),
    (["ask", "{run}", "'7d' in hand_2"], "unknown column hand_2"),
    (["ask", "{run}", "count(points_0) > 1"], "is not a card set"),
    (["ask", "{run}", "points_0 in points_1"], "is not a card set"),
])
def test_bad_card_questions_are_one_error_line(cli, run, args, says):
    r = cli(*[a.format(run=run) for a in args])
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and says in r.stderr, \
        r.stderr


def test_deal_columns_of_a_run_made_before_are_refused_with_its_version(cli, run, tmp_path):
    import shutil
    try:
        from tests.test_hostile_runs import as_format_1
    except ImportError:  # tests/ on sys.path instead of the repo root
        from test_hostile_runs import as_format_1
    old = tmp_path / "old"
    shutil.copytree(run, old)
    as_format_1(old)                                   # the manifest and every part's spec
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["versions"]["scopa-sim"] = "0.1.0"
    (old / "manifest.json").write_text(json.dumps(manifest))
    for args in (["ask", str(old), "'7d' in hand_0"], ["values", str(old)],
                 ["deals", str(old), "--out", str(tmp_path / "x")]):
        r = cli(*args)
        assert r.returncode == 2 and "scopa-sim 0.1.0 (run format 1)" in r.stderr, r.stderr
    assert cli("ask", str(old), "winner == 0").returncode == 0       # totals still read
    r = cli("simulate", "--resume", str(old))
    assert r.returncode == 2 and "not resumed" in r.stderr, r.stderr


def test_values_prices_every_card_with_intervals_and_draws_the_heat_map(cli, run, tmp_path):
    r = cli("values", str(run), "--out", str(tmp_path / "v.png"), "--format", "json")
    assert r.returncode == 0, r.stderr
    v = json.loads(r.stdout)
    assert [c["card"] for c in v["cards"]] == list(range(40))
    assert v["strategies"] == ["heuristic", "greedy"] and v["rounds"] == 40000
    seven = v["cards"][6]["margin"]
    assert seven["low"] < seven["mean"] < seven["high"] and seven["mean"] > 0.3   # settebello
    assert sum(c["margin"]["n"] for c in v["cards"]) == 40000 * 2 * 3
    assert sum(v["hand_worth"]["counts"]) == 40000 * 2
    assert (tmp_path / "v.png").stat().st_size > 10_000
    table = cli("values", str(run), "--quiet")
    assert "these values hold under these strategies (heuristic vs greedy)" in " ".join(
        table.stdout.split())


def test_deals_refuses_a_folder_in_the_way(cli, run, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    for out in (tmp_path / "full", run / "inside"):
        r = cli("deals", str(run), "--out", str(out))
        assert r.returncode == 2 and r.stderr.startswith("error: "), r.stderr
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
    assert not (run / "inside").exists()
