"""The `scopa-sim` command line, `simulate` above all: reproducible across
worker counts, resumable after a kill, one-line errors with exit code 2 and
nothing left behind, the manifest and part metadata round-trip, `--help` on
every command, `--format json`, `--quiet`.

Most tests drive `scopa_sim.cli.main` in-process with click's CliRunner (the
kernels are compiled and cached by the session fixture in conftest.py); only
the interrupt tests start a real process, to send it a real signal.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import scopa_sim
from scopa_sim.cli import main
from scopa_sim.engine.rules import PRESETS, Rules
from scopa_sim.runs.plan import RunSpec
from scopa_sim.runs.sources import runnable
from scopa_sim.runs.parts import META_KEY
from scopa_sim.runs.plan import StoredSpec, spec_dict
from scopa_sim.runs.store import MANIFEST, Run
from scopa_sim.engine.strategies import REGISTRY


# ---- helpers -------------------------------------------------------------
def cli(*args, ok: bool = True):
    """Run `scopa-sim ARGS` in-process; a traceback fails the test, not exit 1."""
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.stderr
    return result


def simulate(out: Path, *args, ok: bool = True):
    return cli("simulate", "--out", out, "--quiet", *args, ok=ok)


def parts(root: Path) -> dict[str, bytes]:
    """Every Parquet part of a run, by its path inside the run."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(Path(root).glob("*/*.parquet"))}


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under root (files with their bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(Path(root).rglob("*"))}


def manifest(root: Path) -> dict:
    return json.loads((Path(root) / MANIFEST).read_text())


ROUNDS = ("--rounds", 24_000, "--batch-size", 3_000, "--seed", 11)   # 8 parts
GAMES = ("--games", 160, "--batch-size", 20, "--seed", 12)             # 8 parts
KILL = ("--rounds", 300_000, "--batch-size", 5_000, "--seed", 7)       # 60 parts


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A small finished rounds run, shared (read-only) by several tests."""
    root = tmp_path_factory.mktemp("finished") / "run"
    simulate(root, "--rounds", 4_000, "--batch-size", 1_000, "--seed", 3)
    return root


# ---- reproducible --------------------------------------------------------
@pytest.mark.parametrize("kind", [ROUNDS, GAMES], ids=["rounds", "games"])
def test_one_and_two_workers_write_byte_identical_parts(tmp_path, kind):
    simulate(tmp_path / "w1", *kind, "--workers", 1)
    simulate(tmp_path / "w2", *kind, "--workers", 2)
    one, two = parts(tmp_path / "w1"), parts(tmp_path / "w2")
    tables = ("rounds", "games") if "--games" in kind else ("rounds",)
    assert sorted(one) == sorted(f"{t}/part-{b:06d}.parquet" for t in tables for b in range(8))
    assert one == two
    m1, m2 = manifest(tmp_path / "w1"), manifest(tmp_path / "w2")
    assert (m1["workers"], m2["workers"]) == (1, 2)
    volatile = ("created", "elapsed_seconds", "workers")
    assert ({k: v for k, v in m1.items() if k not in volatile}
            == {k: v for k, v in m2.items() if k not in volatile})


def test_parts_hold_the_rows_of_the_library_simulation(tmp_path):
    simulate(tmp_path / "run", *ROUNDS, "--workers", 2)
    on_disk = Run.open(tmp_path / "run").read()
    expected = scopa_sim.simulate(rounds=24_000, strategies=("random", "greedy"), seed=11,
                                  batch_size=5_000)
    assert list(on_disk["rules"].astype(str).unique()) == ["scopa"]
    assert list(on_disk["strategy_0"].astype(str).unique()) == ["random"]
    assert list(on_disk["strategy_1"].astype(str).unique()) == ["greedy"]
    pd.testing.assert_frame_equal(on_disk[list(expected.columns)], expected)


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    simulate(tmp_path / "a", "--rounds", 3_000, "--seed", 5)
    simulate(tmp_path / "b", "--rounds", 3_000, "--seed", 5)
    simulate(tmp_path / "c", "--rounds", 3_000, "--seed", 6)
    assert parts(tmp_path / "a") == parts(tmp_path / "b") != parts(tmp_path / "c")


# ---- resumable -----------------------------------------------------------
@pytest.mark.parametrize("kind, how", [(ROUNDS, "cli"), (GAMES, "cli"), (ROUNDS, "python")],
                         ids=["rounds", "games", "python"])
def test_resume_after_a_crash_equals_an_uninterrupted_run(tmp_path, kind, how):
    """From the command line, and from Python (`scopa_sim.resume`)."""
    simulate(tmp_path / "whole", *kind, "--workers", 2)
    crashed = tmp_path / "crashed"
    simulate(crashed, *kind, "--workers", 1)
    # What a kill at a bad moment leaves: some batches missing, a games part
    # without its rounds part, a half-written temporary, an unfinished manifest.
    for b in (1, 4, 7):
        (crashed / "rounds" / f"part-{b:06d}.parquet").unlink()
    (crashed / "rounds" / ".part-000004.parquet.tmp").write_bytes(b"PAR1 half")
    m = manifest(crashed)
    m["finished"] = False
    (crashed / MANIFEST).write_text(json.dumps(m))
    assert list(Run.open(crashed).missing_batches()) == [1, 4, 7]

    if how == "cli":
        summary = json.loads(cli("simulate", "--resume", crashed, "--quiet", "--format",
                                 "json").stdout)
    else:
        summary = scopa_sim.resume(crashed, workers=2)
    assert parts(crashed) == parts(tmp_path / "whole")
    assert not list(crashed.rglob("*.tmp"))
    assert manifest(crashed)["finished"] is True
                                                           # the summary covers all batches
    assert summary["rounds"] == len(Run.open(crashed).read(columns=["round"]))
    assert summary["rounds_run"] < summary["rounds"]       # ... but only 3 were simulated


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_exits_130_or_143_and_resume_completes_the_run(tmp_path, sig, whole_kill_run):
    root = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "scopa_sim.cli", "simulate", "--out", root,
                             "--workers", "1", *map(str, KILL)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while len(list((root / "rounds").glob("part-*.parquet"))) < 2:
            assert proc.poll() is None, f"exited early: {proc.communicate()}"
            assert time.monotonic() < deadline, "no part files after 60 s"
            time.sleep(0.002)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == (130 if sig == signal.SIGINT else 143), stderr
    assert "Traceback" not in stderr
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    last = stderr.splitlines()[-1]
    assert last.startswith(word) and f"--resume {root}" in last
    assert stdout == ""                                     # no summary of a partial run
    assert manifest(root)["finished"] is False
    assert not list(root.rglob("*.tmp"))
    saved = parts(root)
    assert 2 <= len(saved) < 60
    for name in saved:                                      # every part is whole
        assert pq.read_table(root / name).num_rows == 5_000

    cli("simulate", "--resume", root, "--quiet", "--workers", 2)
    assert manifest(root)["finished"] is True
    assert parts(root) == whole_kill_run


@pytest.fixture(scope="module")
def whole_kill_run(tmp_path_factory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("whole") / "run"
    simulate(root, *KILL, "--workers", 2)
    return parts(root)


def test_resume_of_a_finished_run_changes_no_part(finished_run, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(finished_run, root)
    before = parts(root)
    cli("simulate", "--resume", root, "--quiet")
    assert parts(root) == before and manifest(root)["finished"] is True


def test_resume_of_a_finished_run_says_it_is_complete_and_shows_its_summary(finished_run,
                                                                            tmp_path):
    """Issue 28: it printed '0 simulated in 0.00 s (0 rounds/s)'."""
    fresh = json.loads(cli("simulate", "--resume", finished_run, "-q", "--format", "json").stdout)
    assert fresh["already_complete"] is True and fresh["rounds"] == 4_000
    out = cli("simulate", "--resume", finished_run, "--quiet").stdout
    assert "already complete" in out and "round win rate" in out and "4,000 rounds" in out
    assert "0 simulated" not in out and "rounds/s" not in out
    first = json.loads(cli("simulate", "--out", tmp_path / "again", "--rounds", 4_000,
                           "--batch-size", 1_000, "--seed", 3, "-q", "--format", "json").stdout)
    assert first["already_complete"] is False
    assert first["sides"] == fresh["sides"]                     # the summary is the run's


def test_overwrite_replaces_the_whole_run(tmp_path):
    simulate(tmp_path / "run", "--rounds", 8_000, "--batch-size", 1_000, "--seed", 1)
    simulate(tmp_path / "run", "--rounds", 3_000, "--batch-size", 1_000, "--seed", 2,
             "--overwrite")
    simulate(tmp_path / "fresh", "--rounds", 3_000, "--batch-size", 1_000, "--seed", 2)
    assert parts(tmp_path / "run") == parts(tmp_path / "fresh")     # no stale parts
    assert manifest(tmp_path / "run")["seed"] == 2


def test_default_output_folder_is_named_after_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("simulate", "--rounds", 100, "--seed", 9, "--strategies", "greedy,random")
    root = Path("runs/greedy-vs-random-scopa-r100-s9")
    assert Run.open(root).manifest["finished"] is True
    assert str(root) in result.stderr


def test_a_fresh_seed_is_chosen_and_printed(tmp_path):
    root = tmp_path / ("a long folder name [with brackets] " * 3).strip()
    result = cli("simulate", "--out", root, "--rounds", 100, "--format", "json")
    seed = manifest(root)["seed"]
    assert 0 <= seed < 2**64
    assert json.loads(result.stdout)["seed"] == seed
    assert f"run {root}  seed {seed}  100 rounds" in result.stderr   # verbatim, one line


# ---- bad input -----------------------------------------------------------
BAD = [
    # (arguments after `simulate`, what the message must say)
    (["--rounds", 10, "--strategies", "foo,greedy"], ["unknown strategy 'foo'", *REGISTRY]),
    (["--rounds", 10, "--strategies", "random,greedy:foo=1"], ["no parameter 'foo'", "scopa"]),
    (["--rounds", 10, "--strategies", "random,greedy:scopa=x"], ["needs a number"]),
    (["--rounds", 10, "--rules", "nope"], ["unknown rules preset 'nope'", *PRESETS]),
    (["--rounds", 0], ["number of rounds", "positive"]),
    (["--rounds", -5], ["number of rounds", "positive"]),
    (["--games", 0], ["number of games", "positive"]),
    (["--games", -1], ["number of games", "positive"]),
    (["--rounds", "1e6"], ["--rounds", "not a valid integer"]),
    (["--rounds", 10, "--seed", "abc"], ["--seed", "0..2**64-1"]),
    (["--rounds", 10, "--seed", -1], ["--seed", "0..2**64-1"]),
    (["--rounds", 10, "--seed", 2**64], ["--seed", "0..2**64-1"]),
    (["--rounds", 10, "--seed", "1.5"], ["--seed", "0..2**64-1"]),
    (["--rounds", 10, "--seed", ""], ["--seed", "0..2**64-1"]),
    (["--rounds", 10, "--games", 10], ["--rounds and --games"]),
    ([], ["--rounds N or --games N"]),
    (["--rounds", 10, "--workers", 0], ["--workers"]),
    (["--rounds", 10, "--workers", -2], ["--workers"]),
    (["--rounds", 10, "--batch-size", 0], ["batch size", "positive"]),
    (["--rounds", 10, "--batch-size", -1], ["batch size", "positive"]),
    (["--rounds", 10, "--rule", "target"], ["target must be a whole number"]),
    (["--rounds", 10, "--rule", "foo=1"], ["unknown rule option", "foo"]),
    (["--rounds", 10, "--rule", "target=0"], ["bad rules", "target"]),
    (["--rounds", 10, "--rule", "target=x"], ["rule value 'x'"]),
    (["--rounds", 10, "--rule", "napola=1", "--rule", "napola=0"], ["napola", "given twice"]),
    (["--rounds", 10, "--format", "xml"], ["--format", "xml"]),
    (["--rounds", 10, "--bogus"], ["--bogus"]),
]


def assert_one_line_error(result, *needles):
    assert result.exit_code == 2, (result.exit_code, result.stderr, result.stdout)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    for needle in needles:
        assert str(needle) in lines[0], (needle, lines[0])


@pytest.mark.parametrize("args, needles", BAD, ids=[" ".join(map(str, a)) or "no count"
                                                    for a, _ in BAD])
def test_bad_input_is_one_error_line_exit_2_and_nothing_written(tmp_path, monkeypatch,
                                                                args, needles):
    monkeypatch.chdir(tmp_path)          # where the default output folder would go
    result = cli("simulate", "--out", "out", *args, ok=False)
    assert_one_line_error(result, *needles)
    assert tree(tmp_path) == {}


def test_an_existing_output_folder_is_refused_and_untouched(finished_run, tmp_path):
    before = tree(finished_run)
    result = simulate(finished_run, "--rounds", 100, "--seed", 1, ok=False)
    assert_one_line_error(result, "already exists", "--overwrite", "--resume")
    assert tree(finished_run) == before


def test_overwrite_never_deletes_a_folder_that_is_not_a_run(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("precious")
    before = tree(tmp_path)
    result = simulate(tmp_path / "mine", "--rounds", 100, "--overwrite", ok=False)
    assert_one_line_error(result, "not a scopa-sim run")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("out, needle", [("a_file", "is a file"),
                                         ("a_file/sub", "cannot create"),
                                         ("/proc/scopa-sim-test", "cannot create")])
def test_an_unwritable_output_folder_is_refused(tmp_path, out, needle):
    (tmp_path / "a_file").write_text("not a folder")
    before = tree(tmp_path)
    result = simulate(tmp_path / out if not out.startswith("/") else out, "--rounds", 100,
                      ok=False)
    assert_one_line_error(result, needle)
    assert tree(tmp_path) == before


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_a_read_only_parent_folder_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        result = simulate(locked / "run", "--rounds", 100, ok=False)
        assert_one_line_error(result, "cannot create")
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize("extra, dropped", [
    (["--rounds", 10], "--rounds"), (["--games", 10], "--games"), (["--seed", 1], "--seed"),
    (["--strategies", "greedy,greedy"], "--strategies"), (["--rules", "scopa"], "--rules"),
    (["--rule", "target=21"], "--rule"), (["--batch-size", 10], "--batch-size"),
    (["--out", "elsewhere"], "--out"), (["--overwrite"], "--overwrite")])
def test_resume_refuses_run_options(finished_run, tmp_path, monkeypatch, extra, dropped):
    monkeypatch.chdir(tmp_path)
    before = tree(finished_run)
    result = cli("simulate", "--resume", finished_run, *extra, ok=False)
    assert_one_line_error(result, "--resume", dropped)
    assert tree(finished_run) == before and tree(tmp_path) == {}


def test_resume_needs_a_run(tmp_path):
    result = cli("simulate", "--resume", tmp_path / "nowhere", ok=False)
    assert_one_line_error(result, "not a scopa-sim run")
    (tmp_path / "empty").mkdir()
    result = cli("simulate", "--resume", tmp_path / "empty", ok=False)
    assert_one_line_error(result, "not a scopa-sim run")
    assert tree(tmp_path) == {"empty": None}


@pytest.mark.parametrize("text", ["{not json", "{}", '{"rules": {}, "strategies": []}'])
def test_resume_of_a_corrupt_manifest_is_refused(finished_run, tmp_path, text):
    root = tmp_path / "run"
    shutil.copytree(finished_run, root)
    (root / MANIFEST).write_text(text)
    before = tree(root)
    result = cli("simulate", "--resume", root, ok=False)
    assert_one_line_error(result, "corrupt")
    assert tree(root) == before


def test_the_installed_command_reports_errors_the_same_way(tmp_path):
    script = Path(sys.executable).with_name("scopa-sim")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "scopa_sim.cli"]
    proc = subprocess.run([*command, "simulate", "--rounds", "0", "--out", "out"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["error: the number of rounds must be a positive "
                                        "whole number at most 10,000,000,000,000, not 0"]
    assert proc.stdout == "" and list(tmp_path.iterdir()) == []


# ---- manifest and part metadata ------------------------------------------
SPECS = {
    "rounds": (["--rounds", 5_000, "--batch-size", 2_000, "--seed", 2**64 - 1,
                "--strategies", "random,greedy:scopa=2000,coin=150", "--rule", "target=21"],
               dict(rounds=5_000, batch_size=2_000, seed=2**64 - 1,
                    strategies=("random", "greedy:scopa=2000,coin=150"),
                    rules=Rules.preset("scopa").with_options(target=21))),
    "games": (["--games", 30, "--batch-size", 7, "--seed", 0, "--strategies", "greedy,greedy",
               "--rule", "primiera_scale=21,12,13,14,15,18,16,10,10,10"],
              dict(games=30, batch_size=7, seed=0, strategies=("greedy", "greedy"),
                   rules=Rules.preset("scopa").with_options(
                       primiera_scale=(21, 12, 13, 14, 15, 18, 16, 10, 10, 10)))),
}


@pytest.mark.parametrize("kind", SPECS)
def test_manifest_and_part_metadata_round_trip(tmp_path, kind):
    args, made = SPECS[kind]
    spec = RunSpec.make(**made)
    root = tmp_path / "run"
    simulate(root, *args)

    run = Run.open(root)
    assert run.spec == StoredSpec.from_dict(spec_dict(spec))        # read: labels, no code
    assert runnable(run.spec, root, {}) == spec                       # resumed: strategies too
    written = manifest(root)
    assert written["finished"] is True and written["workers"] >= 1
    assert {"python", "numba", "numpy", "pyarrow"} <= set(written["versions"])
    assert {k: written[k] for k in spec_dict(spec)} == spec_dict(spec)
    assert StoredSpec.from_dict(written) == run.spec

    files = sorted(root.glob("*/*.parquet"))
    assert len(files) == spec.n_batches * (2 if spec.games else 1)
    for path in files:
        meta = json.loads(pq.read_metadata(path).metadata[META_KEY])
        assert meta == spec_dict(spec), path
    assert list(run.missing_batches()) == []
    assert len(run.read(columns=["round"])) == sum(len(cols["round"])
                                                   for _, cols in run.batches(["round"]))
    if spec.games:
        games = run.read("games")
        assert list(games["game"]) == list(range(30))
        assert (games[["score_0", "score_1"]].max(axis=1) >= 11).all()   # to the target


