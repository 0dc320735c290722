"""The one runner on its two executors, and analysis of a large run.

    .venv/bin/python benchmarks/bench_cluster.py [--rounds N] [--big-rounds N] [--dir DIR]

Prints (never asserts):

- rounds/s of the `simulate` command on the same run (`--rounds`, default
  10,000,000 random vs greedy rounds, 50,000 a batch) on the embedded thread
  pool with 1 and 2 threads and on a Dask LocalCluster with 1 and 2 worker
  processes (started by `--cluster local:N`); each as the run's own rate
  (from the first batch to the last, as the summary prints it) and as the
  whole command's wall time, which includes starting the cluster and loading
  the kernels in each worker. Target: the cluster within 10% of the embedded
  pool at the same parallelism. The parts of every run are byte-identical
  (checked here).
- the peak resident memory (the child's own `ru_maxrss`) of `ask` and
  `report` on a run of `--big-rounds` rounds (default 50,000,000; 0 skips
  it): they read the run batch by batch (target: ask under 500 MB).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "scopa_sim.cli"]


def child(args: list[str]) -> tuple[float, int, str]:
    """Run `scopa-sim ARGS` in a child process: (wall s, peak RSS bytes, stdout)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(CLI + args, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0), err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: scopa-sim {' '.join(args)}\n{err.read()}")
        return seconds, usage.ru_maxrss * 1024, out.read()


def parts(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "rounds").glob("*.parquet"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10_000_000)
    ap.add_argument("--big-rounds", type=int, default=50_000_000)
    ap.add_argument("--dir", type=Path, help="where runs go (default: a temporary folder)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(dir=a.dir))
    print(f"load average {os.getloadavg()[0]:.2f}; {a.rounds:,} rounds of random vs greedy")
    try:
        child(["simulate", "--rounds", "1000", "--out", str(work / "warm"), "--quiet"])
        reference = None
        for label, extra in (("embedded, 1 thread", ["--workers", "1"]),
                             ("embedded, 2 threads", ["--workers", "2"]),
                             ("LocalCluster, 1 process", ["--cluster", "local:1"]),
                             ("LocalCluster, 2 processes", ["--cluster", "local:2"])):
            out = work / label.replace(" ", "").replace(",", "-")
            wall, _, text = child(["simulate", "--rounds", str(a.rounds), "--seed", "1",
                                   "--out", str(out), "--quiet", "--format", "json", *extra])
            s = json.loads(text)
            same = parts(out) == reference if reference is not None else True
            reference = reference or parts(out)
            print(f"  {label:<27} {s['rounds_per_second']:>12,.0f} rounds/s in the run, "
                  f"{a.rounds / wall:>12,.0f} rounds/s with start-up ({wall:.1f} s); "
                  f"parts {'identical' if same else 'DIFFERENT'}")
            shutil.rmtree(out)
        if a.big_rounds:
            big = work / "big"
            wall, _, _ = child(["simulate", "--rounds", str(a.big_rounds), "--seed", "2",
                                "--out", str(big), "--quiet", "--format", "json"])
            print(f"{a.big_rounds:,}-round run made in {wall:.1f} s")
            for label, args in (("ask", ["ask", str(big), "winner == 0", "--given",
                                         "settebello_0 == 1", "--format", "json"]),
                                ("report", ["report", str(big), "--quiet", "--format", "json"])):
                wall, peak, _ = child(args)
                print(f"  {label:<7} peak memory {peak / 2**20:>7.0f} MiB, {wall:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
