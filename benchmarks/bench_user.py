"""User strategies against the built-in they re-implement: rounds/s of
greedy-vs-greedy on one thread with the built-in greedy, the jitted user
greedy (docs/examples/greedy_jit.py) and the Python one
(docs/examples/greedy_py.py), all in one run; and the edit-and-run loop: the
start-up of a run after the jitted file is edited, and with it cached.

    .venv/bin/python benchmarks/bench_user.py [--rounds N] [--python-rounds N]

The three runs give the same bytes (checked here too). The edit loop runs
`scopa-sim simulate` in fresh processes on a copy of the jitted example in a
temporary folder: once as is (it compiles the user function, the kernel is
cached), once after an edit (a comment added: the user function compiles
again, the kernel does not), once unchanged (everything cached).
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scopa_sim

ROOT = Path(__file__).resolve().parent.parent
JIT = ROOT / "docs/examples/greedy_jit.py"
PY = ROOT / "docs/examples/greedy_py.py"


def rate(strategy, rounds, batch):
    """Rounds/s of strategy vs itself on one thread (best of 3), and the rows."""
    scopa_sim.simulate(rounds=min(rounds, 1000), strategies=(strategy, strategy), seed=1)
    best, df = 0.0, None
    for _ in range(3):
        t = time.perf_counter()
        df = scopa_sim.simulate(rounds=rounds, strategies=(strategy, strategy), seed=1,
                                batch_size=batch)
        best = max(best, rounds / (time.perf_counter() - t))
    return best, df


def startup(path, name) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "scopa_sim.cli", "simulate", "--rounds", "1000",
                    "--strategies", f"{path}:{name},greedy", "--seed", "1", "--quiet",
                    "--out", str(path.parent / "run"), "--overwrite"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--python-rounds", type=int, default=5_000)
    args = ap.parse_args()
    builtin, a = rate("greedy", args.rounds, 100_000)
    jitted, b = rate(f"{JIT}:greedy", args.rounds, 100_000)
    python, c = rate(f"{PY}:greedy", args.python_rounds, 5_000)
    same = a.equals(b) and a.iloc[:len(c)].equals(c)
    print(f"greedy vs greedy, one thread (best of 3); identical rows: {same}")
    print(f"  built-in greedy        {builtin:12,.0f} rounds/s")
    print(f"  jitted user greedy     {jitted:12,.0f} rounds/s  ({builtin / jitted:.2f}x slower)")
    print(f"  Python user greedy     {python:12,.0f} rounds/s  ({builtin / python:.0f}x slower)")
    with tempfile.TemporaryDirectory() as folder:
        mine = Path(folder) / "mine.py"
        shutil.copy(JIT, mine)
        first = startup(mine, "greedy")
        mine.write_text(mine.read_text() + "\n# edited\n")
        edited = startup(mine, "greedy")
        cached = startup(mine, "greedy")
    print("edit-and-run loop, `simulate --rounds 1000` in a fresh process:")
    print(f"  new file               {first:6.2f} s")
    print(f"  after an edit          {edited:6.2f} s")
    print(f"  unchanged (cached)     {cached:6.2f} s")


if __name__ == "__main__":
    main()
