"""Kernel throughput on one core, and start-up times in fresh processes.

    .venv/bin/python benchmarks/bench_kernel.py [--rounds N] [--repeat K] [--passes P]
                                                [--skip-cold] [--skip-throughput]

Prints, each in a fresh process:

- `scopa-sim --help`;
- cold start: `scopa-sim simulate --rounds 1000` with an empty Numba cache
  (NUMBA_CACHE_DIR set to a new temporary folder) for random,greedy,
  heuristic,counter and pimc,greedy: the kernels a run names are compiled
  then, and no others;
- warm start: the same random,greedy run with the cache filled;

then, on one core, the rounds/s of random against random and greedy against
greedy: the kernel (batches of 100,000 rounds into arrays made once, as the
C twin times its own), `run_batch` (the same batches as the runner plays
them: the seats packed and new arrays for each batch, whose first touch
costs the system page faults), `scopa_sim.simulate` with one worker (the
kernel and the DataFrame) and, for random, the C twin (`benchmarks/c_twin.c`: the same
round, rules, random streams and decisions in the fastest C we could write,
built here with the system's `gcc -O3 -march=native`, as Numba targets this
CPU, and first checked to give the kernel's rows for three seeds); a pass
of each in turn, `--passes P` times (at least 9), the medians per second of
CPU time (the process's) with wall time beside, and the median over the
passes of each pass's ratios against the goals: `simulate()` at least level
with the C twin and the kernel at least 1.05 times it (random); `simulate()`
at most 5% slower than `run_batch` (greedy). The load average is printed
beside the figures. Fresh-process
figures show wall time and the process's CPU time. On a shared machine the
wall-time figures grow when other processes run, the CPU-time ones much
less; `--repeat K` runs every fresh-process figure K times and prints the
medians.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = "from scopa_sim.cli import run; run()"     # what the `scopa-sim` program runs
C_TWIN = Path(__file__).resolve().parent / "c_twin.c"
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

        print(f"scopa-sim --help:                          "
              f"{median_of(repeat, lambda: seconds(['--help']))}")
        if not skip_cold:
            for strategies, label in COLD:
                def cold():
                    with tempfile.TemporaryDirectory() as cache:
                        return seconds(simulate_args(strategies, out()),
                                       {"NUMBA_CACHE_DIR": cache})
                print(f"cold start {label + ' (empty cache):':<32}{median_of(repeat, cold)}")
        env = {"NUMBA_CACHE_DIR": os.path.join(tmp, "cache")}
        seconds(simulate_args("random,greedy", out()), env)           # fill the cache
        warm = median_of(repeat, lambda: seconds(simulate_args("random,greedy", out()), env))
        print(f"warm start random/greedy:                  {warm}")


def one_core():
    """The CPU this process (and every thread it starts) runs on from now, and
    a preexec_fn that puts a child process on it too."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu, lambda: os.sched_setaffinity(0, {cpu})


def c_twin(folder):
    """benchmarks/c_twin.c built with the system's gcc (-O3 -march=native:
    Numba compiles for the host CPU too) into `folder`;
    None, with a line saying why, if there is no gcc."""
    gcc = shutil.which("gcc")
    if gcc is None:
        print("C twin: no gcc on the PATH, the C row is skipped")
        return None
    binary = os.path.join(folder, "c_twin")
    subprocess.run([gcc, "-O3", "-march=native", "-o", binary, str(C_TWIN)], check=True)
    return binary


def check_twin(binary, folder, seeds=(1, 7, 2**64 - 5), count=2_000):
    """The C twin's rows (per side and per round) equal the kernel's for
    rounds 0..count-1 of random against random with these seeds."""
    import numpy as np
    from scopa_sim.engine.rules import Rules
    from scopa_sim.engine.seats import Seats
    from scopa_sim.kernels import layout as L
    seats = Seats(Rules(), ("random", "random"))
    row = np.dtype([("sides", np.int16, (2, L.N_SIDE)), ("rounds", np.int64, L.N_ROUND)])
    for seed in seeds:
        out = os.path.join(folder, "rows.bin")
        subprocess.run([binary, "check", str(seed), "0", str(count), out], check=True)
        rows = np.fromfile(out, row)
        sides, rounds, _ = seats.play_rows(False, seed, 0, count)
        if not ((rows["sides"] == sides).all() and (rows["rounds"] == rounds).all()):
            raise SystemExit(f"the C twin and the kernel differ (seed {seed}): fix one first")
    print(f"C twin: the same rows as the kernel for rounds 0..{count - 1} of seeds "
          f"{', '.join(map(str, seeds))}")


