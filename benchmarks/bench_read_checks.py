"""What the read-time row checks cost (issue 37, part 5): a run's parts read
with the checks of `scopa_sim.runs.consistent` (and the columns they read
beside those asked for) and without, alternating, best of --repeat.

    .venv/bin/python benchmarks/bench_read_checks.py RUN [--repeat 15]

Make RUN with, say, `scopa-sim simulate --rounds 1000000 --seed 1 --out RUN`.
Reads: every column (the report's pass), points_0 alone and dealer alone
(the narrowest reads: every side's points and categories come too, since
every rounds part read is checked to add up, whatever the question reads).
"""
import argparse
import time

from scopa_sim.runs import consistent
from scopa_sim.runs.store import Run

READS = (None, ["points_0"], ["dealer"])


def read_all(run: Run, columns) -> int:
    return sum(len(next(iter(df.values()))) for _, df in run.batches(columns=columns))


def timed(run: Run, columns, checked: bool) -> float:
    check, needed = Run._check_rows, consistent.needed
    if not checked:
        Run._check_rows = lambda *args: None
        consistent.needed = lambda *args: []
    try:
        start = time.perf_counter()
        read_all(run, columns)
        return time.perf_counter() - start
    finally:
        Run._check_rows, consistent.needed = check, needed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    run = Run.open(args.run)
    rows = read_all(run, ["dealer"])                   # warm: the files in the page cache
    print(f"{args.run}: {rows:,} rows in {len(run.done_batches())} parts; best of {args.repeat}")
    for columns in READS:
        best = {True: float("inf"), False: float("inf")}
        for _ in range(args.repeat):
            for checked in (True, False):
                best[checked] = min(best[checked], timed(run, columns, checked))
        extra = best[True] - best[False]
        print(f"  {'every column' if columns is None else ', '.join(columns):<14} read "
              f"{best[False] * 1e3:6.1f} ms, checked {best[True] * 1e3:6.1f} ms "
              f"(+{extra * 1e3:.1f} ms, {extra / best[False]:+.0%})")


if __name__ == "__main__":
    main()
