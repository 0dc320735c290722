"""Kernel throughput on one core, and start-up times in fresh processes.

    .venv/bin/python benchmarks/bench_kernel.py [--rounds N] [--repeat K] [--skip-cold]

Prints, each in a fresh process:

- `scopa-sim --help`;
- cold start: `scopa-sim simulate --rounds 1000` with an empty Numba cache
  (NUMBA_CACHE_DIR set to a new temporary folder) for random,greedy,
  heuristic,counter and pimc,greedy; the kernels a run names are compiled
  then, the rest not;
- warm start: the same random,greedy run with the cache filled;

then the rounds/s of the kernel for random-vs-random and greedy-vs-greedy on
one thread (batches of 100,000 rounds into arrays, as the runner does; the
best of three passes, and their mean) and of `scopa_sim.simulate` (which also
builds a DataFrame). Timings on a shared machine are noisy: `--repeat K`
runs every fresh-process figure K times and prints the median.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CLI = "from scopa_sim.cli import main; main()"
COLD = (("random,greedy", "random/greedy"), ("heuristic,counter", "heuristic/counter"),
        ("pimc,greedy", "pimc/greedy"))


def seconds(args, env_extra=None) -> float:
    """Wall time of `python -c CLI args` in a fresh process."""
    env = {**os.environ, **(env_extra or {})}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", CLI, *args], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t


def simulate_args(strategies, out):
    return ["simulate", "--rounds", "1000", "--strategies", strategies, "--seed", "1",
            "--workers", "1", "--quiet", "--out", out, "--overwrite"]


def median_of(repeat, f) -> float:
    return statistics.median(f() for _ in range(repeat))


def start_up(repeat: int, skip_cold: bool):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        print(f"scopa-sim --help:                    "
              f"{median_of(repeat, lambda: seconds(['--help'])):6.2f} s")
        if not skip_cold:
            for strategies, label in COLD:
                def cold():
                    with tempfile.TemporaryDirectory() as cache:
                        return seconds(simulate_args(strategies, out), {"NUMBA_CACHE_DIR": cache})
                print(f"cold start {label + ' (empty cache):':<26}"
                      f"{median_of(repeat, cold):6.2f} s")
        warm_cache = os.path.join(tmp, "cache")
        env = {"NUMBA_CACHE_DIR": warm_cache}
        seconds(simulate_args("random,greedy", out), env)           # fill the cache
        warm = median_of(repeat, lambda: seconds(simulate_args("random,greedy", out), env))
        print(f"warm start random/greedy:            {warm:6.2f} s")


def throughput(rounds: int):
    import scopa_sim
    from scopa_sim.runner import RunSpec, run_batch
    for pair in (("random", "random"), ("greedy", "greedy")):
        spec = RunSpec.make(rounds=rounds, strategies=pair, seed=1, batch_size=100_000)
        run_batch(spec, 0)
        passes = []
        for _ in range(3):
            t = time.perf_counter()
            for b in range(spec.n_batches):
                run_batch(spec, b)
            passes.append(rounds / (time.perf_counter() - t))
        t = time.perf_counter()
        scopa_sim.simulate(rounds=rounds, strategies=pair, seed=1, workers=1,
                           batch_size=100_000)
        api = rounds / (time.perf_counter() - t)
        print(f"{pair[0]:>7} vs {pair[1]:<7} kernel {max(passes):10,.0f} rounds/s best of 3 "
              f"(mean {sum(passes) / 3:,.0f}), simulate() {api:10,.0f} rounds/s "
              f"(1 core, {rounds:,} rounds)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=1,
                    help="fresh-process timings: the median of this many runs")
    ap.add_argument("--skip-cold", action="store_true", help="no cold-start timings")
    ap.add_argument("--skip-throughput", action="store_true", help="no rounds/s")
    args = ap.parse_args()
    start_up(args.repeat, args.skip_cold)
    if not args.skip_throughput:
        throughput(args.rounds)


if __name__ == "__main__":
    main()
