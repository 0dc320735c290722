"""scopa-sim train at a tiny size: it runs to completion, its network loads
and plays, and a training stopped and resumed goes on with the same numbers."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow              # training: compiles the self-play kernels

import scopa_sim                                        # noqa: E402
from scopa_sim.cli import main                          # noqa: E402
from scopa_sim.engine import nets                       # noqa: E402
from scopa_sim.study import train as T                  # noqa: E402
import net_reference as R                               # noqa: E402

TINY = dict(samples=3000, chunk=40, replay=2, passes=1.0, batch=64, hidden=(16, 8), check=20,
            check_every=1, worlds=2)


def test_a_tiny_training_runs_to_completion_and_its_network_plays(tmp_path):
    out = tmp_path / "net"
    state = T.train(out, T.Settings(**TINY), workers=1)
    assert state["samples"] >= 3000 and state["chunk"] >= 2
    for name in (T.NET, T.CHECKPOINT, T.CURVE, T.CHART, T.SETTINGS):
        assert (out / name).is_file(), name
    curve = (out / T.CURVE).read_text().splitlines()
    assert curve[0] == ",".join(T.CURVE_FIELDS) and len(curve) == 1 + state["chunk"]
    w = nets.load(out / T.NET)
    assert w.shape == (16, 8) and w.meta["preset"] == "scopa"
    df = scopa_sim.simulate(20, strategies=f"net:weights={out / T.NET},random", seed=1)
    assert len(df) == 20


def test_training_stopped_and_resumed_goes_on_with_the_same_numbers(tmp_path):
    whole = T.train(tmp_path / "whole", T.Settings(**TINY), workers=1)

    class Stop(Exception):
        pass

    def stop_after_first(state):
        if state["chunk"] == 1:
            raise Stop
    with pytest.raises(Stop):
        T.train(tmp_path / "cut", T.Settings(**TINY), workers=1, progress=stop_after_first)
    resumed = T.train(tmp_path / "cut", resume=True, workers=1)
    assert resumed["samples"] == whole["samples"] and resumed["chunk"] == whole["chunk"]
    a, b = nets.load(tmp_path / "whole" / T.NET), nets.load(tmp_path / "cut" / T.NET)
    for x, y in zip(a.arrays, b.arrays):
        np.testing.assert_array_equal(x, y)
    assert [r["margin"] for r in resumed["curve"]] == [r["margin"] for r in whole["curve"]]


def test_a_folder_is_refused_in_one_line(tmp_path):
    (tmp_path / "mine.txt").write_text("mine")
    with pytest.raises(T.TrainError, match="other files"):
        T.train(tmp_path, T.Settings(**TINY))
    assert (tmp_path / "mine.txt").read_text() == "mine"
    with pytest.raises(T.TrainError, match="no training to resume"):
        T.train(tmp_path / "new", resume=True)
    with pytest.raises(T.TrainError, match="budget"):
        T.Settings()
    with pytest.raises(T.TrainError, match="folder of its own"):
        T.train("", T.Settings(**TINY))


def test_resume_refuses_other_settings(tmp_path):
    out = tmp_path / "net"
    (out).mkdir()
    (out / T.SETTINGS).write_text(json.dumps({**TINY, "hidden": [16, 8], "seed": 1}))
    with pytest.raises(T.TrainError, match="other settings"):
        T.train(out, T.Settings(**{**TINY, "seed": 2}), resume=True)


def test_the_command_line_trains_and_refuses_an_existing_training(tmp_path):
    out = tmp_path / "cli"
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--samples", "500", "--chunk",
                                    "30", "--check", "0", "--quiet"])
    assert res.exit_code == 0, res.output
    assert (out / T.NET).is_file()
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--samples", "500"])
    assert res.exit_code == 2 and "--resume" in res.output


def test_a_damaged_checkpoint_is_one_line(tmp_path):
    out = tmp_path / "net"
    T.train(out, T.Settings(**{**TINY, "samples": 100}), workers=1)
    (out / T.CHECKPOINT).write_bytes(b"not a checkpoint")
    with pytest.raises(T.TrainError, match="damaged"):
        T.train(out, resume=True, workers=1)


def test_resume_reads_its_settings_from_the_folder_and_names_one_that_differs(tmp_path):
    """Issue 49: `--resume` demanded every original option again ("other settings
    (chunk)"); now the folder's are used, a larger budget is taken, and an option
    given that differs is refused, named."""
    out = tmp_path / "cli"
    args = ["train", "--out", str(out), "--chunk", "30", "--check", "0", "--quiet"]
    assert CliRunner().invoke(main, [*args, "--samples", "300"]).exit_code == 0
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--resume", "--samples", "600",
                                    "--quiet"])
    assert res.exit_code == 0, res.output
    assert json.loads((out / T.SETTINGS).read_text())["samples"] == 600
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--resume", "--samples", "900",
                                    "--chunk", "40", "--seed", "1"])
    assert res.exit_code == 2
    assert "chunk 40 (it was started with 30)" in res.output and "seed" not in res.output


def test_a_failed_resume_writes_nothing(tmp_path):
    out = tmp_path / "net"
    T.train(out, T.Settings(**{**TINY, "samples": 100}), workers=1)
    (out / T.CHECKPOINT).write_bytes(b"not a checkpoint")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--resume", "--samples", "5000"])
    assert res.exit_code == 2 and "damaged" in res.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_compiling_shows_on_the_progress_line(tmp_path, monkeypatch):
    """Issue 49: the smallest training took minutes, nearly all compiling, with no
    word of it. (The cache is warm here: whether it compiles is asked of Numba's
    cache, `engine.compiled.training_needs_compile`, and answered True.)"""
    from scopa_sim.engine import compiled
    assert compiled.training_needs_compile() in (True, False)
    monkeypatch.setattr(compiled, "training_needs_compile", lambda: True)
    res = CliRunner().invoke(main, ["train", "--out", str(tmp_path / "n"), "--samples", "100",
                                    "--chunk", "30", "--check", "0"])
    assert res.exit_code == 0, res.output
    assert "train: compiling the self-play kernels first (first run only: minutes)" in res.stderr


def test_a_teacher_makes_the_targets_and_a_start_network_is_where_the_learner_begins(tmp_path):
    """Expert iteration (issue 45): `--teacher` (a pimc or spimc search) values the
    moves, `--start` sets the learner's first weights (at a learning rate
    too small to move them, they come out unchanged), and `--generation`
    hands each generation's teacher the network of the one before."""
    first = tmp_path / "first"
    T.train(first, T.Settings(**{**TINY, "samples": 200}), workers=1)
    taught = tmp_path / "taught"
    settings = T.Settings(**{**TINY, "samples": 400, "lr": 1e-12, "start": str(first / T.NET),
                             "teacher": "pimc:rollout=greedy,samples=2"})
    T.train(taught, settings, workers=1)
    for a, b in zip(nets.load(first / T.NET).arrays, nets.load(taught / T.NET).arrays):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert settings.teaching(0, taught) == "pimc:samples=2,rollout=greedy"
    gen = T.Settings(**{**TINY, "generation": 2, "teacher": "pimc:leaf=net,samples=2"})
    assert gen.teaching(3, taught) == f"pimc:samples=2,leaf=net,weights={taught / 'gen-3.npz'}"
    gen = T.Settings(**{**TINY, "generation": 2, "teacher": "spimc:leaf=net,samples=2"})
    assert gen.teaching(1, taught) == f"spimc:samples=2,leaf=net,weights={taught / 'gen-1.npz'}"


