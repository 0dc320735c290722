"""The same runs on a Dask cluster: a real LocalCluster of worker processes
gives the bytes of the embedded thread pool, survives a worker killed in the
middle of a run (every batch stored exactly once), and resumes like a local
run."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")

import scopa_sim  # noqa: E402
from scopa_sim.engine import nets  # noqa: E402
from scopa_sim.runs import store  # noqa: E402
from scopa_sim.study.matches import compare  # noqa: E402
from scopa_sim.cli import main  # noqa: E402

RUN = ("--rounds", 60_000, "--batch-size", 5_000, "--seed", 21)      # 12 batches
GAMES = ("--games", 400, "--batch-size", 50, "--seed", 22)            # 8 batches


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result


def parts(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.glob("*/*.parquet"))}


@pytest.mark.parametrize("kind", [RUN, GAMES], ids=["rounds", "games"])
def test_a_cluster_run_is_byte_identical_to_a_local_one(tmp_path, client, kind):
    cli("simulate", "--out", tmp_path / "local", "--quiet", *kind)
    cli("simulate", "--out", tmp_path / "dask", "--quiet", *kind,
        "--scheduler", client.scheduler.address)
    assert parts(tmp_path / "dask") == parts(tmp_path / "local")


def test_the_python_api_and_compare_take_a_client(client):
    local = scopa_sim.simulate(rounds=20_000, seed=3, batch_size=4_000, workers=2)
    remote = scopa_sim.simulate(rounds=20_000, seed=3, batch_size=4_000, scheduler=client)
    assert local.equals(remote)
    a = compare("greedy", "random", seed=4, deals=6_000, batch_size=1_000, workers=1)
    b = compare("greedy", "random", seed=4, deals=6_000, batch_size=1_000, scheduler=client)
    assert a == b


def test_a_worker_killed_mid_run_loses_and_repeats_no_batch(tmp_path, client, monkeypatch):
    cli("simulate", "--out", tmp_path / "local", "--quiet", *RUN)
    saved = []
    save = store.Run.save

    def save_and_kill_once(run, b, part):
        if not saved:                                  # after the first batch: kill a worker
            pid = next(iter(client.run(os.getpid).values()))
            os.kill(pid, signal.SIGKILL)
        saved.append(b)
        save(run, b, part)
    monkeypatch.setattr(store.Run, "save", save_and_kill_once)
    cli("simulate", "--out", tmp_path / "dask", "--quiet", *RUN,
        "--scheduler", client.scheduler.address)
    assert saved == list(range(12))                    # each batch once, in order
    assert parts(tmp_path / "dask") == parts(tmp_path / "local")
    client.wait_for_workers(2, timeout=60)             # the nanny restarted it


def test_a_run_started_on_the_cluster_resumes(tmp_path, client):
    cli("simulate", "--out", tmp_path / "local", "--quiet", *RUN)
    root = tmp_path / "dask"
    cli("simulate", "--out", root, "--quiet", *RUN, "--scheduler", client.scheduler.address)
    for b in (0, 5, 11):                               # what a kill leaves behind
        (root / "rounds" / f"part-{b:06d}.parquet").unlink()
    m = json.loads((root / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps({**m, "finished": False}))
    cli("simulate", "--resume", root, "--quiet", "--scheduler", client.scheduler.address)
    assert parts(root) == parts(tmp_path / "local")
    assert json.loads((root / "manifest.json").read_text())["finished"] is True


def test_a_local_cluster_for_one_command(tmp_path):
    cli("simulate", "--out", tmp_path / "local", "--quiet", *GAMES)
    cli("simulate", "--out", tmp_path / "dask", "--quiet", *GAMES, "--cluster", "local:2")
    assert parts(tmp_path / "dask") == parts(tmp_path / "local")


def test_a_user_strategy_that_cannot_load_on_the_cluster_is_one_error(tmp_path, client):
    """A task's strategy is loaded by the worker that runs it, not by the
    scheduler: a file changed since the run began is the task's error, the
    one-line UserStrategyError, not a task graph the scheduler cannot read."""
    from scopa_sim.engine.strategies import parse_strategy
    path = tmp_path / "mine.py"
    path.write_text(Path("docs/examples/greedy_jit.py").read_text())
    mine = parse_strategy(f"{path}:greedy")
    path.write_text(path.read_text() + "# changed\n")
    with pytest.raises(ValueError, match=r"mine.py has changed since the run began"):
        scopa_sim.simulate(rounds=100, strategies=(mine, "greedy"), scheduler=client)


@pytest.mark.slow                                  # training: compiles the self-play kernels
def test_a_training_on_the_cluster_makes_the_network_made_here(tmp_path, client):
    """`train --scheduler` (issue 45): the targets are made on the cluster
    and the network is the one the cores here make, bit for bit; each
    generation's teacher plays a network named by a path on this machine,
    which reaches the workers as its arrays."""
    pytest.importorskip("torch")
    from scopa_sim.study import train as T
    settings = T.Settings(samples=1200, chunk=8, replay=2, passes=1.0, batch=64,
                          hidden=(16, 8), check=20, check_every=1, worlds=2, generation=1,
                          teacher="pimc:leaf=net,depth=2,samples=2")
    here = T.train(tmp_path / "here", settings, workers=1)
    there = T.train(tmp_path / "there", settings, workers=1, scheduler=client)
    assert here["chunk"] >= 3 and (tmp_path / "there" / "gen-2.npz").is_file()
    assert [c["margin"] for c in here["curve"]] == [c["margin"] for c in there["curve"]]
    a, b = (nets.load(tmp_path / side / T.NET) for side in ("here", "there"))
    for x, y in zip(a.arrays, b.arrays):
        np.testing.assert_array_equal(x, y)
