"""The cheap strategies against today's default pimc (issue 13, item 2):
for each candidate, its rounds/s per core (self-play, CPU time) and its
margin per round on duplicate deals with a 95% interval, against default
pimc on two-player scopa and against counter on scopone scientifico
(partners).

    .venv/bin/python benchmarks/bench_cheap.py [--deals N] [--scopone-deals M]
        [--seed S] [STRATEGY ...]

Target: level with default pimc or better, at 20,000 rounds/s per core or
more. The reference is spelled out in full, so it stays today's default
when defaults change.
"""
import argparse

from frontier import cost, plays_per_round

from scopa_sim.study.matches import compare

PIMC = "pimc:samples=24,rollout=heuristic,endgame=1,infer=0"
CANDIDATES = ("heuristic", "counter", "reply", "endgame")
TARGET = 20_000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategies", nargs="*", help=f"candidates (default {', '.join(CANDIDATES)})")
    ap.add_argument("--deals", type=int, default=4000, help="duplicate deals against pimc")
    ap.add_argument("--scopone-deals", type=int, default=4000,
                    help="duplicate deals against counter on scopone-scientifico")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    print(f"against {PIMC} on scopa ({args.deals:,} deals) and counter on "
          f"scopone-scientifico ({args.scopone_deals:,} deals); seed {args.seed}")
    print(f"{'strategy':<12} {'rounds/s/core':>14}  {'vs default pimc (2p)':>30}  "
          f"{'vs counter (scopone)':>30}  target")
    for spec in args.strategies or CANDIDATES:
        ms, _, _ = cost(spec, "scopa", args.seed, 1.0)
        rate = 1000.0 / (ms * plays_per_round("scopa"))
        two = compare(spec, PIMC, "scopa", seed=args.seed, deals=args.deals)["margin"]
        four = compare(spec, "counter", "scopone-scientifico", seed=args.seed,
                       deals=args.scopone_deals)["margin"]
        met = rate >= TARGET and two["high"] >= 0
        print(f"{spec:<12} {rate:>14,.0f}  "
              f"{two['estimate']:+.3f} [{two['low']:+.3f}, {two['high']:+.3f}]".rjust(46)
              + f"  {four['estimate']:+.3f} [{four['low']:+.3f}, {four['high']:+.3f}]".rjust(32)
              + f"  {'met' if met else 'no'}", flush=True)


if __name__ == "__main__":
    main()
