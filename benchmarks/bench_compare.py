"""How long does a duplicate-deal compare take, and what does pairing save?

    .venv/bin/python benchmarks/bench_compare.py [--a greedy] [--b random]
        [--deals 100000] [--seed 1] [--workers N] [--games]

Warms up the kernels (a small compare), then times `scopa-sim compare A B
--deals N` through the library and prints the time, deals and rounds per
second, and the margin per round with its paired and unpaired 95% intervals
(the same data with and without the pairing), their correlation, and the
sample size unpaired deals would need for the paired interval's width.
"""
import argparse
import time

from scopa_sim.study.matches import compare
from scopa_sim.runs.executors import default_workers


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="greedy")
    ap.add_argument("--b", default="random")
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--games", action="store_true", help="pair whole games, not deals")
    args = ap.parse_args()

    t = time.perf_counter()
    compare(args.a, args.b, seed=args.seed, deals=1_000, games=args.games, workers=args.workers)
    warm = time.perf_counter() - t

    t = time.perf_counter()
    r = compare(args.a, args.b, seed=args.seed, deals=args.deals, games=args.games,
                workers=args.workers)
    elapsed = time.perf_counter() - t
    m = r["margin"]
    unit = "game seeds" if args.games else "deals"
    print(f"compare {args.a} vs {args.b}: {args.deals:,} duplicate {unit} "
          f"({r['rounds']:,} rounds), seed {args.seed}, {args.workers} worker(s)")
    print(f"warm-up   {warm:8.2f} s (kernel load/compile, 1,000 {unit})")
    print(f"time      {elapsed:8.2f} s   {args.deals / elapsed:,.0f} {unit}/s   "
          f"{r['rounds'] / elapsed:,.0f} rounds/s")
    print(f"margin    {m['estimate']:+.4f} points per round ({args.a} - {args.b})")
    print(f"paired    95% CI [{m['low']:+.4f}, {m['high']:+.4f}]  halfwidth {m['halfwidth']:.4f}")
    print(f"unpaired  95% CI [{m['unpaired_low']:+.4f}, {m['unpaired_high']:+.4f}]  "
          f"halfwidth {m['unpaired_halfwidth']:.4f}")
    print(f"pairing   correlation {m['correlation']:+.3f}; paired/unpaired width "
          f"{m['halfwidth'] / m['unpaired_halfwidth']:.3f}; worth {m['saving']:.2f}x the "
          f"{unit} unpaired")
    if args.games:
        w = r["match_win"]
        print(f"match     {w['estimate']:.4f} win rate for {args.a}, paired 95% CI "
              f"[{w['low']:.4f}, {w['high']:.4f}]")
    print(f"narrower  {'yes' if m['halfwidth'] < m['unpaired_halfwidth'] else 'NO'}; "
          f"under a minute: {'yes' if elapsed < 60 else 'NO'}")


if __name__ == "__main__":
    main()
