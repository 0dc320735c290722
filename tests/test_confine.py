"""A contest nobody can rig (issue 46): every entrant confined by the kernel
(namespaces, Landlock, rlimits, a runner that is not dumpable) before its
code loads.

The attacking entrants (tests/cheats/, `_attack`) play greedy while their
attack fails and another move once it works, so against the built-in
`greedy` a margin of exactly 0 says it never worked; after each run nothing
of theirs is left running or planted. A forfeit an entrant did not cause is
"suspect", never charged; a failed restart or a file changed on disk is no
abort of the run.
"""
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from scopa_sim.cli import main
from scopa_sim.engine import confine
from scopa_sim.engine.isolate import MAX_FORFEITS, Entrants, IsolateError
from scopa_sim.engine.rules import Rules
from scopa_sim.engine.seats import Seats
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.study.matches import compare

CHEATS = Path(__file__).resolve().parent / "cheats"
EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
HONEST = f"{EXAMPLES / 'greedy_py.py'}:greedy"
DEALS = 30
OFFER = confine.available() if os.name == "posix" else {"namespaces": [], "landlock": 0}
FULL = bool(OFFER["namespaces"]) and OFFER["landlock"] >= 6
needs_full = pytest.mark.skipif(not FULL, reason="this kernel lacks user namespaces or Landlock "
                                                 f"ABI >= 6 (found {OFFER['landlock']})")
needs_landlock = pytest.mark.skipif(not OFFER["landlock"], reason="no Landlock in this kernel")


def cheat(name: str) -> str:
    return f"{CHEATS / name}.py:{name}"


def marked(marker: str) -> list[int]:
    """Live processes whose command line carries `marker`."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and marker.encode() in (d / "cmdline").read_bytes() \
                    and "\nState:\tZ" not in (d / "status").read_text():
                found.append(int(d.name))
        except OSError:
            pass
    return found


def entrants_here() -> list[int]:
    """This process's entrant processes (unshare's or Python's, its children)."""
    return [p for p in marked("scopa_sim.engine.isolate")
            if f"\nPPid:\t{os.getpid()}\n" in Path(f"/proc/{p}/status").read_text()]


def planted() -> list[Path]:
    folders = [*site.getsitepackages(), os.path.dirname(os.__file__)]
    return [Path(f) / "scopa_cheat_planted.pth" for f in folders
            if (Path(f) / "scopa_cheat_planted.pth").exists()]


@pytest.fixture
def no_plants():
    """Remove what a cheat planted, whatever the test found."""
    yield
    for p in planted():
        p.unlink()
    for pid in marked("scopa-cheat-daemon"):
        os.kill(pid, signal.SIGKILL)
    (CHEATS.parent.parent / "scopa_cheat_written").unlink(missing_ok=True)


# -- the layers, alone -----------------------------------------------------------------------
CONFINED = '''
import os, sys
from scopa_sim.engine import confine
os.chdir(sys.argv[1])
confine.landlock(sys.argv[1], confine.landlock_abi())
open("mine", "w").write("ok")
for act in (lambda: open(sys.argv[2], "w"), lambda: os.kill(os.getppid(), 0),
            lambda: open(f"/proc/{os.getppid()}/mem", "rb")):
    try:
        act()
        print("open")
    except OSError:
        print("shut")
'''


