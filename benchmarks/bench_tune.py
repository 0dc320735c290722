"""Can CMA-ES find better risk weights for counter, and how fast does it search?

    .venv/bin/python benchmarks/bench_tune.py [--minutes 20] [--strategy counter]
        [--deals 20000] [--check-deals 100000] [--seed 1] [--workers N]

Runs `scopa-sim tune STRATEGY --params RISKS --budget MINUTES` through the
library: counter's (and heuristic's) risk weights are sweep, seven,
coin_exposed and settebello_exposed; reply adds match and pair. Prints a
line for each new best (its margin on the search's deals), then the winner
as a strategy spec, its margin on fresh deals with the 95% interval, the
evaluations and how fast they went.
"""
import argparse
import time

from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.runs.executors import default_workers
from scopa_sim.study.tune import tune

RISKS = ("sweep", "seven", "coin_exposed", "settebello_exposed", "match", "pair")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="the search's budget")
    ap.add_argument("--strategy", default="counter")
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--check-deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args()
    declared = [p.name for p in parse_strategy(args.strategy).spec.declared]
    params = [p for p in RISKS if p in declared]
    print(f"tune {args.strategy} over {', '.join(params)}: {args.minutes:g} min budget, "
          f"{args.deals:,} deals an evaluation, {args.check_deals:,} to check, seed {args.seed}, "
          f"{args.workers} worker(s)", flush=True)
    seen = []

    def show(search):
        if search.best is not None and search.best is not (seen or [None])[-1]:
            seen.append(search.best)
            m = search.best.margin
            print(f"  {search.seconds():7.1f} s  evaluation {search.evaluations:5}  "
                  f"{m['estimate']:+.4f} [{m['low']:+.4f}, {m['high']:+.4f}]  "
                  f"{search.best.strategy}", flush=True)

    t = time.perf_counter()
    r = tune(args.strategy, params=params, deals=args.deals, check_deals=args.check_deals,
             seed=args.seed, budget=args.minutes, workers=args.workers, progress=show)
    elapsed = time.perf_counter() - t
    m = r["margin"]
    print(f"stopped   {r['stopped']} after {r['evaluations']:,} evaluations, "
          f"{r['generations']} generations, {r['seconds']:.0f} s of search "
          f"({r['evaluations'] / r['seconds']:.1f} evaluations/s); {elapsed:.0f} s with the check")
    print(f"best      {r['best']}")
    print(f"fresh     {m['estimate']:+.4f} [{m['low']:+.4f}, {m['high']:+.4f}] points per round "
          f"against {r['against']} on {r['check_deals']:,} fresh deals")
    print(f"answer    {r['spec']}" if r["improved"] else
          f"answer    no change beats the current weights")


if __name__ == "__main__":
    main()