def forward(arrays, x):
    """The network's values of the rows of x (the reference's forward pass)."""
    return np.array([R.value(arrays, row) for row in x])


def test_a_narrower_start_is_widened_to_the_same_function(tmp_path):
    """--hidden wider than the --start network: Net2Net, the same values,
    the copies' outgoing weights split unequally (training tells them apart);
    the training then starts from it (a learning rate too small to move it)."""
    shipped = nets.shipped().arrays
    wide = T.widened(shipped, (300, 150), np.random.default_rng(1))
    assert [a.shape for a in wide] == [(shipped[0].shape[0], 300), (300,), (300, 150), (150,),
                                       (150,), shipped[5].shape]
    x = np.random.default_rng(2).uniform(0, 1, (200, shipped[0].shape[0])).astype(np.float32)
    np.testing.assert_allclose(forward(wide, x), forward(shipped, x), rtol=1e-4, atol=1e-4)
    assert len({round(float(v), 6) for v in wide[4]}) > 140      # no two copies alike
    first = tmp_path / "first"
    T.train(first, T.Settings(**{**TINY, "samples": 200}), workers=1)
    grown = tmp_path / "grown"
    T.train(grown, T.Settings(**{**TINY, "samples": 200, "lr": 1e-12, "hidden": (24, 12),
                                 "start": str(first / T.NET)}), workers=1)
    before, after = nets.load(first / T.NET).arrays, nets.load(grown / T.NET).arrays
    assert nets.load(grown / T.NET).shape == (24, 12)
    np.testing.assert_allclose(forward(after, x), forward(before, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("options, message", [
    (["--teacher", "netsearch"], "--teacher is a pimc or spimc search"),
    (["--teacher", "pimc:samples=x"], "--teacher: parameter samples"),
    (["--teacher", f"pimc:weights={nets.shipped_path()}", "--generation", "2"],
     "leave its weights out"),
    (["--start", "missing.npz"], "--start"),
    (["--hidden", "16"], "--hidden"),
    (["--hidden", "16,x"], "--hidden"),
    (["--start", "shipped", "--hidden", "128,64"], "wider than the training's 128x64"),
    (["--teacher", "pimc:rollout=docs/examples/greedy_jit.py:greedy"], "built-in strategies only"),
])
def test_a_bad_teacher_or_start_is_one_line_and_writes_nothing(tmp_path, options, message):
    out = tmp_path / "n"
    res = CliRunner().invoke(main, ["train", "--out", str(out), "--samples", "100", *options])
    assert res.exit_code == 2 and message in res.output, res.output
    assert res.output.count("\n") == 1, res.output       # nothing drawn before it
    assert not out.exists()


def test_the_ranking_loss_is_each_decisions_cross_entropy_of_softmaxes():
    """`ranking` against a plain per-decision computation (float64)."""
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 7, 20)
    group = torch.from_numpy(np.repeat(np.arange(20), sizes))
    v, y = (rng.normal(size=sizes.sum()).astype(np.float32) for _ in range(2))
    got = float(T.ranking(torch.from_numpy(v), torch.from_numpy(y), group, 20, 0.25, torch))
    want = 0.0
    for d in range(20):
        mine, theirs = v[group.numpy() == d] / 0.25, y[group.numpy() == d] / 0.25
        q = np.exp(theirs - theirs.max()) / np.exp(theirs - theirs.max()).sum()
        want -= (q * (mine - mine.max() - np.log(np.exp(mine - mine.max()).sum()))).sum()
    assert got == pytest.approx(want / 20, rel=1e-5)