def rates(f, rounds):
    """Rounds per second of CPU time (the process's) and of wall time of f()."""
    c, t = time.process_time(), time.perf_counter()
    f()
    return rounds / (time.process_time() - c), rounds / (time.perf_counter() - t)


def in_turn(runs: dict, passes: int, rounds: int) -> dict:
    """A pass of each of `runs` (name: a function, or a C twin's command) in
    turn, `passes` times: per name the list of (rounds/s of CPU time, of
    wall time) of each pass (wall NaN for the C twin, which times itself)."""
    got = {name: [] for name in runs}
    for _ in range(passes):
        for name, f in runs.items():
            if callable(f):
                got[name].append(rates(f, rounds))
            else:
                done = subprocess.run(f[0], check=True, capture_output=True, text=True,
                                      preexec_fn=f[1])
                got[name].append((float(done.stdout.split()[0]), float("nan")))
    return got


def show(pair, passes: dict, goals):
    """The medians of one comparison, and for each (top, bottom, goal) the
    median over the passes of top / bottom against the goal."""
    for name, values in passes.items():
        cpu = statistics.median(v for v, _ in values)
        wall = statistics.median(w for _, w in values)
        print(f"{pair[0]:>7} vs {pair[1]:<7} {name:<11} {cpu:9,.0f} rounds/s"
              + ("" if wall != wall else f" ({wall:9,.0f})"))
    for top, bottom, goal in goals:
        ratio = statistics.median(a[0] / b[0] for a, b in zip(passes[top], passes[bottom]))
        print(f"{'':18} {top + ' / ' + bottom:<20} {ratio:.3f} (goal >= {goal})")


def throughput(rounds: int, passes: int):
    """On one core: the kernel (batches of 100,000 rounds into arrays made
    once, as the C twin times itself), `run_batch` (the same batches as the
    runner plays them, new arrays each), `simulate()` (one worker: the
    kernel and the DataFrame) and, for random, the C twin, a pass of each in
    turn, `passes` times: the medians of rounds/s of CPU time (wall time
    beside), and the ratios pass by pass (`show`)."""
    import scopa_sim
    from scopa_sim.engine.seats import Seats, row_arrays
    from scopa_sim.runs.plan import RunSpec
    from scopa_sim.runs.runner import run_batch
    cpu, on_cpu = one_core()
    print(f"throughput on one core (CPU {cpu}), {rounds:,} rounds a pass, medians of "
          f"{passes} passes taken in turn; rounds/s of CPU time (of wall time); "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        binary = c_twin(folder)
        if binary:
            check_twin(binary, folder)
        for pair in (("random", "random"), ("greedy", "greedy")):
            spec = RunSpec.make(rounds=rounds, strategies=pair, seed=1, batch_size=100_000)
            run_batch(spec, 0)                                      # compiled, or loaded
            seats = Seats(spec.rules, spec.strategies)
            arrays = (*row_arrays(spec.rules.n_sides, spec.batch_size + 1), seats.scratch())

            def kernel():
                for b in range(spec.n_batches):
                    first, count = spec.batch_range(b)
                    if seats.play(False, spec.seed, first, count, *arrays) != count:
                        raise RuntimeError(f"batch {b} did not play its {count:,} rounds")

            def runner():
                for b in range(spec.n_batches):
                    run_batch(spec, b)

            def api():
                scopa_sim.simulate(rounds=rounds, strategies=pair, seed=1, workers=1,
                                   batch_size=100_000)

            runs = {"kernel": kernel, "run_batch": runner, "simulate()": api}
            goals = [("simulate()", "run_batch", 0.95)]
            if binary and pair[0] == "random":
                runs["C twin"] = ([binary, "time", "1", str(rounds)], on_cpu)
                goals = [("simulate()", "C twin", 1.0), ("kernel", "C twin", 1.05)]
            show(pair, in_turn(runs, passes, rounds), goals)
        print(f"load average after: {os.getloadavg()[0]:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=1,
                    help="fresh-process timings: the median of this many runs")
    ap.add_argument("--skip-cold", action="store_true", help="no cold-start timings")
    ap.add_argument("--passes", type=int, default=9,
                    help="rounds/s: the median of this many passes of each")
    ap.add_argument("--skip-throughput", action="store_true", help="no rounds/s")
    args = ap.parse_args()
    start_up(args.repeat, args.skip_cold)
    if not args.skip_throughput:
        throughput(args.rounds, args.passes)


if __name__ == "__main__":
    main()
