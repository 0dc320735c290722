"""How fast is `advise`: 10,000 rollouts of an opening position, warm.

    .venv/bin/python benchmarks/bench_advise.py [--hand "7d 7h As"]
        [--table "2c 4h 5s Qd"] [--rollouts 10000] [--strategy heuristic]
        [--workers N] [--repeat 3]

Loads (or compiles) the kernels with a small call, then times `advise` with
--rollouts rollouts and no early stop (every move played on each deal), on
1 worker and on --workers, best of --repeat; prints seconds, rollouts/s and
playouts/s (rollouts x moves), against the target of 2 seconds for 10,000
rollouts on all cores. Also prints what the common random numbers save:
the best move's paired interval against the second beside the interval the
same numbers would give unpaired. Default position: the first play of the
worked example in shared/seeds/003.
"""
import argparse
import time

import numpy as np

from scopa_sim import advise
from scopa_sim.study.advise import DEFAULT_STRATEGY
from scopa_sim.runs.executors import default_workers

TARGET = 2.0            # seconds for 10,000 rollouts on all cores


def timed(args, workers: int) -> tuple[float, object]:
    best, df = np.inf, None
    for _ in range(args.repeat):
        t = time.perf_counter()
        df = advise(hand=args.hand, table=args.table, strategy=args.strategy,
                    rollouts=args.rollouts, early_stop=False, seed=args.seed, workers=workers)
        best = min(best, time.perf_counter() - t)
    return best, df


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hand", default="7d 7h As")
    ap.add_argument("--table", default="2c 4h 5s Qd")
    ap.add_argument("--rollouts", type=int, default=10_000)
    ap.add_argument("--strategy", default=DEFAULT_STRATEGY)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    t = time.perf_counter()
    advise(hand=args.hand, table=args.table, strategy=args.strategy, rollouts=100)
    warm = time.perf_counter() - t
    print(f"advise: hand {args.hand}, table {args.table}; {args.rollouts:,} rollouts by "
          f"{args.strategy}, no early stop, best of {args.repeat}")
    print(f"warm-up    {warm:8.2f} s (kernel load/compile)")
    df = None
    for workers in sorted({1, args.workers}):
        elapsed, df = timed(args, workers)
        moves = len(df)
        print(f"{workers} worker(s) {elapsed:8.3f} s   {args.rollouts / elapsed:12,.0f} rollouts/s"
              f"   {args.rollouts * moves / elapsed:12,.0f} playouts/s ({moves} moves)")
    if args.rollouts == 10_000:
        print(f"target     under {TARGET:.0f} s on {args.workers} worker(s): "
              f"{'yes' if elapsed < TARGET else 'NO'}")
    if len(df) > 1:
        a, b = df.iloc[0], df.iloc[1]
        paired = (b.vs_best_high - b.vs_best_low) / 2
        unpaired = np.hypot((a.margin_high - a.margin_low) / 2, (b.margin_high - b.margin_low) / 2)
        print(f"pairing    {b.move} vs {a.move}: {b.vs_best:+.3f} ± {paired:.3f} paired, "
              f"± {unpaired:.3f} unpaired ({(unpaired / paired) ** 2:.1f}x the rollouts saved)")


if __name__ == "__main__":
    main()
