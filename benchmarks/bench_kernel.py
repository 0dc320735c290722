"""Kernel throughput on one core, after warm-up; cold compile and warm import.

    .venv/bin/python benchmarks/bench_kernel.py [--rounds N]

Prints rounds/s of the kernel for random-vs-random and greedy-vs-greedy on
one thread (batches of 100,000 rounds into arrays, as the runner does; the
best of three passes, and their mean) and
of `scopa_sim.simulate` (which also builds a DataFrame), the time to import
and play a first round with a warm cache (a fresh process), and the cold
compile time (a fresh process with an empty cache directory).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

FIRST_ROUND = ("import time; t = time.perf_counter(); import scopa_sim; "
               "scopa_sim.simulate(rounds=1, strategies=('random', 'greedy')); "
               "print(time.perf_counter() - t)")


def fresh_process_seconds(env_extra=None) -> float:
    env = {**os.environ, **(env_extra or {})}
    out = subprocess.run([sys.executable, "-c", FIRST_ROUND], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        cold = fresh_process_seconds({"NUMBA_CACHE_DIR": cache})
    fresh_process_seconds()                       # make sure the cache is warm
    warm = fresh_process_seconds()
    import scopa_sim
    print(f"cold compile + first round: {cold:6.2f} s")
    print(f"warm import + first round:  {warm:6.2f} s")
    from scopa_sim.runner import RunSpec, run_batch
    for pair in (("random", "random"), ("greedy", "greedy")):
        spec = RunSpec.make(rounds=args.rounds, strategies=pair, seed=1, batch_size=100_000)
        run_batch(spec, 0)
        passes = []
        for _ in range(3):
            t = time.perf_counter()
            for b in range(spec.n_batches):
                run_batch(spec, b)
            passes.append(args.rounds / (time.perf_counter() - t))
        t = time.perf_counter()
        scopa_sim.simulate(rounds=args.rounds, strategies=pair, seed=1, workers=1,
                           batch_size=100_000)
        api = args.rounds / (time.perf_counter() - t)
        print(f"{pair[0]:>7} vs {pair[1]:<7} kernel {max(passes):10,.0f} rounds/s best of 3 "
              f"(mean {sum(passes) / 3:,.0f}), simulate() {api:10,.0f} rounds/s "
              f"(1 core, {args.rounds:,} rounds)")


if __name__ == "__main__":
    main()
