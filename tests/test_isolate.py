"""A fair contest of untrusted strategies (issue 37): under --isolate every
user strategy plays in a process of its own, from a secret 128-bit seed.

The cheating entrants of the issue's table (tests/cheats/) each play as
greedy when they learn nothing, so against their honest twin, the built-in
`greedy`, a cheat that gains nothing has a margin of exactly 0 on duplicate
deals; the in-process controls show the same cheats gaining, on as many
deals (well above +0.1 a round), so the isolated runs would have shown a gain.
An entrant that sleeps, crashes or answers garbage forfeits its round,
named in the report; no entrant process outlives the run, or a Ctrl-C.
"""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scopa_sim import kernels
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.round
from scopa_sim.cli import main
from scopa_sim.engine.isolate import Entrants
from scopa_sim.engine.rules import Rules
from scopa_sim.engine.seats import Seats
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.study.matches import compare, tournament

try:
    from tests.reference import engine as ref
except ImportError:  # tests/ on sys.path instead of the repo root
    from reference import engine as ref

CHEATS = Path(__file__).resolve().parent / "cheats"
EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
DEALS = 500           # a cheat's isolated twin plays every one of them alike
ORIGINAL_INIT = Seats.__init__


def cheat(name: str) -> str:
    return f"{CHEATS / name}.py:{name}"


PROC = Path("/proc")
pytestmark = [pytest.mark.slow,          # entrants' processes start, each importing Numba
              pytest.mark.skipif(not (PROC / "self" / "cmdline").exists() or os.name != "posix",
                                 reason="entrant processes are looked for in /proc")]


