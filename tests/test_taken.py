"""Taken columns (issue 38, item 13): the cards each side captured in every
round, played again from the seed or stored with `simulate --keep-taken`,
asked about with `ask`, priced with `values --by taken`."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scopa_sim.runs import taken
from scopa_sim.cli import main
from scopa_sim.runs.plan import RunSpec
from scopa_sim.runs.runner import batch_columns
from scopa_sim.runs.traces import trace_round
from scopa_sim.engine.seats import Seats
from scopa_sim.runs.plan import spec_dict
from scopa_sim.runs.store import Run

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
ALL = (1 << 40) - 1


def cli(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert res.exit_code == 0, res.output
    return res


def popcount(a) -> np.ndarray:
    return np.bitwise_count(np.asarray(a, np.uint64)).astype(np.int64)


def check_piles(cols, n_sides: int, whole_deck: bool = True) -> None:
    """count(taken_t) == cards_t, the sides' sets apart, and (2 sides, or any
    round where someone captured) together the 40 cards."""
    union = np.zeros(len(cols["round"]), np.uint64)
    for t in range(n_sides):
        assert (popcount(cols[f"taken_{t}"]) == np.asarray(cols[f"cards_{t}"])).all()
        assert not (union & cols[f"taken_{t}"]).any()
        union |= cols[f"taken_{t}"]
    if whole_deck:
        assert (union == ALL).all()


@pytest.mark.parametrize("rules,strategies", [("scopa", ("random", "greedy")),
                                              ("scopa", ("counter", "reply")),
                                              ("scopa-4", ("greedy", "heuristic")),
                                              ("scopa-3", ("greedy", "random", "counter")),
                                              ("scopone-scientifico", ("counter", "greedy"))])
@pytest.mark.parametrize("games", [False, True])
def test_keep_taken_rows_are_the_runs_rows(rules, strategies, games):
    """The taken kernel writes the batch kernel's rows, byte for byte, and
    piles that score as the rows do."""
    unit = {"games": 40} if games else {"rounds": 500}
    plain = RunSpec.make(**unit, strategies=strategies, rules=rules, seed=7, batch_size=None)
    kept = RunSpec.make(**unit, strategies=strategies, rules=rules, seed=7, batch_size=None,
                        keep_taken=True)
    a, b = batch_columns(plain, 0), batch_columns(kept, 0)
    assert list(b) == list(a) + taken.names(plain.rules)
    for k in a:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
    check_piles(b, plain.rules.n_sides, whole_deck=plain.rules.n_sides == 2)


def test_a_run_without_keep_taken_is_written_as_before():
    spec = RunSpec.make(rounds=10, strategies=("random", "greedy"), seed=1)
    assert "keep_taken" not in spec_dict(spec)
    assert spec_dict(RunSpec.make(rounds=10, seed=1, keep_taken=True))["keep_taken"] is True


def test_python_round_loop_keeps_the_same_piles():
    """The Python round loop's piles are the kernel's."""
    spec = RunSpec.make(games=30, strategies=("random", "greedy"), seed=3)
    seats = Seats(spec.rules, spec.strategies)
    kernel = seats.play_rows(True, 3, 0, 30, piles=True)
    seats.python = True
    python = seats.play_rows(True, 3, 0, 30, piles=True)
    for x, y in zip(kernel, python):
        assert np.array_equal(x, y)


@pytest.fixture(scope="module")
def endgame_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("taken") / "endgame"
    cli("simulate", "--rounds", 1000, "--strategies", "endgame,endgame", "--seed", 38,
        "--batch-size", 400, "--out", root, "--quiet")
    return root


def ask(run, event, given=None):
    args = ["ask", run, event, "--format", "json"] + (["--given", given] if given else [])
    return json.loads(cli(*args).output)


def test_ask_three_sevens_agrees_with_game_replays(endgame_run):
    """`ask RUN "winner == 0" --given "count(taken_0 & sevens) >= 3"` on a run
    of endgame against itself: an interval, and the count of the same 1,000
    rounds replayed move by move through the checked `Round`."""
    r = ask(endgame_run, "winner == 0", "count(taken_0 & sevens) >= 3")
    assert r["kind"] == "probability" and r["low"] < r["estimate"] < r["high"]
    k = n = 0
    for i in range(1000):
        rnd = trace_round(38, i, strategies=("endgame", "endgame"))
        pile = rnd.piles[0]
        points = rnd.result()
        if sum(c % 10 == 6 for c in pile) >= 3:
            n += 1
            k += points["points_0"] > points["points_1"]
    assert (r["k"], r["n"]) == (k, n) and n > 50


def test_taken_counts_the_cards_in_every_round(endgame_run):
    for event in ("count(taken_0) == cards_0", "count(taken_1) == cards_1",
                  "count(taken_0) + count(taken_1) == 40", "count(taken_0 | taken_1) == 40"):
        r = ask(endgame_run, event)
        assert r["k"] == r["n"] == 1000, event


def test_stored_taken_is_the_replayed_taken(tmp_path):
    args = ["--games", 120, "--strategies", "greedy,counter", "--seed", 5, "--batch-size", 50,
            "--quiet"]
    cli("simulate", *args, "--out", tmp_path / "plain")
    cli("simulate", *args, "--out", tmp_path / "kept", "--keep-taken")
    plain, kept = Run.open(tmp_path / "plain"), Run.open(tmp_path / "kept")
    assert "taken_0" not in plain.columns()
    assert kept.columns()[-4:] == ["taken_0", "taken_1", "strategy_0", "strategy_1"]
    stored = kept.read(columns=["game", "round", "taken_0", "taken_1", "cards_0"])
    again = plain.read(columns=["game", "round"])
    for b in plain.done_batches():
        rows = plain.read_batch(b, columns=["game", "round"])
        mine = taken.replay(plain, b, rows)
        theirs = kept.read_batch(b, columns=["taken_0", "taken_1"])
        assert np.array_equal(mine["taken_0"], theirs["taken_0"].to_numpy())
        assert np.array_equal(mine["taken_1"], theirs["taken_1"].to_numpy())
    assert len(stored) == len(again)
    given = "count(taken_1 & coins) >= 6"
    assert ask(tmp_path / "plain", "winner == 1", given) | {"run": 0} == \
        ask(tmp_path / "kept", "winner == 1", given) | {"run": 0}


def test_a_python_strategy_stores_its_taken_and_is_never_played_again(tmp_path):
    """A plain-Python strategy's run stores the piles the Python loop's log
    gives (greedy_py plays as greedy: the same piles as a built-in run's,
    played again); without --keep-taken, asking for them is refused."""
    py = f"{EXAMPLES / 'greedy_py.py'}:greedy"
    common = ["--rounds", 300, "--seed", 9, "--batch-size", 100, "--quiet"]
    cli("simulate", *common, "--strategies", f"{py},random", "--out", tmp_path / "py",
        "--keep-taken")
    cli("simulate", *common, "--strategies", f"{py},random", "--out", tmp_path / "py-plain")
    cli("simulate", *common, "--strategies", "greedy,random", "--out", tmp_path / "builtin")
    mine = Run.open(tmp_path / "py").read(columns=["taken_0", "taken_1", "cards_0"])
    builtin = Run.open(tmp_path / "builtin")
    for b in builtin.done_batches():
        again = taken.replay(builtin, b, builtin.read_batch(b, columns=["round"]))
        lo = b * 100
        assert np.array_equal(again["taken_0"], mine["taken_0"].to_numpy()[lo:lo + 100])
    res = cli("ask", tmp_path / "py-plain", "count(taken_0) >= 20", ok=False)
    assert res.exit_code != 0 and "--keep-taken" in res.output
    assert "Traceback" not in res.output


def test_values_by_taken(endgame_run, tmp_path):
    r = json.loads(cli("values", endgame_run, "--by", "taken", "--format", "json",
                       "--quiet").output)
    assert r["by"] == "taken" and r["hand_worth"] is None and r["rounds"] == 1000
    settebello = r["cards"][6]
    assert settebello["card"] == 6 and settebello["margin"]["n"] == 1000
    assert settebello["margin"]["low"] > 0.5             # its captor's margin: well ahead
    out = cli("values", endgame_run, "--by", "taken", "--quiet", "--out", tmp_path / "v.png")
    assert "captured" in out.output and (tmp_path / "v.png").exists()
    assert "first hand's worth" not in out.output


def test_python_simulate_gives_taken_columns():
    df = scopa_sim_simulate(rounds=300, strategies=("greedy", "random"), seed=2, taken=True)
    plain = scopa_sim_simulate(rounds=300, strategies=("greedy", "random"), seed=2)
    assert list(df.columns) == list(plain.columns) + ["taken_0", "taken_1"]
    assert df[plain.columns].equals(plain)
    check_piles({c: df[c].to_numpy() for c in df.columns}, 2)


def scopa_sim_simulate(**kw):
    import scopa_sim
    return scopa_sim.simulate(**kw)


def test_a_kept_run_resumes_with_its_taken_columns(tmp_path):
    """An interrupted --keep-taken run resumes to the parts of an
    uninterrupted one."""
    import scopa_sim
    from scopa_sim.runs.resume import simulate_part
    args = ["--rounds", 3000, "--strategies", "counter,greedy", "--seed", 6, "--batch-size",
            1000, "--keep-taken", "--quiet"]
    cli("simulate", *args, "--out", tmp_path / "whole")
    spec = RunSpec.make(rounds=3000, strategies=("counter", "greedy"), seed=6, batch_size=1000,
                        keep_taken=True)
    with Run.create(tmp_path / "cut", spec) as run:
        run.save(0, simulate_part(spec, run.meta, 0)[0])
    scopa_sim.resume(tmp_path / "cut")
    for b in range(3):
        name = f"rounds/part-{b:06d}.parquet"
        assert (tmp_path / "cut" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_a_jitted_strategy_stores_the_builtin_piles(tmp_path):
    """greedy_jit plays as greedy: its stored taken columns are a greedy run's,
    played again."""
    common = ["--rounds", 600, "--seed", 9, "--batch-size", 300, "--quiet"]
    cli("simulate", *common, "--strategies", f"{EXAMPLES / 'greedy_jit.py'}:greedy,random",
        "--out", tmp_path / "jit", "--keep-taken")
    cli("simulate", *common, "--strategies", "greedy,random", "--out", tmp_path / "builtin")
    given = "count(taken_0 & coins) >= 6"
    a, b = (ask(tmp_path / x, "winner == 0", given) for x in ("jit", "builtin"))
    assert (a["k"], a["n"]) == (b["k"], b["n"]) and a["n"] > 100