@needs_landlock
def test_landlock_lets_an_entrant_write_only_in_its_folder(tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = subprocess.run([sys.executable, "-c", CONFINED, scratch, tmp_path / "outside"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    shut = ["shut", "shut" if OFFER["landlock"] >= 6 else "open", "shut"]
    assert out.stdout.split() == shut
    assert (scratch / "mine").read_text() == "ok" and not (tmp_path / "outside").exists()


def test_missing_layers_are_named_in_one_line():
    held = {"namespaces": False, "landlock": 3, "rlimits": True, "not dumpable": True}
    line = confine.missing(held)
    assert "namespaces" in line and "ABI 3 < 6" in line and "\n" not in line
    assert confine.missing({**held, "namespaces": True, "landlock": 7}) is None


def test_strict_isolation_refuses_a_system_without_every_layer():
    with pytest.raises(IsolateError, match="strict isolation refused.*namespaces"):
        Entrants(Rules.resolve("scopa"), strict=True,
                 offer={"namespaces": [], "landlock": 7, "rlimits": True})
    r = CliRunner().invoke(main, ["compare", "greedy", "random", "--deals", "2",
                                  "--strict-isolation"])
    assert r.exit_code != 0 and r.stderr.strip() == "error: --strict-isolation goes with --isolate"


def test_a_missing_layer_is_one_warning_line_and_strict_refuses(monkeypatch):
    monkeypatch.setattr(confine, "available",
                        lambda: {"namespaces": [], "landlock": 7, "rlimits": True})
    args = ["compare", "greedy", "random", "--deals", "2", "--isolate", "--quiet"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.stderr
    warned = [line for line in r.stderr.splitlines() if "without namespaces" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: ")
    refused = CliRunner().invoke(main, [*args, "--strict-isolation"])
    assert refused.exit_code != 0
    assert refused.stderr.strip().startswith("error: --strict-isolation: this system lacks "
                                             "namespaces")


@pytest.mark.slow
def test_the_runner_is_not_dumpable_while_entrants_run():
    assert confine.dumpable()
    with Entrants(Rules.resolve("scopa")) as pool:
        assert not confine.dumpable() and pool.confinement["not dumpable"]
    assert confine.dumpable()


# -- the attacks gain nothing ----------------------------------------------------------------
@pytest.mark.slow
def test_reading_the_runners_memory_works_unconfined():
    """The control: the same attack, from a plain child process, reads it."""
    code = f"import sys; sys.path.insert(0, {str(CHEATS)!r}); import mem_read; " \
           f"print(mem_read.attack())"
    out = subprocess.run([sys.executable, "-c", code, "scopa_sim.cli"], capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.slow
@needs_full
@pytest.mark.parametrize("name", ["mem_read", "mem_write", "snoop", "plant_pth", "daemon"])
def test_a_confined_attack_gains_nothing_and_leaves_nothing(name, no_plants):
    r = compare(cheat(name), "greedy", deals=DEALS, seed=None, isolate=True, move_timeout=30)
    assert r["margin"]["low"] == r["margin"]["high"] == 0, r["margin"]
    assert r["forfeits"] == {}
    assert r["confinement"] == {"namespaces": True, "landlock": OFFER["landlock"],
                                "rlimits": True, "not dumpable": True}
    assert planted() == [] and entrants_here() == []
    deadline = time.monotonic() + 5
    while marked("scopa-cheat-daemon") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked("scopa-cheat-daemon") == []


@pytest.mark.slow
@needs_landlock
def test_without_namespaces_the_daemon_outlives_the_run(no_plants):
    """The control: Landlock alone leaves the daemon running (the namespaces end it)."""
    rules = Rules.resolve("scopa")
    with Entrants(rules, offer={**OFFER, "namespaces": []}) as pool:
        s = Seats(rules, [parse_strategy(cheat("daemon"), loader=pool.load),
                          parse_strategy("greedy")], entrants=pool)
        s.play_rows(False, 1, 0, 2)
    time.sleep(0.5)
    assert marked("scopa-cheat-daemon")


@pytest.mark.slow
@needs_full
@pytest.mark.parametrize("name", ["kill_rival", "stop_rival"])
def test_an_entrant_cannot_kill_stop_or_renice_its_rival(name):
    r = compare(cheat(name), HONEST, deals=DEALS, isolate=True, move_timeout=5)
    assert r["margin"]["low"] == r["margin"]["high"] == 0, r["margin"]
    assert r["forfeits"] == {}
    assert entrants_here() == []


@pytest.mark.slow
@needs_full
def test_a_rivals_file_named_on_the_command_line_cannot_be_changed(tmp_path, no_plants):
    rival = tmp_path / "rival_greedy.py"
    shutil.copy(EXAMPLES / "greedy_py.py", rival)
    before = rival.read_bytes()
    out = subprocess.run([sys.executable, "-m", "scopa_sim.cli", "compare", cheat("append_rival"),
                          f"{rival}:greedy", "--deals", str(DEALS), "--isolate", "--format",
                          "json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["margin"]["low"] == r["margin"]["high"] == 0 and r["forfeits"] == {}
    assert rival.read_bytes() == before
    assert not (CHEATS.parent.parent / "scopa_cheat_written").exists()


# -- the runner's fixes ----------------------------------------------------------------------
@pytest.mark.slow
def test_a_strategy_file_changed_during_the_run_plays_as_it_was_read(tmp_path):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLES / "greedy_py.py", path)
    rules = Rules.resolve("scopa")
    twin = Seats(rules, [parse_strategy("greedy"), parse_strategy("random")])
    with Entrants(rules) as pool:
        s = Seats(rules, [parse_strategy(f"{path}:greedy", loader=pool.load),
                          parse_strategy("random")], entrants=pool)
        path.write_text("def greedy(obs, moves):\n    raise RuntimeError('changed')\n")
        sides = s.play_rows(False, 2, 0, 20)[0]
        assert pool.report() == {}
    assert (sides == twin.play_rows(False, 2, 0, 20)[0]).all()


FAILS_AGAIN = '''
import os
if os.path.exists({mark!r}):
    raise ImportError("not today")

def f(obs, moves):
    return 0
'''


@pytest.mark.slow
def test_an_entrant_that_fails_to_start_again_forfeits_and_the_run_goes_on(tmp_path):
    path, mark = tmp_path / "again.py", tmp_path / "mark"
    path.write_text(FAILS_AGAIN.format(mark=str(mark)))
    rules = Rules.resolve("scopa")
    with Entrants(rules) as pool:
        s = Seats(rules, [parse_strategy(f"{path}:f", loader=pool.load),
                          parse_strategy("random")], entrants=pool)
        mark.touch()
        s.play_rows(False, 2, 0, 30)
        report = pool.report()[f"{path}:f"]
    assert report == {"crash": MAX_FORFEITS, "out": 30 - MAX_FORFEITS}


SLOW = '''
import time

def slow(obs, moves):
    time.sleep(0.05)
    return 0
'''


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill", "stop"])
def test_a_forfeit_from_outside_is_suspect_not_charged(tmp_path, how):
    """Someone SIGKILLs or SIGSTOPs the entrant: its round is lost, marked
    suspect, and not counted towards putting it out."""
    path = tmp_path / "slow.py"
    path.write_text(SLOW)
    done = threading.Event()

    def strike():
        while not done.is_set():
            pids = entrants_here()
            if pids and pool.decisions:
                if how == "kill":
                    os.kill(pids[0], signal.SIGKILL)
                else:       # the Python process itself: unshare's child, or the entrant
                    inner = [p for p in marked("scopa_sim.engine.isolate")
                             if f"\nPPid:\t{pids[0]}\n" in Path(f"/proc/{p}/status").read_text()]
                    os.kill((inner or pids)[0], signal.SIGSTOP)
                return
            time.sleep(0.05)

    rules = Rules.resolve("scopa")
    with Entrants(rules, move_timeout=2) as pool:
        s = Seats(rules, [parse_strategy(f"{path}:slow", loader=pool.load),
                          parse_strategy("random")], entrants=pool)     # loaded: then strike
        t = threading.Thread(target=strike)
        t.start()
        try:
            s.play_rows(False, 3, 0, 6)
        finally:
            done.set()
            t.join()
        report = pool.report()
    assert report == {f"{path}:slow": {"suspect": 1}}, report
    assert entrants_here() == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mem_read", "mem_write", "snoop", "plant_pth", "kill_rival"])
def test_the_same_attacks_work_unconfined(name, no_plants):
    """The controls: with no layer but rlimits (the entrant as it was), each
    attack works, and its entrant plays otherwise than its honest twin. (A
    runner that is not dumpable alone stops the memory attacks of a user
    who is not root.)"""
    if name.startswith("mem") and os.geteuid() != 0:
        pytest.skip("the runner is not dumpable: only root reads its memory unconfined")
    rules = Rules.resolve("scopa")
    twin = Seats(rules, [parse_strategy("greedy"), parse_strategy("greedy")])
    with Entrants(rules, move_timeout=30,
                  offer={"namespaces": [], "landlock": 0, "rlimits": True}) as pool:
        s = Seats(rules, [parse_strategy(cheat(name), loader=pool.load),
                          parse_strategy(HONEST if name == "kill_rival" else "greedy",
                                         loader=pool.load)], entrants=pool)
        sides = s.play_rows(False, 1, 0, 20)[0]
        report = pool.report()
    if name == "kill_rival":          # its rival, killed from outside: suspect, not charged
        assert report[HONEST].get("suspect", 0) > 0 and "crash" not in report[HONEST]
    else:
        assert (sides != twin.play_rows(False, 1, 0, 20)[0]).any()