def entrant_processes() -> list[int]:
    """Every live process running the entrant module that this one started
    (from /proc: other runs on the machine are not ours to count)."""
    found = []
    for d in PROC.iterdir():
        if d.name.isdigit() and not gone(int(d.name)):
            try:
                if (b"scopa_sim.engine.isolate" in (d / "cmdline").read_bytes()
                        and f"\nPPid:\t{os.getpid()}\n" in (d / "status").read_text()):
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def all_gone(pids, seconds: float = 10) -> bool:
    """Whether every process of `pids` has ended within `seconds`."""
    pids, deadline = list(pids), time.monotonic() + seconds
    while not all(map(gone, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return all(map(gone, pids))


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (or is a zombie waiting to be reaped)."""
    try:
        state = (PROC / str(pid) / "status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in state or "\nState:\tX" in state


# -- the cheats gain nothing -------------------------------------------------------
@pytest.mark.parametrize("name, rules", [
    ("frames", "scopa"), ("gc_walk", "scopa"), ("objmode_walk", "scopa"),
    ("no_bounds", "scopa"), ("raw_pointer", "scopa"), ("rules_write", "scopa"),
    ("patch_seats", "scopa"), ("patch_match", "scopa"), ("seed_guess", "scopa"),
    ("collude", "scopone-scientifico")])
def test_an_isolated_cheat_gains_nothing_over_its_honest_twin(name, rules):
    r = compare(cheat(name), "greedy", rules=rules, deals=DEALS, isolate=True, move_timeout=30)
    m = r["margin"]
    assert m["low"] == m["high"] == 0, m      # not one deal of 500 played otherwise
    assert r["forfeits"] == {} and 0 <= r["seed"] < 2**128
    # nothing of the entrant ran here: the engine and the match code are as they were
    assert Seats.__init__ is ORIGINAL_INIT
    assert not [m for m in sys.modules.values() if str(getattr(m, "__file__", "")).startswith(
        str(CHEATS))]
    assert entrant_processes() == []


@pytest.mark.parametrize("name, rules", [("frames", "scopa"), ("objmode_walk", "scopa"),
                                         ("collude", "scopone-scientifico")])
def test_the_same_cheats_gain_in_process(name, rules):
    """The controls: the same deals show these cheats gaining, in this process."""
    m = compare(cheat(name), "greedy", rules=rules, deals=DEALS, seed=11)["margin"]
    assert m["low"] > 0.1, m


@pytest.mark.parametrize("name", ["patch_seats", "patch_match"])
def test_the_patching_cheats_gain_in_process(name):
    """The controls of the cheats that patch the engine at import, in a
    process of their own (they would patch this one)."""
    out = subprocess.run([sys.executable, "-m", "scopa_sim.cli", "compare", cheat(name), "greedy",
                          "--deals", "1000", "--seed", "11", "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["margin"]["low"] > 0.5
    assert "--isolate" in out.stderr                  # the trusted-code line


def test_a_known_seed_lets_the_seed_guesser_redeal_even_isolated():
    """Why --isolate --seed N warns: an entrant that guesses N deals every hand.
    (Its first move compiles the kernels it calls, in its own Numba cache:
    30 s for a move.)"""
    m = compare(cheat("seed_guess"), "greedy", deals=DEALS, seed=11, isolate=True,
                move_timeout=30)["margin"]
    assert m["low"] > 0.1, m


# -- the same results ------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["greedy_py.py:greedy", "greedy_jit.py:greedy"])
def test_an_honest_entrant_plays_the_same_isolated_as_in_process(strategy):
    a = f"{EXAMPLES / strategy}"
    isolated = compare(a, "counter", deals=400, seed=5, isolate=True)
    again = compare(a, "counter", deals=400, seed=5, isolate=True)
    in_process = compare(a, "counter", deals=400, seed=5)
    assert json.dumps(isolated) == json.dumps(again)
    confinement = isolated.pop("confinement")
    assert isolated == {**in_process, "isolate": True, "move_timeout": 1.0, "forfeits": {}}
    assert set(confinement) == {"namespaces", "landlock", "rlimits", "not dumpable"}


def test_an_isolated_tournament_ranks_as_in_process():
    names = [f"{EXAMPLES / 'greedy_py.py'}:greedy", "random", "counter"]
    isolated = tournament(names, deals=200, seed=3, isolate=True)
    assert isolated["forfeits"] == {}
    same = {k: v for k, v in isolated.items()
            if k not in ("isolate", "move_timeout", "forfeits", "confinement")}
    assert json.dumps(same) == json.dumps(tournament(names, deals=200, seed=3))    # nan == nan


# -- forfeits -----------------------------------------------------------------------------
FLAKY = '''
import os, time
import scopa_sim

def sleeper(obs, moves):
    if obs.plays < 2 and obs.random % 20 == 0:
        time.sleep(30)
    return 0

def raiser(obs, moves):
    if obs.plays < 2 and obs.random % 20 == 0:
        raise RuntimeError("no luck")
    return 0

def exiter(obs, moves):
    if obs.plays < 2 and obs.random % 20 == 0:
        os._exit(3)
    return 0

def zero(obs, moves):
    return 0

def garbage(obs, moves):
    if obs.plays < 2 and obs.random % 20 == 0:
        return "zero"
    if obs.plays < 2 and obs.random % 20 == 1:
        return len(moves)
    return 0

def always(obs, moves):
    os._exit(3)
'''


@pytest.fixture(scope="module")
def flaky(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("flaky") / "flaky.py"
    path.write_text(FLAKY)
    return path


@pytest.mark.parametrize("name, kind", [("sleeper", "timeout"), ("raiser", "crash"),
                                        ("exiter", "crash"), ("garbage", "bad answer")])
def test_an_entrant_that_fails_forfeits_its_round_and_the_run_goes_on(flaky, name, kind):
    r = compare(f"{flaky}:{name}", "random", deals=100, seed=4, isolate=True, move_timeout=0.3)
    assert r["pairs"] == 100
    assert set(r["forfeits"]) == {f"{flaky}:{name}"}
    assert r["forfeits"][f"{flaky}:{name}"][kind] > 0
    assert entrant_processes() == []


def test_an_entrant_that_keeps_failing_is_out_after_max_forfeits(flaky):
    """It costs the run MAX_FORFEITS restarts, not one a round."""
    from scopa_sim.engine.isolate import MAX_FORFEITS
    r = compare(f"{flaky}:always", "random", deals=40, seed=4, isolate=True)
    assert r["forfeits"] == {f"{flaky}:always": {"crash": MAX_FORFEITS, "out": 80 - MAX_FORFEITS}}
    assert r["margin"]["high"] < 0 and entrant_processes() == []


def test_a_forfeited_round_scores_nothing_for_that_side_alone(flaky):
    rules = Rules.resolve("scopa")
    honest = Seats(rules, [parse_strategy(f"{flaky}:zero"), parse_strategy("greedy")])
    honest_sides, _, _ = honest.play_rows(False, 4, 0, 300)     # exiter's twin, in process
    with Entrants(rules) as pool:
        s = Seats(rules, [parse_strategy(f"{flaky}:exiter", loader=pool.load),
                          parse_strategy("greedy")], entrants=pool)
        sides, rounds, _ = s.play_rows(False, 4, 0, 300)
        forfeits = sum(pool.report()[f"{flaky}:exiter"].values())
    zero = (sides[:, 0] == 0).all(axis=1)
    assert forfeits > 0 and zero.sum() >= forfeits
    same = (sides == honest_sides).all(axis=(1, 2))
    assert (same | zero).all()
    assert (sides[:, 1] != 0).any(axis=1).all()         # the other side keeps its row


def test_forfeits_are_named_on_the_command_line(flaky, tmp_path):
    r = CliRunner().invoke(main, ["compare", f"{flaky}:raiser", "random", "--deals", "100",
                                  "--seed", "4", "--isolate", "--move-timeout", "0.5"])
    assert r.exit_code == 0, r.output
    assert "forfeited rounds:" in r.stdout and f"{flaky}:raiser" in r.stdout
    assert "crash" in r.stdout
    j = CliRunner().invoke(main, ["compare", f"{flaky}:raiser", "random", "--deals", "100",
                                  "--isolate", "--format", "json"])
    assert json.loads(j.stdout)["forfeits"][f"{flaky}:raiser"]["crash"] > 0


FORKER = '''
import os, sys

def forker(obs, moves):
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", {marker!r}])
    return 0
'''


def marked(marker: str) -> list[int]:
    """Live processes whose command line carries `marker`."""
    found = []
    for d in PROC.iterdir():
        try:
            if d.name.isdigit() and marker.encode() in (d / "cmdline").read_bytes() \
                    and not gone(int(d.name)):
                found.append(int(d.name))
        except OSError:
            pass
    return found


def test_a_child_an_entrant_leaves_behind_is_stopped_with_it(tmp_path):
    """(Its children carry a marker on their command line: an entrant
    writes nowhere but its own folder.)"""
    marker = f"scopa-forker-{os.getpid()}-{time.monotonic_ns()}"
    path = tmp_path / "forker.py"
    path.write_text(FORKER.format(marker=marker))
    seen = []
    rules = Rules.resolve("scopa")
    with Entrants(rules) as pool:
        s = Seats(rules, [parse_strategy(f"{path}:forker", loader=pool.load),
                          parse_strategy("random")], entrants=pool)
        s.play_rows(False, 1, 0, 1)
        seen = marked(marker)
    assert seen and all_gone(seen)
    assert entrant_processes() == []


SLOW = '''
import os, sys, time
STARTED = []

def slow(obs, moves):
    if not STARTED:
        STARTED.append(os.fork() or os.execv(sys.executable, [sys.executable, "-c",
                       "import time; time.sleep(300)", {marker!r}]))
    time.sleep(0.01)
    return 0
'''


def test_ctrl_c_during_an_isolated_compare_leaves_no_entrant_behind(tmp_path):
    """(The entrant marks that it plays with a child carrying a marker on its
    command line: it writes nowhere but its own folder.)"""
    marker = f"scopa-slow-{os.getpid()}-{time.monotonic_ns()}"
    path = tmp_path / "slow.py"
    path.write_text(SLOW.format(marker=marker))
    proc = subprocess.Popen([sys.executable, "-m", "scopa_sim.cli", "compare", f"{path}:slow",
                             "random", "--deals", "100000", "--isolate", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    seen = marked(marker)
    assert seen, "no entrant started"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert all_gone(seen), err


# -- one-line refusals -------------------------------------------------------------
def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(r, *needles):
    assert r.exit_code != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_a_user_strategy_as_a_parameter_is_refused_under_isolation():
    with pytest.raises(ValueError, match="plays only at a seat"):
        compare(f"pimc:rollout={EXAMPLES / 'greedy_jit.py'}:greedy", "greedy", deals=2,
                isolate=True)
    one_error_line(cli("compare", f"pimc:rollout={EXAMPLES / 'greedy_jit.py'}:greedy", "greedy",
                       "--deals", "2", "--isolate"), "plays only at a seat")


def test_a_function_passed_in_python_cannot_be_isolated():
    with pytest.raises(ValueError, match="PATH.py:NAME"):
        compare(lambda obs, moves: 0, "greedy", deals=2, isolate=True)


@pytest.mark.parametrize("args, needles", [
    (("--move-timeout", "1"), ["--move-timeout goes with --isolate"]),
    (("--isolate", "--cluster", "local:2"), ["--isolate runs on this machine"]),
    (("--seed", str(2**64)), ["0..2**64-1", "--isolate"]),
    (("--isolate", "--seed", str(2**128)), ["0..2**128-1"]),
    (("--isolate", "--move-timeout", "0"), ["--move-timeout"]),
])
def test_isolation_options_are_checked_in_one_line(args, needles):
    one_error_line(cli("compare", "greedy", "random", "--deals", "2", *args), *needles)


def test_a_seed_of_128_bits_is_refused_where_the_kernel_plays():
    with pytest.raises(ValueError, match="isolation"):
        compare("greedy", "random", deals=2, seed=2**64)


def test_a_strategy_that_fails_to_load_is_one_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise ImportError('nope')\n")
    one_error_line(cli("compare", f"{bad}:f", "greedy", "--deals", "2", "--isolate"),
                   "fails to load", "nope")


# -- the seed ------------------------------------------------------------------------
def test_the_keyed_deal_is_todays_for_a_64_bit_seed_and_the_reference_above():
    deck, state = np.zeros(40, np.int64), np.zeros(1, np.uint64)
    r = random.Random(5)
    for seed in [0, 7, 2**64 - 1, *(r.getrandbits(128) for _ in range(20))]:
        lo, hi = seed % 2**64, seed >> 64
        unit, number = r.getrandbits(30), r.getrandbits(5)
        kernels.round.keyed_deal_round(np.uint64(lo), np.uint64(hi), unit, number, deck, state)
        key = ref.DEAL ^ hi
        assert deck.tolist() == ref.shuffled_deck(ref.SplitMix64(ref.sip(lo, key, unit * 2**20
                                                                         + number)))
        assert int(state[0]) == ref.sip(lo, ref.DECIDE ^ hi, unit * 2**20 + number)
        if hi == 0:
            other = np.zeros(40, np.int64)
            kernels.round.deal_round(np.uint64(lo), unit, number, other, np.zeros(1, np.uint64))
            assert (other == deck).all()


def test_an_isolated_run_without_a_seed_draws_128_bits_and_shows_it_at_the_end():
    seeds = {compare("greedy", "random", deals=2, isolate=True)["seed"] for _ in range(3)}
    assert len(seeds) == 3 and all(0 <= s < 2**128 for s in seeds)
    assert max(s.bit_length() for s in seeds) > 64


def test_the_cli_warns_of_a_known_seed_and_of_trusted_code(tmp_path):
    a = f"{EXAMPLES / 'greedy_py.py'}:greedy"
    known = cli("compare", a, "greedy", "--deals", "2", "--isolate", "--seed", "5", "--quiet")
    assert known.exit_code == 0 and "deal every hand again" in known.stderr
    assert len([line for line in known.stderr.splitlines() if "warning" in line]) == 1
    trusted = cli("compare", a, "greedy", "--deals", "2", "--seed", "5")
    assert "trusted code" in trusted.stderr and "--isolate" in trusted.stderr
    assert "trusted code" not in cli("compare", a, "greedy", "--deals", "2", "--quiet").stderr
    assert "trusted code" not in cli("compare", "greedy", "random", "--deals", "2").stderr
    assert "trusted code" in cli("tournament", a, "greedy", "random", "--deals", "2").stderr


def test_an_isolated_run_is_written_when_it_is_over_with_its_seed_and_forfeits(tmp_path):
    a = f"{EXAMPLES / 'greedy_py.py'}:greedy"
    r = CliRunner().invoke(main, ["simulate", "--rounds", "400", "--strategies", f"{a},greedy",
                                  "--isolate", "--out", str(tmp_path / "run"), "--batch-size",
                                  "200", "--format", "json", "--quiet"])
    assert r.exit_code == 0, r.stderr
    summary = json.loads(r.stdout)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["seed"] == summary["seed"] and manifest["isolate"] is True
    assert manifest["forfeits"] == {} and manifest["finished"] is True
    assert manifest["confinement"] == summary["confinement"]
    assert set(manifest["confinement"]) == {"namespaces", "landlock", "rlimits", "not dumpable"}
    assert summary["seed"] < 2**128
    # its decks are dealt again from the wide seed as the Python loop dealt them
    from scopa_sim.engine import decks
    seed, deck = summary["seed"], np.zeros(40, np.int64)
    numpy_decks = decks.decks(seed, np.arange(3), np.zeros(3, np.int64))
    for u in range(3):
        kernels.round.keyed_deal_round(np.uint64(seed % 2**64), np.uint64(seed >> 64), u, 0, deck,
                                       np.zeros(1, np.uint64))
        assert (numpy_decks[:, u] == deck).all()
    report = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--format", "json"])
    assert report.exit_code == 0, report.stderr


def test_an_isolated_simulate_plays_as_in_process_for_the_same_seed():
    from scopa_sim.runs.runner import simulate
    a = f"{EXAMPLES / 'greedy_jit.py'}:greedy"
    isolated = simulate(games=20, strategies=f"{a},counter", seed=9, isolate=True)
    assert isolated.attrs["forfeits"] == {}
    assert isolated.equals(simulate(games=20, strategies=f"{a},counter", seed=9))


def test_an_interrupted_or_refused_isolated_simulate_writes_nothing(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    one_error_line(cli("simulate", "--rounds", "10", "--isolate", "--out", tmp_path / "full"),
                   "already exists")
    one_error_line(cli("simulate", "--resume", tmp_path / "full", "--isolate"), "--isolate")


def test_an_isolated_run_stays_on_this_machine_whatever_the_environment_says(monkeypatch):
    monkeypatch.setenv("SCOPA_SIM_SCHEDULER", "tcp://nowhere.invalid:1")
    a = f"{EXAMPLES / 'greedy_py.py'}:greedy"
    assert compare(a, "greedy", deals=20, seed=1, isolate=True)["forfeits"] == {}
    assert tournament([a, "greedy", "random"], deals=20, seed=1, isolate=True)["forfeits"] == {}
    from scopa_sim.runs.runner import simulate
    assert simulate(rounds=20, strategies=f"{a},greedy", isolate=True).attrs["forfeits"] == {}
