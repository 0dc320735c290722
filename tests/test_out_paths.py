"""Every command's --out (and play's --record) is checked before any work:
"" is refused when parsed, and a place that cannot be written (a folder
that takes no file, a path under a file) is one `error:` line naming the
path as the user gave it, never a temporary file; nothing is written. And
errors advise only what their command has (issue 37, part 5)."""
from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from hostile import RUN, assert_error, cli, tree

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples"

# command line with OUT where the path goes, and whether OUT is a folder
COMMANDS = {
    "simulate": (["simulate", "--rounds", 100, "--out", "OUT"], True),
    "almanac": (["almanac", "--quick", "--out", "OUT"], True),
    "deals": (["deals", "RUN", "--out", "OUT"], True),
    "train": (["train", "--samples", 10, "--out", "OUT"], True),
    "report": (["report", "RUN", "--out", "OUT.md"], False),
    "plot": (["plot", "RUN", "--out", "OUT.png"], False),
    "values": (["values", "RUN", "--out", "OUT.png"], False),
    "odds": (["odds", "--rounds", 1000, "--out", "OUT.png"], False),
    "record": (["record", "RUN", "--round", 3, "--out", "OUT.scopa"], False),
    "review": (["review", EXAMPLE / "seed-003.scopa", "--out", "OUT.html"], False),
    "play": (["play", "--record", "OUT.scopa"], False),
}


@pytest.fixture
def nothing_done(nothing_computed, monkeypatch):
    """`nothing_computed`, and running a review or the almanac fails the test too."""
    def fail(*args, **kwargs):
        raise AssertionError("work done before the refusal")
    monkeypatch.setattr("scopa_sim.study.review.review", fail)
    monkeypatch.setattr("scopa_sim.study.almanac.make", fail)


