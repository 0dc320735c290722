"""Fair play and trust: nothing of the user's is deleted, no network wait
hangs, user code cannot write into our output, and every bad input is one
`error:` line and exit 2 (143 for SIGTERM).

House style of test_hostile_cli.py: tables of inputs and the words the error
must hold; what must survive is compared byte for byte.
"""
from __future__ import annotations

import html
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from scopa_sim.kernels import _jit
from hostile import assert_error, cli, tree

ROOT = Path(__file__).resolve().parent.parent
LONG_AGO = time.time() - 60 * 86400                  # 60 days: past STALE_DAYS


def scopa_sim(*args, cwd=None, env=None, timeout=120, **kwargs):
    """The `scopa-sim` program in a fresh process: (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "scopa_sim.cli", *map(str, args)], cwd=cwd,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout, **kwargs)
    return proc.returncode, proc.stdout, proc.stderr


def age(*paths: Path) -> None:
    for p in paths:
        os.utime(p, (LONG_AGO, LONG_AGO), follow_symlinks=False)


# ---- the cache deletes only its own folders ------------------------------------------
def hostile_home(home: Path, outside: Path) -> list[Path]:
    """A home (or project) folder as NUMBA_CACHE_DIR: an old `scopa-sim/` of
    the user's (a clone, the cache's former name), and in our own folder
    name a link to a marked folder outside, a folder without our marker, one
    whose marker is a link, and a stray file; all 60 days old. Returns what
    was aged (to be aged again after the tree is copied)."""
    outside.mkdir()
    (outside / _jit.MARKER).write_bytes(_jit.MARKER_TEXT)
    (outside / "thesis.tex").write_text("precious")
    clone = home / "scopa-sim"
    (clone / "docs").mkdir(parents=True)
    (clone / "docs" / "ANALYSIS.md").write_text("# docs")
    (clone / "runs" / "old-experiment").mkdir(parents=True)
    (clone / "runs" / "old-experiment" / "notes.txt").write_text("keep")
    ours = home / _jit.PARENT
    ours.mkdir()
    (ours / _jit.TAG).write_bytes(_jit.TAG_TEXT)
    (ours / "link-outside").symlink_to(outside)
    (ours / "unmarked").mkdir()
    (ours / "unmarked" / "data.bin").write_bytes(b"\0" * 10)
    (ours / "linked-marker").mkdir()
    (ours / "linked-marker" / _jit.MARKER).symlink_to(outside / _jit.MARKER)
    (ours / "stray.txt").write_text("a file of the user's")
    aged = [clone, clone / "docs", clone / "runs" / "old-experiment", ours / "link-outside",
            ours / "unmarked", ours / "linked-marker", ours / "stray.txt", outside]
    age(*aged)
    return aged


@pytest.mark.parametrize("where", ["$HOME", "..", "a project"])
def test_the_cache_clean_up_deletes_nothing_of_the_users(tmp_path, where):
    """NUMBA_CACHE_DIR at $HOME, `..` or a project: a fresh process that
    makes a new version folder there deletes nothing but an old version
    folder that carries our marker."""
    home = tmp_path / "home"
    (home / "sub").mkdir(parents=True)
    (home / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    aged = hostile_home(home, tmp_path / "outside")
    old = _jit.cache_folder("0ld0ld0ld0ld0ld0", home)           # ours, marked, old
    age(old)
    before = tree(tmp_path)
    cwd, base = {"$HOME": (tmp_path, home), "..": (home / "sub", ".."),
                 "a project": (tmp_path, "home")}[where]
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    made = Path(subprocess.run(
        [sys.executable, "-c", "from scopa_sim.kernels import _jit; print(_jit.CACHE_DIR)"],
        cwd=cwd, check=True, text=True, capture_output=True,
        env={**env, "NUMBA_CACHE_DIR": str(base)}).stdout.strip())
    assert made.resolve().parent == (home / _jit.PARENT).resolve()
    assert not old.exists()                                       # ours and old: deleted
    gone = {k for k in before if k not in tree(tmp_path)}
    assert gone == {old.relative_to(tmp_path).as_posix(),
                    (old / _jit.MARKER).relative_to(tmp_path).as_posix()}
    after = tree(tmp_path)
    assert all(after[k] == v for k, v in before.items() if k not in gone)
    assert all(k.startswith(f"home/{_jit.PARENT}/{made.name}") for k in after if k not in before)
    assert all(os.path.lexists(p) for p in aged)


def test_the_cache_never_prunes_in_a_folder_without_our_tag(tmp_path):
    """A folder of the cache's name that we did not make (no CACHEDIR.TAG):
    even a marked old folder in it stays."""
    parent = tmp_path / _jit.PARENT
    old = parent / "old"
    old.mkdir(parents=True)
    (old / _jit.MARKER).write_bytes(_jit.MARKER_TEXT)
    age(old)
    _jit.cache_folder("new", tmp_path)
    assert old.exists() and not (parent / _jit.TAG).exists()


def test_the_cache_folder_is_tagged_and_marked(tmp_path):
    folder = _jit.cache_folder("0123456789abcdef", tmp_path)
    assert (tmp_path / _jit.PARENT / "CACHEDIR.TAG").read_bytes().startswith(
        b"Signature: 8a477f597d28d172789f06886806bc55")
    assert (folder / _jit.MARKER).read_bytes() == _jit.MARKER_TEXT


# ---- every network wait has a deadline ----------------------------------------------------
@pytest.fixture
def silent_port():
    """A port on 127.0.0.1 that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    server.close()


