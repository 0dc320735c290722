"""Deal columns at scale: the deal kernel's rate on one core, and `ask` with a
deal condition on a big run (wall time and peak memory of the process).

    .venv/bin/python benchmarks/bench_deals.py [--rounds 50000000] [--run runs/bench-deals]

The run is made once (random vs greedy, seed 1) if the folder does not hold
it; the ask is `scopa-sim ask RUN "winner == 0" --given "'7d' in hand_0"` in
a fresh process, best of 2.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import scopa_sim
from scopa_sim.engine import deals

CLI = [sys.executable, "-m", "scopa_sim.cli"]


def kernel_rate(n: int) -> float:
    """Rounds/s of `deals.deal_columns` on one thread (best of 3)."""
    rules, units = scopa_sim.Rules.resolve("scopa"), np.arange(n)
    deals.deal_columns(rules, 1, units[:1000], threads=1)            # compiled or loaded
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        deals.deal_columns(rules, 1, units, threads=1)
        best = max(best, n / (time.perf_counter() - t))
    return best


MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""


def ask(run: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of the ask, in a fresh process (a
    process between, so no earlier child counts in the peak)."""
    done = subprocess.run([sys.executable, "-c", MEASURE, *CLI, "ask", str(run), "winner == 0",
                           "--given", "'7d' in hand_0"], check=True, capture_output=True,
                          text=True)
    seconds, mib = map(float, done.stdout.split())
    return seconds, mib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=50_000_000)
    ap.add_argument("--kernel-rounds", type=int, default=5_000_000)
    ap.add_argument("--run", type=Path, default=Path("runs/bench-deals"))
    args = ap.parse_args()
    print(f"deal kernel, one thread: {kernel_rate(args.kernel_rounds):,.0f} rounds/s")
    if not (args.run / "manifest.json").exists():
        print(f"making {args.run}: {args.rounds:,} rounds of random vs greedy ...")
        subprocess.run([*CLI, "simulate", "--rounds", str(args.rounds), "--seed", "1",
                        "--batch-size", "1000000", "--out", str(args.run), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
    runs = [ask(args.run) for _ in range(2)]
    seconds = min(s for s, _ in runs)
    print(f"ask with a deal condition on {args.rounds:,} rounds: {seconds:.1f} s, "
          f"peak {max(m for _, m in runs):,.0f} MiB")


if __name__ == "__main__":
    main()
