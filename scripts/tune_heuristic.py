"""Tune the risk weights of `heuristic`, `counter` or `reply` by simulation.

    .venv/bin/python scripts/tune_heuristic.py [--strategy heuristic] [--deals 100000] [--rounds 3]

Coordinate search: each round, try every risk weight halved and doubled
against the current best on duplicate deals (same seed, so every candidate
meets the same decks); keep a change only if its margin's 95% interval is
above zero. Prints each step and the final weights, to copy into
kernels/registry.py.
"""
import argparse

from scopa_sim.study.matches import compare
from scopa_sim.kernels import registry

RISKS = ("sweep", "seven", "coin_exposed", "settebello_exposed", "match", "pair")


def spec(name, weights):
    return name + ":" + ",".join(f"{k}={v:g}" for k, v in weights.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", choices=("heuristic", "counter", "reply"), default="heuristic")
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    sid = registry.NAMES.index(args.strategy)
    best = {p.name: p.default for p in registry.BUILTINS[sid].params if p.name in RISKS}
    for r in range(args.rounds):
        changed = False
        for key in RISKS:
            for factor in (0.5, 2.0):
                trial = dict(best, **{key: best[key] * factor})
                res = compare(spec(args.strategy, trial), spec(args.strategy, best),
                              deals=args.deals, seed=args.seed + r)["margin"]
                keep = res["low"] > 0
                print(f"round {r} {key}={trial[key]:g} vs {best[key]:g}: "
                      f"{res['estimate']:+.4f} [{res['low']:+.4f}, {res['high']:+.4f}]"
                      f"{'  kept' if keep else ''}", flush=True)
                if keep:
                    best, changed = trial, True
                    break
        if not changed:
            break
    print("weights:", ", ".join(f"{k}={v:g}" for k, v in best.items()))
    vs_greedy = compare(spec(args.strategy, best), "greedy", deals=args.deals, seed=1)["margin"]
    print(f"against greedy: {vs_greedy['estimate']:+.4f} "
          f"[{vs_greedy['low']:+.4f}, {vs_greedy['high']:+.4f}]")


if __name__ == "__main__":
    main()