ZERO_WORKERS = """
import asyncio, sys
from distributed import Scheduler
async def main():
    async with Scheduler(host="127.0.0.1", port=0, dashboard_address=":0") as s:
        print(s.address, flush=True)
        await asyncio.sleep(120)
asyncio.run(main())
"""


@pytest.fixture
def scheduler_without_workers():
    """The address of a real Dask scheduler on 127.0.0.1 with no worker."""
    proc = subprocess.Popen([sys.executable, "-c", ZERO_WORKERS], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def test_a_scheduler_that_never_answers_is_one_line_within_30_s(tmp_path, silent_port):
    address = f"tcp://127.0.0.1:{silent_port}"
    start = time.monotonic()
    code, out, err = scopa_sim("simulate", "--rounds", 1000, "--out", "run", "--quiet",
                               "--scheduler", address, cwd=tmp_path, timeout=60)
    elapsed = time.monotonic() - start
    assert elapsed < 30, elapsed
    assert code == 2 and out == "", (code, err)
    assert err.count("\n") == 1 and err.startswith("error: cannot reach the Dask scheduler"), err
    assert address in err and "no answer within" in err and "check the address" in err
    assert list(tmp_path.iterdir()) == []                         # nothing written


def test_a_scheduler_without_workers_is_one_line_within_30_s(tmp_path, scheduler_without_workers):
    address = scheduler_without_workers
    assert address.startswith("tcp://127.0.0.1:")
    start = time.monotonic()
    code, out, err = scopa_sim("compare", "greedy", "random", "--deals", 100, "--quiet",
                               "--scheduler", address, cwd=tmp_path, timeout=60)
    assert time.monotonic() - start < 30
    assert code == 2 and out == "", (code, err)
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "has no worker" in err and f"dask worker {address}" in err


def test_a_cluster_lost_while_batches_wait_is_an_error_not_a_hang(monkeypatch):
    """A Dask executor whose cluster has no worker left: the wait for a
    batch ends after WORKERS_TIMEOUT with the error, not never."""
    from types import SimpleNamespace

    from scopa_sim.runs import executors
    monkeypatch.setattr(executors, "WORKERS_TIMEOUT", 0.5)
    monkeypatch.setattr(executors, "_wait_for_a_worker", lambda client, where: None)
    client = SimpleNamespace(status="running", scheduler_info=lambda: {"workers": {}},
                             nthreads=lambda: {"w": 1})
    ex = executors.Dask(client, where="the Dask scheduler at tcp://127.0.0.1:1")

    class Never:                                   # a batch that never finishes
        def add_done_callback(self, callback):
            pass
    start = time.monotonic()
    with pytest.raises(executors.ClusterError, match="has had no worker for"):
        executors._result(Never(), ex)
    assert time.monotonic() - start < 5

    class Cancelled:                               # as Dask cancels a batch of a lost scheduler
        def add_done_callback(self, callback):
            callback(self)

        def result(self):
            from distributed.client import FutureCancelledError
            raise FutureCancelledError("_call-1", reason="scheduler-connection-lost")
    with pytest.raises(executors.ClusterError, match="127.0.0.1:1 lost the connection"):
        executors._result(Cancelled(), ex)


# ---- what user code prints goes to stderr ----------------------------------------------------
LOUD = '''
import os
import sys

import numba

print("loud: a print at import")
os.write(1, b"loud: a write to file descriptor 1 at import\\n")
if os.environ.get("LOUD_FORK"):
    os.fork()                       # both go on: the child runs the command too
import multiprocessing
if os.environ.get("LOUD_POOL") and not multiprocessing.current_process().daemon:  # not on Dask
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print("loud: a pool of forked processes says", pool.map(abs, [-1, -2]))


@numba.njit
def loud(obs, cards, takes, params):
    print("loud: a print from jitted code")
    return 0


def loud_py(obs, moves):
    print("loud: a print at call time")
    return 0
'''


@pytest.fixture(scope="module")
def loud(tmp_path_factory) -> Path:
    """A folder with loud.py: strategies that print at import, at call time
    (plain Python) and in jitted code (Numba's print, on file descriptor 1)."""
    folder = tmp_path_factory.mktemp("loud")
    (folder / "loud.py").write_text(LOUD)
    return folder


def one_json_document(out: str) -> dict:
    return json.loads(out)               # exactly one: json.loads refuses extra data


@pytest.mark.parametrize("args, env, printed", [
    (("compare", "loud.py:loud", "greedy", "--deals", 20), {}, "from jitted code"),
    (("simulate", "--rounds", 20, "--strategies", "loud.py:loud_py,greedy", "--out", "run"), {},
     "at call time"),
    (("compare", "loud.py:loud_py", "greedy", "--deals", 20), {"LOUD_FORK": "1"},
     "at call time"),
    (("simulate", "--rounds", 200, "--strategies", "loud.py:loud_py,greedy", "--out", "run",
      "--cluster", "local:2"), {"LOUD_POOL": "1"}, "pool of forked processes says [1, 2]"),
], ids=["compare-jitted", "simulate-python", "a-strategy-that-forks", "local-cluster-and-pool"])
def test_what_a_strategy_prints_never_reaches_stdout(loud, tmp_path, args, env, printed):
    cwd = tmp_path
    (cwd / "loud.py").write_text((loud / "loud.py").read_text())
    code, out, err = scopa_sim(*args, "--format", "json", "--quiet", cwd=cwd, env=env,
                               timeout=300)
    assert code == 0, err
    one_json_document(out)
    assert "loud: a print at import" in err and "file descriptor 1 at import" in err
    assert printed in err
    if args[0] == "simulate":                    # ask on the run that used it: no code runs
        code, out, err = scopa_sim("ask", "run", "winner == 0", "--format", "json", cwd=cwd)
        assert code == 0, err
        assert one_json_document(out)["n"] > 0
        assert "loud" not in err


POOLS = '''
import multiprocessing
for _ in range(100):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(abs, [-1, -2])


def first(obs, moves):
    return 0
'''


def test_a_pool_that_a_strategy_forks_ends_as_in_plain_python(tmp_path):
    """A process forked from the program starts with Python's SIGTERM
    (`runs.signals`): with ours inherited, `Pool.terminate()`'s SIGTERM was at
    times dropped or raised KeyboardInterrupt in a worker, and the pool
    waited for it forever (within 100 pools, every time)."""
    (tmp_path / "pools.py").write_text(POOLS)
    code, out, err = scopa_sim("compare", "pools.py:first", "greedy", "--deals", 4, "--quiet",
                               cwd=tmp_path, timeout=120)
    assert code == 0, err
    assert "KeyboardInterrupt" not in err


def test_results_still_go_to_stdout_and_help_too(tmp_path):
    code, out, err = scopa_sim("--help", cwd=tmp_path)
    assert code == 0 and out.startswith("Usage: scopa-sim") and err == ""
    code, out, err = scopa_sim("strategies", cwd=tmp_path)
    assert code == 0 and "greedy" in out and err == ""


# ---- small items: each one `error:` line, or its fix -----------------------------------------
@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A small finished run."""
    root = tmp_path_factory.mktemp("made") / "run"
    assert cli("simulate", "--out", root, "--quiet", "--rounds", 2_000, "--batch-size", 1_000,
               "--seed", 3).exit_code == 0
    return root


@pytest.mark.parametrize("command", [
    ("rules",), ("strategies",), ("report", "RUN", "--quiet"), ("ask", "RUN", "winner == 0"),
    ("plot", "RUN", "--out", "OUT/c.png", "--quiet"),
    ("advise", "--hand", "7d", "--table", "2c", "--seen", " ".join(      # exact: nothing hidden
        f"{r}{s}" for s in "dhsc" for r in "A234567JQK" if f"{r}{s}" not in ("7d", "2c", "Kc"))),
], ids=lambda c: c[0])
def test_a_bad_scheduler_variable_leaves_commands_without_batches_alone(made, tmp_path,
                                                                        command):
    """rules, strategies, report, ask, plot of a run and an exact advise run no
    batches: SCOPA_SIM_SCHEDULER=junk is not read."""
    args = [str(made) if a == "RUN" else a.replace("OUT", str(tmp_path)) for a in command]
    result = cli(*args, env={"SCOPA_SIM_SCHEDULER": "junk"})
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("command", [
    ("simulate", "--rounds", 100, "--out", "OUT/run"),
    ("compare", "greedy", "random", "--deals", 100),
    ("odds", "--rounds", 1000),
    ("simulate", "--rounds", 100, "--out", "OUT/run", "--workers", 1),
], ids=["simulate", "compare", "odds", "simulate-workers"])
@pytest.mark.parametrize("value", ["junk", "local:0", "tcp://"])
def test_a_bad_scheduler_variable_is_one_line_naming_it(tmp_path, command, value):
    args = [str(a).replace("OUT", str(tmp_path)) for a in command]
    result = cli(*args, "--quiet", env={"SCOPA_SIM_SCHEDULER": value})
    assert_error(result, f"SCOPA_SIM_SCHEDULER={value!r}", "unset SCOPA_SIM_SCHEDULER")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("strategy, needles", [
    ("greedy:scopa=2,scopa=3", ["scopa", "given twice", "'2'", "'3'"]),
    ("counter:sweep=1,sweep=2", ["sweep", "given twice"]),
])
def test_a_strategy_parameter_given_twice_is_an_error(strategy, needles, tmp_path):
    assert_error(cli("compare", strategy, "random", "--deals", 10, "--quiet"), *needles)
    assert_error(cli("simulate", "--strategies", f"{strategy},random", "--rounds", 10, "--out",
                     tmp_path / "run", "--quiet"), *needles)
    assert list(tmp_path.iterdir()) == []


def test_the_same_strategy_parameter_twice_with_one_value_is_allowed():
    from scopa_sim.engine.strategies import parse_strategy
    assert parse_strategy("greedy:scopa=2,scopa=2.0") == parse_strategy("greedy:scopa=2")


@pytest.mark.parametrize("expression, expected", [
    ("9007199254740993 == 9007199254740992.0", False),      # 2**53 + 1 against 2**53
    ("9007199254740993 != 9007199254740992.0", True),
    ("9007199254740993 > 9007199254740992.0", True),
    ("9007199254740992.0 < 9007199254740993", True),
    ("9007199254740992 == 9007199254740992.0", True),
    ("9223372036854775807 < 9223372036854775808.0", True),  # 2**63 - 1 against 2**63
    ("low == -9223372036854775808.0", True), ("low < -9223372036854775807.0", False),
    ("3 == 3.0", True), ("3 < 3.5", True), ("-3 > -3.5", True), ("0 <= -0.0", True),
    ("1 in [1.0, 2.5]", True), ("9007199254740993 in [9007199254740992.0]", False),
    ("big == 9007199254740992.0", False), ("big - 1 == 9007199254740992.0", True),
    ("big > half", True), ("1.5 > big", False),
])
def test_ask_compares_integers_with_floats_exactly(expression, expected):
    """As Python compares int with float: exactly, not after a rounding to float."""
    from scopa_sim.analysis.expr import evaluate
    columns = {"big": np.array([2**53 + 1], np.int64), "half": np.array([2.0**53]),
               "low": np.array([-2**63], np.int64)}
    assert evaluate(expression, columns, 1).tolist() == [expected]
    assert eval(expression, {}, {k: v[0].item() for k, v in columns.items()}) == expected


@pytest.mark.parametrize("args, needles", [
    (("--seed", "٣"), ["--seed", "٣"]),                       # an Arabic-Indic 3
    (("--seed", "３"), ["--seed"]),                            # a fullwidth 3
    (("--seed", "1_000"), ["--seed"]),
    (("--seed", "3", "--rule", "target=١١"), ["١١"]),
])
def test_only_ascii_digits_are_numbers(tmp_path, args, needles):
    assert_error(cli("simulate", "--rounds", 10, "--out", tmp_path / "run", *args), *needles)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("score", ["٣-4", "²-4", "3-４"])
def test_a_score_in_other_digits_is_refused(score):
    assert_error(cli("odds", "--score", score, "--rounds", 1000, "--quiet"), "MINE-THEIRS")


WEIRD = "x|y*z*`q`<script>alert(1)</script>_[l](x.html)&amp;#1. - "   # no ':' nor ','


def test_a_strategy_label_cannot_break_or_inject_into_the_report(tmp_path):
    """A user strategy in a folder named with Markdown and HTML: the report
    renders it as text, with every table whole."""
    from markdown_it import MarkdownIt
    folder = tmp_path / WEIRD.replace("/", "|")
    folder.mkdir()
    (folder / "g.py").write_text((ROOT / "docs" / "examples" / "greedy_jit.py").read_text())
    label = f"{folder.name}/g.py:greedy"
    run = tmp_path / "run"
    old = os.getcwd()
    os.chdir(tmp_path)                                   # the label is the path as given
    try:
        result = cli("simulate", "--strategies", f"{label},random", "--rounds", 2_000, "--out",
                     run, "--seed", 1, "--quiet")
        assert result.exit_code == 0, result.stderr
        for ext in ("md", "html"):
            assert cli("report", run, "--out", tmp_path / f"r.{ext}", "--quiet").exit_code == 0
    finally:
        os.chdir(old)
    page = MarkdownIt("commonmark").enable("table").render((tmp_path / "r.md").read_text())
    for text in (page, (tmp_path / "r.html").read_text()):
        assert "<script" not in text and "<a " not in text and "<em>" not in text
        assert "<strong>" not in text and "<li>" not in text
    assert html.escape(label, quote=False) in page                  # shown as it is, as text
    for table in page.split("<table>")[1:]:
        head = table.split("</thead>")[0].count("</th>")
        rows = table.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
        assert head >= 2 and rows and all(r.count("</td>") == head for r in rows)


@pytest.mark.parametrize("content, needle", [
    ("not json", "not JSON"),
    ("[1, 2]", "a JSON list"),
    ("{}", "'strategies'"),
    ('{"strategies": ["a"], "margin": []}', "'strategies'"),
    ('{"strategies": "ab", "margin": 1}', "'strategies'"),
    ('{"strategies": ["a", "b"], "margin": 1, "low": 1, "high": 1}', "'margin'"),
    ('{"strategies": ["a", "b"], "margin": [[0, 1], [1]], "low": [], "high": []}', "'margin'"),
    ('{"strategies": ["a", "b"], "margin": [[0, "x"], [1, 0]], "low": [], "high": []}',
     "'margin'"),
    ('{"strategies": ["a", "b"], "margin": [[0, 1], [1, 0]], "low": [[0, 1], [1, 0]], '
     '"high": [[0, 1], [1, 0]]}', "'pairs_per_match'"),
    ('{"strategies": ["a", "b"], "margin": [[0, 1], [1, 0]], "low": [[0, 1], [1, 0]], '
     '"high": [[0, 1], [1, 0]], "pairs_per_match": 5, "unit": 3}', "'unit'"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
    (b"\xff\xfe{", "not JSON"),
])
def test_plot_of_a_malformed_tournament_json_is_one_line(tmp_path, content, needle):
    source = tmp_path / "t.json"
    (source.write_bytes if isinstance(content, bytes) else source.write_text)(content)
    before = tree(tmp_path)
    assert_error(cli("plot", source, "--out", tmp_path / "t.png", "--quiet"),
                 "not a tournament's JSON output", needle)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("command", [
    ("simulate", "--rounds", 10**8, "--out", "run", "--workers", 1),
    ("compare", "greedy", "random", "--deals", 10**8),
], ids=["simulate", "compare"])
def test_sigterm_is_one_line_and_exit_143(tmp_path, command):
    proc = subprocess.Popen([sys.executable, "-m", "scopa_sim.cli", *map(str, command),
                             "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        if command[0] == "simulate":
            deadline = time.monotonic() + 60
            while not list((tmp_path / "run").glob("rounds/part-*.parquet")):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)
        else:
            time.sleep(5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, (proc.returncode, err)
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("terminated"), err
    if command[0] == "simulate":
        assert "batches are saved; finish with: scopa-sim simulate --resume run" in err
