"""Kernel throughput on one core, and start-up times in fresh processes.

    .venv/bin/python benchmarks/bench_kernel.py [--rounds N] [--repeat K] [--skip-cold]

Prints, each in a fresh process:

- `scopa-sim --help`;
- cold start: `scopa-sim simulate --rounds 1000` with an empty Numba cache
  (NUMBA_CACHE_DIR set to a new temporary folder) for random,greedy,
  heuristic,counter and pimc,greedy: the kernels a run names are compiled
  then, and no others;
- warm start: the same random,greedy run with the cache filled;

then the rounds/s of the kernel for random-vs-random and greedy-vs-greedy on
one thread (batches of 100,000 rounds into arrays, as the runner does; the
best of three passes, and their mean), per second of the thread's CPU time
and per second of wall time, and of `scopa_sim.simulate` (which also builds a
DataFrame; wall time). Fresh-process figures show wall time and the
process's CPU time. On a shared machine the wall-time figures grow when other
processes run, the CPU-time ones much less; `--repeat K` runs every
fresh-process figure K times and prints the medians.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

CLI = "from scopa_sim.cli import main; main()"
COLD = (("random,greedy", "random/greedy"), ("heuristic,counter", "heuristic/counter"),
        ("pimc,greedy", "pimc/greedy"))


def seconds(args, env_extra=None) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of `python -c CLI args` in a
    fresh process."""
    env = {**os.environ, **(env_extra or {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", CLI, *args], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def simulate_args(strategies, out):
    return ["simulate", "--rounds", "1000", "--strategies", strategies, "--seed", "1",
            "--workers", "1", "--quiet", "--out", out]


def median_of(repeat, f) -> str:
    """The medians of wall and CPU time of `repeat` calls of f, as text."""
    times = [f() for _ in range(repeat)]
    wall = statistics.median(w for w, _ in times)
    cpu = statistics.median(c for _, c in times)
    return f"{wall:6.2f} s ({cpu:5.2f} s CPU)"


def start_up(repeat: int, skip_cold: bool):
    with tempfile.TemporaryDirectory() as tmp:
        runs = iter(range(10**6))

        def out():                                  # a new run folder each time
            return os.path.join(tmp, f"run-{next(runs)}")

        print(f"scopa-sim --help:                      "
              f"{median_of(repeat, lambda: seconds(['--help']))}")
        if not skip_cold:
            for strategies, label in COLD:
                def cold():
                    with tempfile.TemporaryDirectory() as cache:
                        return seconds(simulate_args(strategies, out()),
                                       {"NUMBA_CACHE_DIR": cache})
                print(f"cold start {label + ' (empty cache):':<28}{median_of(repeat, cold)}")
        env = {"NUMBA_CACHE_DIR": os.path.join(tmp, "cache")}
        seconds(simulate_args("random,greedy", out()), env)           # fill the cache
        warm = median_of(repeat, lambda: seconds(simulate_args("random,greedy", out()), env))
        print(f"warm start random/greedy:              {warm}")


def throughput(rounds: int):
    import scopa_sim
    from scopa_sim.runs.plan import RunSpec
    from scopa_sim.runs.runner import run_batch
    for pair in (("random", "random"), ("greedy", "greedy")):
        spec = RunSpec.make(rounds=rounds, strategies=pair, seed=1, batch_size=100_000)
        run_batch(spec, 0)
        cpu, wall = [], []
        for _ in range(3):
            c, t = time.thread_time(), time.perf_counter()
            for b in range(spec.n_batches):
                run_batch(spec, b)
            cpu.append(rounds / (time.thread_time() - c))
            wall.append(rounds / (time.perf_counter() - t))
        api = 0.0
        for _ in range(3):                     # best of 3, as the kernel figure
            t = time.perf_counter()
            scopa_sim.simulate(rounds=rounds, strategies=pair, seed=1, workers=1,
                               batch_size=100_000)
            api = max(api, rounds / (time.perf_counter() - t))
        print(f"{pair[0]:>7} vs {pair[1]:<7} kernel {max(cpu):9,.0f} rounds/s of CPU time "
              f"(mean {sum(cpu) / 3:,.0f}), {max(wall):9,.0f} of wall time "
              f"(mean {sum(wall) / 3:,.0f}); simulate() {api:9,.0f} rounds/s "
              f"(1 core, {rounds:,} rounds, best of 3)")


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
