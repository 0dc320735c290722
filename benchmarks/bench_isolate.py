"""The cost of --isolate: rounds/s of a user strategy against the built-in
greedy in this process and isolated (every decision a round trip to the
entrant's own process), and the cost per decision, for the jitted and the
Python greedy of docs/examples (the same bytes both ways: checked here).

    .venv/bin/python benchmarks/bench_isolate.py [--rounds N]

In process, the jitted strategy plays inside the batch kernel and the
Python one in the Python round loop; isolated, both play from the Python
loop. The overhead per decision is (isolated - in process) seconds over
the decisions the entrant made. Warm-up first (the entrant's start and its
compile are not counted); best of 3.
"""
import argparse
import time
from pathlib import Path

import numpy as np

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


def measure(path: Path, rounds: int, rules: Rules) -> dict:
    text = f"{path}:greedy"
    here = Seats(rules, [parse_strategy(text), parse_strategy("greedy")])
    here.play_rows(False, 1, 0, 10)
    t_here, rows_here = best_time(here, rounds)
    with Entrants(rules) as pool:
        isolated = Seats(rules, [parse_strategy(text, loader=pool.load), parse_strategy("greedy")],
                         entrants=pool)
        isolated.play_rows(False, 1, 0, 10)                     # starts the entrant
        before = pool.decisions
        t_iso, rows_iso = best_time(isolated, rounds)
        decisions = (pool.decisions - before) / 3
    same = all(np.array_equal(a, b) for a, b in zip(rows_here, rows_iso))
    return {"here": rounds / t_here, "isolated": rounds / t_iso, "decisions": decisions,
            "overhead_us": (t_iso - t_here) / decisions * 1e6, "same": same}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000)
    args = ap.parse_args()
    rules = Rules.resolve("scopa")
    print(f"user greedy vs built-in greedy, scopa, {args.rounds:,} rounds, one thread, best of 3")
    for kind, path in STRATEGIES.items():
        m = measure(path, args.rounds, rules)
        print(f"{kind:7s} in process {m['here']:>10,.0f} rounds/s   "
              f"isolated {m['isolated']:>8,.0f} rounds/s   "
              f"{m['decisions'] / args.rounds:.0f} decisions a round   "
              f"overhead {m['overhead_us']:.0f} µs a decision   same rows: {m['same']}")


if __name__ == "__main__":
    main()
