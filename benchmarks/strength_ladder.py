"""The strength ladder: each strategy against the one below it, on duplicate
deals (every deck played twice, seats swapped), with each strategy's speed.

    .venv/bin/python benchmarks/strength_ladder.py [--deals N] [--search-deals M] [--seed S]

Prints, for each step of random < greedy < heuristic < counter < pimc / ismcts,
the paired point margin per round with its 95% interval (and the unpaired
halfwidth, to show what pairing saved), then decisions per second and time
per round of each strategy playing itself on one core.
"""
import argparse
import time

import scopa_sim
from scopa_sim.study.matches import compare

LADDER = [("greedy", "random"), ("heuristic", "greedy"), ("counter", "heuristic"),
          ("reply", "counter"), ("pimc", "counter"), ("ismcts", "counter"), ("pimc", "ismcts")]
SEARCH = {"pimc", "ismcts"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200_000, help="deals per fast step")
    ap.add_argument("--search-deals", type=int, default=4_000, help="deals per search step")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    print(f"{'A':>10} vs {'B':<10} {'deals':>8} {'margin A-B':>11}  {'95% CI':>18}"
          f"  {'unpaired ±':>10}  {'time':>7}")
    for a, b in LADDER:
        deals = args.search_deals if {a, b} & SEARCH else args.deals
        t = time.perf_counter()
        r = compare(a, b, deals=deals, seed=args.seed)
        m = r["margin"]
        print(f"{a:>10} vs {b:<10} {deals:>8,} {m['estimate']:>+11.4f}  "
              f"[{m['low']:+.4f}, {m['high']:+.4f}]  {m.get('unpaired_halfwidth', float('nan')):>10.4f}"
              f"  {time.perf_counter() - t:6.1f}s", flush=True)
    print()
    print(f"{'strategy':>10} {'decisions/s':>12} {'ms/round':>9}   (playing itself, 1 core)")
    for name in scopa_sim.STRATEGIES:
        rounds = 200 if name in SEARCH else 50_000
        scopa_sim.simulate(rounds=2, strategies=(name, name))
        t = time.perf_counter()
        scopa_sim.simulate(rounds=rounds, strategies=(name, name), seed=args.seed, workers=1)
        dt = time.perf_counter() - t
        print(f"{name:>10} {36 * rounds / dt:>12,.0f} {1000 * dt / rounds:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