def test_strategy_parameters_round_trip_exactly(tmp_path):
    spec = RunSpec.make(rounds=10, strategies=("random", "greedy:scopa=1234567,coin=0.1"))
    assert runnable(StoredSpec.from_dict(spec_dict(spec)), Path("run"), {}) == spec


# ---- output: --help, --format json, --quiet ------------------------------
def all_commands(group: click.Group = main, path: tuple[str, ...] = ()):
    """Every command registered on the group, nested groups included."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield path + (name,)
        if isinstance(command, click.Group):
            yield from all_commands(command, path + (name,))


def test_all_expected_commands_are_registered():
    assert {("simulate",), ("rules",), ("strategies",)} <= set(all_commands())


@pytest.mark.parametrize("path", [(), *all_commands()], ids=lambda p: " ".join(p) or "main")
def test_every_command_has_help(path):
    for flag in ("--help", "-h"):
        result = cli(*path, flag)
        assert result.stdout.startswith("Usage: "), result.stdout
        assert result.stderr == ""
    if path:
        command = main
        for name in path:
            command = command.get_command(click.Context(command), name)
        assert command.help, f"{' '.join(path)} has no help text"


def test_version():
    from importlib.metadata import version
    assert cli("--version").stdout.split()[-1] == version("scopa-sim")


@pytest.mark.parametrize("command", ["rules", "strategies"])
def test_listings_name_every_preset_and_strategy(command):
    names = PRESETS if command == "rules" else REGISTRY
    text = cli(command).stdout
    assert all(name in text for name in names)


def check_rate(d: dict, n: int):
    assert d["n"] == n and 0 <= d["low"] <= d["rate"] <= d["high"] <= 1
    assert d["rate"] == pytest.approx(d["k"] / n)


def test_json_summary_has_win_rates_with_intervals(tmp_path):
    result = simulate(tmp_path / "run", *GAMES, "--format", "json")
    assert result.stderr == ""
    s = json.loads(result.stdout)
    rows = len(Run.open(tmp_path / "run").read(columns=["round"]))
    assert s["run"] == str(tmp_path / "run") and s["seed"] == 12
    assert s["strategies"] == ["random", "greedy"] and s["rules"] == "scopa"
    assert (s["games"], s["rounds"], s["rounds_run"]) == (160, rows, rows)
    assert s["unit"] == "games" and s["rounds_per_second"] > 0
    for side in s["sides"]:
        check_rate(side["round_win"], rows)
        check_rate(side["game_win"], 160)
        for key in ("points", "pt_cards", "pt_coins", "pt_settebello", "pt_primiera", "scopas"):
            assert side[key]["low"] <= side[key]["mean"] <= side[key]["high"]
    check_rate(s["round_tie"], rows)
    assert sum(side["round_win"]["k"] for side in s["sides"]) + s["round_tie"]["k"] == rows
    assert sum(side["game_win"]["k"] for side in s["sides"]) == 160
    assert s["sides"][1]["round_win"]["rate"] > s["sides"][0]["round_win"]["rate"]  # greedy wins


def test_quiet_prints_no_progress(tmp_path):
    loud = cli("simulate", "--out", tmp_path / "loud", *ROUNDS)
    quiet = cli("simulate", "--out", tmp_path / "quiet", *ROUNDS, "--quiet")
    assert "simulate" in loud.stderr and "seed 11" in loud.stderr
    assert quiet.stderr == ""
    assert "round win rate" in quiet.stdout and "24,000 rounds" in quiet.stdout
    assert parts(tmp_path / "loud") == parts(tmp_path / "quiet")


def test_the_command_line_default_batch_is_the_runners():
    from scopa_sim.cli.simulate import DEFAULT_BATCH
    from scopa_sim.runs.runner import DEFAULT_BATCH as RUNNER_BATCH
    assert DEFAULT_BATCH == RUNNER_BATCH
