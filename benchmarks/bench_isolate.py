"""The cost of --isolate: rounds/s of a user strategy against the built-in
greedy in this process and isolated (every decision a round trip to the
entrant's own process), and the cost per decision, for the jitted and the
Python greedy of docs/examples (the same bytes both ways: checked here),
each isolated with the kernel's confinement (`engine.confine`) and without.
Then the cost of an entrant's start (start, load, stop: best of 10) with
and without confinement, and of its mechanisms alone: `unshare ... true`
against `true`, and Landlock and the rlimits applied in a fresh Python.

    .venv/bin/python benchmarks/bench_isolate.py [--rounds N]

In process, the jitted strategy plays inside the batch kernel and the
Python one in the Python round loop; isolated, both play from the Python
loop. The overhead per decision is (isolated - in process) seconds over
the decisions the entrant made. Warm-up first (the entrant's start and its
compile are not counted); best of 3.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from scopa_sim.engine import confine
from scopa_sim.engine.isolate import Entrants
from scopa_sim.engine.rules import Rules
from scopa_sim.engine.seats import Seats
from scopa_sim.engine.strategies import parse_strategy

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES = {"jitted": ROOT / "docs/examples/greedy_jit.py",
              "python": ROOT / "docs/examples/greedy_py.py"}


def best_time(seats: Seats, rounds: int):
    """Best of 3 seconds for `rounds` rounds, and the rows of the last."""
    best, rows = float("inf"), None
    for _ in range(3):
        t = time.perf_counter()
        rows = seats.play_rows(False, 1, 0, rounds)[:2]
        best = min(best, time.perf_counter() - t)
    return best, rows


NONE = {"namespaces": [], "landlock": 0, "rlimits": False}      # no confinement


def measure(path: Path, rounds: int, rules: Rules, offer: dict) -> dict:
    text = f"{path}:greedy"
    here = Seats(rules, [parse_strategy(text), parse_strategy("greedy")])
    here.play_rows(False, 1, 0, 10)
    t_here, rows_here = best_time(here, rounds)
    with Entrants(rules, offer=offer) as pool:
        isolated = Seats(rules, [parse_strategy(text, loader=pool.load), parse_strategy("greedy")],
                         entrants=pool)
        isolated.play_rows(False, 1, 0, 10)                     # starts the entrant
        before = pool.decisions
        t_iso, rows_iso = best_time(isolated, rounds)
        decisions = (pool.decisions - before) / 3
    same = all(np.array_equal(a, b) for a, b in zip(rows_here, rows_iso))
    return {"here": rounds / t_here, "isolated": rounds / t_iso, "decisions": decisions,
            "overhead_us": (t_iso - t_here) / decisions * 1e6, "same": same}


def start_time(path: Path, rules: Rules, offer: dict, n: int = 10) -> float:
    """Best of `n` seconds for an entrant's start, load and stop."""
    best = float("inf")
    with Entrants(rules, offer=offer) as pool:
        spec = pool.load(f"{path}:greedy")            # its bytes read, a first start
        for _ in range(n):
            t = time.perf_counter()
            pool.describe(spec.text, spec.reference(), spec.digest, spec.checked)
            best = min(best, time.perf_counter() - t)
    return best


LANDLOCK = """
import os, tempfile, time
from scopa_sim.engine import confine
d = tempfile.mkdtemp()
t = time.perf_counter()
confine.limits(2**24)
confine.landlock(d, confine.landlock_abi())
print(time.perf_counter() - t)
"""


def best_run(command: list[str], n: int = 20) -> float:
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(command, check=True, env={})
        best = min(best, time.perf_counter() - t)
    return best


def mechanisms(offer: dict) -> str:
    """The mechanisms' own costs, in ms."""
    parts = []
    if offer["namespaces"]:
        extra = best_run([*offer["namespaces"], "/bin/true"]) - best_run(["/bin/true"])
        parts.append(f"namespaces (unshare) +{extra * 1e3:.1f} ms")
    if offer["landlock"]:
        t = min(float(subprocess.run([sys.executable, "-I", "-c", LANDLOCK], check=True,
                                     capture_output=True, text=True).stdout) for _ in range(5))
        parts.append(f"Landlock ABI {offer['landlock']} and rlimits {t * 1e3:.1f} ms")
    return "; ".join(parts) or "no mechanism available"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000)
    args = ap.parse_args()
    rules = Rules.resolve("scopa")
    offer = confine.available()
    print(f"user greedy vs built-in greedy, scopa, {args.rounds:,} rounds, one thread, best of 3")
    for kind, path in STRATEGIES.items():
        for confined, o in (("unconfined", NONE), ("confined", offer)):
            m = measure(path, args.rounds, rules, o)
            print(f"{kind:7s} {confined:10s} in process {m['here']:>10,.0f} rounds/s   "
                  f"isolated {m['isolated']:>8,.0f} rounds/s   "
                  f"{m['decisions'] / args.rounds:.0f} decisions a round   "
                  f"overhead {m['overhead_us']:.0f} µs a decision   same rows: {m['same']}")
    print("an entrant's start, load and stop, best of 10 (a private Numba cache either way):")
    for kind, path in STRATEGIES.items():
        bare, full = start_time(path, rules, NONE), start_time(path, rules, offer)
        print(f"{kind:7s} unconfined {bare * 1e3:7.0f} ms   confined {full * 1e3:7.0f} ms   "
              f"added {(full - bare) * 1e3:+.0f} ms")
    print(f"the mechanisms alone: {mechanisms(offer)}")


if __name__ == "__main__":
    main()
