"""Runs received from someone else whose parts hash as the manifest says
(the forger recomputed the sha256) but whose rows are not the run's: a part
copied over another, points that do not add up to their categories, games
whose scores are not their rounds' points. Each is one `error:` line naming
the run and the part (with a copy, the part it copies), from every reader,
and nothing is written (issue 37, part 5)."""
from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hostile import assert_error, cli, tree
from scopa_sim.analysis.query import ask
from scopa_sim.runs.store import Run, StoreError
from test_hostile_runs import READERS, column, rehash, rewrite_part

GAMES = ("--games", 400, "--batch-size", 100, "--seed", 3)


@pytest.fixture(scope="module")
def made_games(tmp_path_factory):
    root = tmp_path_factory.mktemp("made") / "games"
    assert cli("simulate", "--out", root, "--quiet", *GAMES).exit_code == 0
    return root


@pytest.fixture
def games(made_games, tmp_path):
    shutil.copytree(made_games, tmp_path / "games")
    return tmp_path / "games"


def copy_part(root, src: int = 0, dst: int = 1) -> None:
    """Part src copied over part dst in every table, the manifest rehashed."""
    for table in ("rounds", "games"):
        if (root / table).is_dir():
            shutil.copy(root / table / f"part-{src:06d}.parquet",
                        root / table / f"part-{dst:06d}.parquet")
            rehash(root, f"{table}/part-{dst:06d}.parquet")


def plus_one(name: str, part: int = 1):
    """Add 1 to a column of a rounds part, the manifest rehashed."""
    def change(root):
        rewrite_part(root / "rounds" / f"part-{part:06d}.parquet",
                     column(name, lambda c: pc.cast(pc.add(c, 1), pa.int16())))
        rehash(root, f"rounds/part-{part:06d}.parquet")
    return change


@pytest.mark.parametrize("reader", READERS)
def test_a_copied_part_is_refused_naming_both_parts(run, reader):
    copy_part(run)
    before = tree(run.parent)
    assert_error(cli(*READERS[reader](run)), str(run), "rounds/part-000001.parquet",
                 "rounds/part-000000.parquet", "rounds 0..999", "1,000..1,999")
    assert tree(run.parent) == before


def test_the_api_refuses_a_copied_part_instead_of_counting_rows_twice(run):
    copy_part(run, 0, 3)
    with pytest.raises(StoreError, match="part-000003.*part-000000"):
        ask(Run.open(run), "points_0 >= 2")


def test_a_copied_part_of_a_games_run_is_refused(games):
    copy_part(games)
    for args in (("ask", games, "score_0 > 3"), ("report", games, "--quiet")):
        assert_error(cli(*args), str(games), "rounds/part-000001.parquet",
                     "rounds/part-000000.parquet", "(game, round)")


POINTS = {      # column changed in part 1, an ask event that reads it, words of the error
    "points": ("points_0", "points_0 > 2", ["points_0 is not the sum of", "pt_cards_0",
                                            "scopas_0"]),
    "a category": ("pt_coins_1", "pt_coins_1 == 1", ["points_1 is not the sum of"]),
    "scopas": ("scopas_0", "points_1 > 2 and scopas_0 > 0", ["points_0 is not the sum"]),
}


@pytest.mark.parametrize("case", POINTS)
def test_points_that_do_not_add_up_are_refused(run, case):
    name, event, needles = POINTS[case]
    plus_one(name)(run)
    before = tree(run.parent)
    for args in (("ask", run, event), ("report", run, "--quiet")):
        assert_error(cli(*args), "part-000001", *needles)
    assert tree(run.parent) == before


@pytest.mark.parametrize("name, needles", [
    ("points_0", ["points_0 is not the sum"]),
    ("score_1", ["score_1 is not the game's points_1 so far"]),
])
def test_games_whose_scores_are_not_their_rounds_points_are_refused(games, name, needles):
    plus_one(name)(games)
    assert_error(cli("ask", games, f"{name} > 3"), "part-000001", *needles)
    assert_error(cli("report", games, "--quiet"), "part-000001", *needles)


def test_a_games_table_whose_winner_is_not_the_top_score_is_refused(games):
    part = games / "games" / "part-000002.parquet"
    rewrite_part(part, column("winner", lambda c: pc.cast(pc.subtract(pa.scalar(1, pa.int8()),
                                                                      c), pa.int8())))
    rehash(games, "games/part-000002.parquet")
    assert_error(cli("report", games, "--quiet"), "games/part-000002",
                 "winner is not the side with the top score")


def test_whole_runs_read_as_before(run, games):
    assert len(Run.open(run).read(columns=["dealer"])) == 4_000
    df = Run.open(games).read()
    assert len(Run.open(games).read("games")) == 400 and len(df) > 400


def test_a_round_repeated_within_a_part_is_refused(run):
    def repeat_one(c):
        rounds = c.to_numpy().copy()
        rounds[5] = rounds[4]
        return pa.array(rounds)
    rewrite_part(run / "rounds" / "part-000001.parquet", column("round", repeat_one))
    rehash(run, "rounds/part-000001.parquet")
    assert_error(cli("ask", run, "dealer == 0"), "rounds/part-000001.parquet",
                 "repeated or out of order")


def games_column(root, name: str, values, part: int = 2) -> None:
    path = root / "games" / f"part-{part:06d}.parquet"
    rewrite_part(path, column(name, values))
    rehash(root, f"games/part-{part:06d}.parquet")


@pytest.mark.parametrize("name, needles", [
    ("rounds", ["games/part-000002.parquet does not add up to rounds/part-000002.parquet"]),
    ("score_1", ["does not add up to rounds/part-000002"]),
    ("first_dealer", ["first_dealer is not the seat game % players"]),
])
def test_a_games_table_that_is_not_its_rounds_is_refused(games, name, needles):
    plus = {"rounds": lambda c: pc.cast(pc.add(c, 1), pa.int16()),
            "score_1": lambda c: pc.cast(pc.add(c, 1), pa.int16()),
            "first_dealer": lambda c: pc.cast(pc.subtract(pa.scalar(1, pa.int8()), c),
                                              pa.int8())}[name]
    games_column(games, name, plus)
    if name == "score_1":          # the winner still the top score's side: a tie moved up
        games_column(games, "score_0", lambda c: pc.cast(pc.add(c, 1), pa.int16()))
    assert_error(cli("report", games, "--quiet"), str(games), *needles)
    with pytest.raises(StoreError, match="part-000002"):
        Run.open(games).read("games")              # the games table alone: its rounds read too


@pytest.mark.parametrize("root", ["run", "games"])
def test_a_dealer_that_is_not_the_deals_is_refused(run, games, root):
    root = {"run": run, "games": games}[root]
    rewrite_part(root / "rounds" / "part-000001.parquet",
                 column("dealer", lambda c: pc.cast(pc.subtract(pa.scalar(1, pa.int8()), c),
                                                    pa.int8())))
    rehash(root, "rounds/part-000001.parquet")
    assert_error(cli("ask", root, "dealer == 0"), "part-000001", "dealer is not the seat")