def words(command: str, run: Path, out: str) -> list:
    args, _ = COMMANDS[command]
    return [str(run) if a == "RUN" else str(a).replace("OUT", out) if "OUT" in str(a) else a
            for a in args]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_out_is_refused(made, command, nothing_done, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = [("" if "OUT" in str(a) else a) for a in words(command, made, "OUT")]
    assert_error(cli(*args), "'' is no path")
    assert list(tmp_path.iterdir()) == []


PLACES = {      # where the output goes, words of the error (OUT: the path given)
    "under a file": ("a_file/sub/x", ["cannot", "OUT", "a_file is a file, not a folder"]),
    "a folder that takes no file": ("/proc/scopa-sim-test/x", ["cannot", "OUT",
                                                               "takes no new file"]),
    "under a link to nothing": ("dangling/x", ["cannot", "OUT", "symbolic link to nothing"]),
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("command", COMMANDS)
def test_an_unwritable_out_is_refused_before_any_work(made, command, place, nothing_done,
                                                      tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a_file").write_text("a file")
    Path("dangling").symlink_to(tmp_path / "nowhere")
    before = tree(tmp_path)
    out, needles = PLACES[place]
    args = words(command, made, out)
    given = next(str(a) for a in args if str(a).startswith(out))
    result = cli(*args)
    assert_error(result, *[given if n == "OUT" else n for n in needles])
    assert ".tmp" not in result.stderr
    assert tree(tmp_path) == before


def test_a_write_that_fails_names_the_users_file_not_a_temporary(tmp_path):
    from scopa_sim.runs.parts import write_whole
    with pytest.raises(OSError) as e:
        write_whole(b"x", tmp_path / "none" / "game.scopa")
    assert e.value.filename == str(tmp_path / "none" / "game.scopa")


# ---- advice: only what the command has --------------------------------------------
def test_record_of_a_user_strategy_run_advises_replaying_not_resuming(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text((EXAMPLE / "greedy_jit.py").read_text())
    root = tmp_path / "run"
    assert cli("simulate", "--out", root, "--quiet", *RUN, "--strategies",
               f"{mine}:greedy,counter").exit_code == 0
    result = cli("record", root, "--round", 3)
    assert_error(result, "replaying it runs their code", "--strategy-file")
    assert "resum" not in result.stderr


def test_the_almanac_advises_no_option_it_lacks(tmp_path, monkeypatch):
    from scopa_sim.study import almanac
    from scopa_sim.runs.plan import RunSpec
    root = tmp_path / "alm" / "runs" / "x"
    root.mkdir(parents=True)
    (root / "junk").write_text("mine")
    spec = RunSpec.make(rounds=10, strategies=("random", "random"), rules="scopa", seed=1)
    with pytest.raises(ValueError) as e:
        almanac.ensure_run(root, spec)
    assert "--out" in str(e.value)
    assert "--resume" not in str(e.value) and "--overwrite" not in str(e.value)
    assert (root / "junk").read_text() == "mine"


@pytest.mark.parametrize("extra, needle", [([], "already exists"),
                                           (["--overwrite"], "not a scopa-sim run")])
def test_simulate_into_a_folder_not_its_own_is_refused_before_workers_start(
        tmp_path, monkeypatch, extra, needle):
    def fail(*args, **kwargs):
        raise AssertionError("workers started before the refusal")
    monkeypatch.setattr("scopa_sim.runs.executors.executor", fail)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    assert_error(cli("simulate", "--rounds", 100, "--out", tmp_path / "mine", "--quiet", *extra),
                 str(tmp_path / "mine"), needle)
    assert tree(tmp_path) == before


def test_play_advises_its_own_record_option(made):
    result = cli("play", "--record", made / "game.scopa")
    assert_error(result, "inside the scopa-sim run", "--record")
    assert "--out" not in result.stderr


def test_trains_files_are_named_as_themselves_when_a_write_fails(tmp_path):
    from scopa_sim.study.train import _atomic
    (tmp_path / "curve.csv").mkdir()                 # os.replace onto a folder fails
    with pytest.raises(OSError) as e:
        _atomic(tmp_path / "curve.csv", b"x")
    assert e.value.filename == str(tmp_path / "curve.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.csv"]      # no temporary left


@pytest.mark.parametrize("command", COMMANDS)
def test_an_out_inside_a_run_is_refused_before_any_work(run, command, nothing_done):
    before = tree(run)
    args = words(command, run, str(run / "sub" / "x"))
    assert_error(cli(*args), "inside the scopa-sim run", "--record" if command == "play"
                 else "--out")
    assert tree(run) == before


@pytest.mark.parametrize("command", [c for c, (_, folder) in COMMANDS.items() if not folder])
def test_overwrite_never_writes_through_a_link(made, command, nothing_done, tmp_path,
                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("precious").write_text("mine")
    args = words(command, made, "link")
    given = next(str(a) for a in args if str(a).startswith("link"))
    Path(given).symlink_to(tmp_path / "precious")
    assert_error(cli(*args, "--overwrite"), given, "symbolic link")
    assert Path("precious").read_text() == "mine" and Path(given).is_symlink()


def test_a_damaged_almanac_run_advises_the_almanac_again(made, tmp_path):
    import shutil

    from scopa_sim.runs.plan import RunSpec
    from scopa_sim.runs.store import StoreError
    from scopa_sim.study import almanac
    root = tmp_path / "alm" / "runs" / "r"
    shutil.copytree(made, root)
    (root / "rounds" / "part-000001.parquet").write_bytes(b"damaged")
    spec = RunSpec.make(rounds=4_000, strategies="random,greedy", seed=3, batch_size=1_000)
    run = almanac.ensure_run(root, spec)           # finished: opened, read when its section is
    with pytest.raises(StoreError) as e:
        run.read(columns=["dealer"])
    assert "run the almanac again" in str(e.value) and "--resume" not in str(e.value)


SPECIAL = {     # a path that is there and is no regular file: how to make it, the error's words
    "FIFO": (lambda p: os.mkfifo(p), "a named pipe (FIFO)"),
    "socket": (lambda p: socket.socket(socket.AF_UNIX).bind(str(p)), "a socket"),
}


@pytest.mark.parametrize("overwrite", [False, True], ids=["", "overwrite"])
@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("command", [c for c, (_, folder) in COMMANDS.items() if not folder])
def test_only_regular_files_are_ever_replaced(made, command, kind, overwrite, nothing_done,
                                              tmp_path, monkeypatch):
    """A FIFO or a socket where a file goes is refused, with --overwrite too, and
    stays what it was (issue 49: `record --out myfifo --overwrite` made it a file)."""
    monkeypatch.chdir(tmp_path)
    args = words(command, made, "special")
    given = next(str(a) for a in args if str(a).startswith("special"))
    make, what = SPECIAL[kind]
    make(tmp_path / given)
    mode = os.lstat(given).st_mode
    assert_error(cli(*args, *(["--overwrite"] if overwrite else [])), given, what)
    assert os.lstat(given).st_mode == mode


@pytest.mark.parametrize("command", ["play", "record"])
def test_a_device_is_never_replaced_nor_written_through(made, command, nothing_done):
    """`play --record /dev/null --overwrite` as root would have replaced the system's
    /dev/null with a file."""
    args = [a if not str(a).startswith("OUT") else "/dev/null" for a in COMMANDS[command][0]]
    args = [str(made) if a == "RUN" else a for a in args]
    assert_error(cli(*args, "--overwrite"), "/dev/null", "a character device")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
