"""`scopa-sim simulate` end to end: throughput with Parquet writing on 1 and 2
workers, the cost of writing over the kernel alone, bytes per round on disk,
and the peak memory of a large run.

    .venv/bin/python benchmarks/bench_simulate.py [--rounds N] [--big-rounds N]
        [--strategies random,greedy] [--batch-size N] [--dir DIR]

Prints (never asserts), after a warm-up:

- kernel only: rounds/s of `scopa_sim.runs.runner.run_batch` over the run's
  batches, on 1 thread and on 2 threads (no tally, no Parquet);
- end to end: rounds/s of the `simulate` command (in-process, `--quiet
  --format json`: batches, columns, tally, Parquet parts, manifest) on 1 and
  2 workers, the 2-worker / 1-worker ratio (target: at least 1.7x), and the
  cost of writing (target: at most 15%) at the same worker count, both as
  1 - end-to-end / kernel-only rate (wall time) and as the share of the end-
  to-end CPU time (all threads) not spent in the kernel; the CPU figure holds
  even when other processes take cores, the wall figures do not (the "cores
  busy" figure, CPU / wall time, shows how many cores a step really had);
- bytes per round of the `rounds` part files (and of the whole folder);
- a large run (`--big-rounds`, default 50,000,000; 0 skips it) in a child
  process on all cores: its wall time, rounds/s and peak resident memory
  (the child's own `ru_maxrss` from `os.wait4`; target: under 1 GB), with the
  peak of a child that only imports and runs 1,000 rounds for comparison.

The machine may be shared: the load average is printed first, as context.
Run folders go to a temporary directory (or `--dir`) and are deleted.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scopa_sim.cli import main as cli_main
from scopa_sim.runs.executors import default_workers
from scopa_sim.runs.plan import RunSpec
from scopa_sim.runs.runner import run_batch

ROOT = Path(__file__).resolve().parent.parent


def run_cli(args: list[str]) -> tuple[float, float, dict]:
    """`scopa-sim ARGS --quiet --format json` in this process:
    (wall seconds, CPU seconds of all threads, summary)."""
    buf = io.StringIO()
    t, c = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(buf):
        cli_main.main([*args, "--quiet", "--format", "json"])
    return time.perf_counter() - t, time.process_time() - c, json.loads(buf.getvalue())


def kernel_only(spec: RunSpec, workers: int) -> tuple[float, float]:
    """(wall, CPU) seconds to run every batch of the spec through `run_batch` alone."""
    t, c = time.perf_counter(), time.process_time()
    if workers == 1:
        for b in range(spec.n_batches):
            run_batch(spec, b)
    else:
        with ThreadPoolExecutor(workers) as pool:
            for _ in pool.map(lambda b: run_batch(spec, b), range(spec.n_batches)):
                pass
    return time.perf_counter() - t, time.process_time() - c


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def child_peak(args: list[str]) -> tuple[float, int, str]:
    """Run a child process; (wall seconds, its peak RSS in bytes, its stdout)."""
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err_file:
        proc = subprocess.Popen(args, stdout=out, stderr=err_file, text=True)
        _, status, usage = os.wait4(proc.pid, 0)          # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t
        out.seek(0), err_file.seek(0)
        text, err = out.read(), err_file.read()
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {' '.join(args)}\n{err}")
    return seconds, usage.ru_maxrss * 1024, text          # ru_maxrss is in KiB on Linux


def mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4_000_000,
                    help="rounds for the throughput runs (default 4,000,000)")
    ap.add_argument("--big-rounds", type=int, default=50_000_000,
                    help="rounds for the peak-memory run (default 50,000,000; 0 skips it)")
    ap.add_argument("--strategies", default="random,greedy")
    ap.add_argument("--batch-size", type=int, default=None,
                    help="rounds per batch (default: the CLI's default)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", type=Path, default=None, help="where to put the run folders")
    a = ap.parse_args()

    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    print(f"cores available: {default_workers()}; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; python {sys.version.split()[0]}")
    base = Path(tempfile.mkdtemp(prefix="bench-simulate-", dir=a.dir))
    common = ["--strategies", a.strategies, "--seed", str(a.seed)]
    if a.batch_size:
        common += ["--batch-size", str(a.batch_size)]
    try:
        # warm-up: load the cached kernels, touch every code path once
        run_cli(["simulate", "--rounds", "50000", "--out", str(base / "warm"), *common])
        spec = RunSpec.make(rounds=a.rounds, strategies=tuple(a.strategies.split(",")),
                            seed=a.seed, **({"batch_size": a.batch_size} if a.batch_size else {}))
        print(f"\nthroughput: {a.rounds:,} rounds of {a.strategies}, {spec.n_batches} batches "
              f"of {spec.batch_size:,}")
        kernel, e2e = {}, {}
        for w in (1, 2):
            k_wall, k_cpu = kernel_only(spec, w)
            wall, cpu, s = run_cli(["simulate", "--rounds", str(a.rounds), "--workers", str(w),
                                    "--out", str(base / f"w{w}"), *common])
            kernel[w], e2e[w] = a.rounds / k_wall, a.rounds / wall
            print(f"  {w} worker(s): kernel only {kernel[w]:>9,.0f} rounds/s, end to end "
                  f"{e2e[w]:>9,.0f} rounds/s (the CLI's own figure {s['rounds_per_second']:,.0f})")
            print(f"    cost of writing: {1 - e2e[w] / kernel[w]:5.1%} of wall time, "
                  f"{1 - k_cpu / cpu:5.1%} of CPU time (target <= 15%); cores busy: kernel "
                  f"{k_cpu / k_wall:.2f}, end to end {cpu / wall:.2f}")
        print(f"  2 workers / 1 worker: end to end {e2e[2] / e2e[1]:.2f}x (target >= 1.7x), "
              f"kernel only {kernel[2] / kernel[1]:.2f}x")
        same = all((base / "w1" / p.relative_to(base / "w2")).read_bytes() == p.read_bytes()
                   for p in (base / "w2").glob("rounds/*.parquet"))
        print(f"  1- and 2-worker part files byte-identical: {same}")

        rounds_bytes = folder_bytes(base / "w1" / "rounds")
        print(f"\non disk: {rounds_bytes / a.rounds:.2f} bytes per round in rounds/ "
              f"({rounds_bytes:,} bytes for {a.rounds:,} rounds in {spec.n_batches} parts); "
              f"{folder_bytes(base / 'w1') / a.rounds:.2f} bytes per round for the whole folder")
        for w in (1, 2):
            shutil.rmtree(base / f"w{w}")

        cmd = [sys.executable, "-m", "scopa_sim.cli", "simulate", "--quiet", "--format", "json",
               *common]
        _, idle, _ = child_peak([*cmd, "--rounds", "1000", "--out", str(base / "small")])
        print(f"\npeak memory of a child running 1,000 rounds (import, kernels, pools): "
              f"{mib(idle)}")
        if a.big_rounds:
            seconds, peak, text = child_peak([*cmd, "--rounds", str(a.big_rounds),
                                              "--out", str(base / "big")])
            s = json.loads(text)
            size = folder_bytes(base / "big")
            print(f"large run: {a.big_rounds:,} rounds on {default_workers()} workers in "
                  f"{seconds:.1f} s wall ({s['rounds_per_second']:,.0f} rounds/s in the run), "
                  f"{size / 2**20:,.0f} MiB on disk ({size / a.big_rounds:.2f} bytes/round)")
            print(f"  peak resident memory: {mib(peak)} ({peak / 1e9:.3f} GB; target < 1 GB)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
